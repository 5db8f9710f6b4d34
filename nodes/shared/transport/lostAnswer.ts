// Why: an insert is never sent twice; when its answer was lost, this finds the rows it created.
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import type { Table } from '../constants';
import { errorForItem } from '../itemError';
import { isoInstant } from '../timestamps';
import { OLDEST_FIRST, type Filter, type ListQuery, type OrderBy } from './query';
import { timedOutAfter } from './send';

/** What a lookup reads with: the client's node, its service clock and its reads (index.ts). */
export interface LookupClient {
	readonly node: INode;
	serviceNow(): number;
	selectAll<T>(
		table: Table,
		query: Omit<ListQuery, 'limit' | 'after'> & { order: OrderBy[] },
		options: { itemIndex?: number },
	): Promise<T[]>;
}

/**
 * How far back from the request a row it created may be stamped (Date headers count whole
 * seconds).
 */
const INSERT_SLACK_MS = 2_000;

/**
 * One row to insert, for one item; messages call it `noun` (`job`) and send the user to
 * `findHint` (`Job → Get Many with URL … and Email …`).
 */
export type InsertRequest = {
	body: IDataObject;
	options: { itemIndex?: number; noun: string; findHint: string };
};

/**
 * The values of a body that a row it created must have: its strings, numbers, booleans and
 * nulls.
 */
const valuesOf = (body: IDataObject) =>
	Object.entries(body).filter(
		([, value]) => value === null || ['string', 'number', 'boolean'].includes(typeof value),
	);

/** Values as a map key: the same columns with equal values give the same key. */
const valuesKey = (values: Array<[string, unknown]>) => JSON.stringify(values);

/**
 * The rows having each wanted set of values, by its key: one pass over the rows per shape of
 * body.
 */
function rowsByValues<T extends IDataObject>(rows: T[], wanted: Array<Array<[string, unknown]>>) {
	const byKey = new Map<string, T[]>();
	const shapes = new Set(wanted.map((values) => JSON.stringify(values.map(([column]) => column))));
	for (const columns of [...shapes].map((shape) => JSON.parse(shape) as string[]))
		for (const row of rows) {
			// A column the row lacks matches no value sent (a body's values are never undefined).
			const key = valuesKey(columns.map((c) => [c, row[c] ?? (c in row ? null : {})]));
			if (!byKey.get(key)?.push(row)) byKey.set(key, [row]);
		}
	return byKey;
}

/**
 * An answer is lost when a gateway fails after the commit, a connection is reset, a body is
 * broken or carries no rows: sending the insert again could create a duplicate, so its rows are
 * looked up instead. An insert's rows are those with its values, created since it was sent and
 * not yet returned by this execution, with ids above every id an answer showed before it was
 * sent (ids are identity: a row with a lower one existed already). A request's rows are written
 * together or not at all: a lookup takes them all, one transaction's (one `created_at`), or
 * none, and identical bodies take them in the order sent.
 */
export class InsertRecovery {
	/**
	 * Rows this execution's inserts returned: a lookup after a lost answer never hands one out
	 * twice.
	 */
	private readonly claimed = new Set<string>();
	/** Per table, the highest id an answer of this execution showed (see floor). */
	private readonly highest = new Map<Table, number>();

	constructor(private readonly client: LookupClient) {}

	/**
	 * Per set of values, the last insert of this execution that has them: the next one waits for
	 * it.
	 */
	private readonly latest = new Map<string, Promise<unknown>>();

	/**
	 * Runs `insert` once this execution's earlier inserts with some of its values are settled:
	 * identical rows created at once could not be told apart.
	 */
	async afterIdenticalInserts<R>(inserts: InsertRequest[], insert: () => Promise<R>): Promise<R> {
		const keys = [...new Set(inserts.map(({ body }) => valuesKey(valuesOf(body))))];
		const result = Promise.all(keys.map((key) => this.latest.get(key))).then(() => insert());
		const settled = result.catch(() => undefined);
		for (const key of keys) this.latest.set(key, settled);
		return await result;
	}

	/** The highest id of `table` seen so far: a request sent now can create only rows above it. */
	floor(table: Table): number {
		return this.highest.get(table) ?? 0;
	}

	/** Notes the ids of rows an answer showed (their ids were given out before what is sent next). */
	see(table: Table, rows: IDataObject[]): void {
		for (const { id } of rows)
			if (typeof id === 'number' && id > this.floor(table)) this.highest.set(table, id);
	}

	markReturned<T extends IDataObject>(table: Table, row: T): T {
		this.claimed.add(`${table}:${String(row.id)}`);
		this.see(table, [row]);
		return row;
	}

	/**
	 * For each insert sent at `sentAt` when the highest id seen was `floor`, its row (`recovered:
	 * true` after a lost answer, `lost`) or its item's error.
	 */
	async recover<T extends IDataObject>(
		table: Table,
		inserts: InsertRequest[],
		sent: { at: number; floor: number },
		lost: NodeApiError | undefined,
	): Promise<Array<T | NodeApiError>> {
		const created = await this.createdSince<T>(table, inserts, sent.at, lost);
		if (!Array.isArray(created)) return created.errors;
		const wanted = inserts.map(({ body }) => valuesOf(body));
		const keys = wanted.map(valuesKey);
		const fresh = created.filter((row) => Number(row.id) > sent.floor);
		const matching = rowsByValues(fresh, wanted);
		const count = new Map<string, number>();
		for (const key of keys) count.set(key, (count.get(key) ?? 0) + 1);
		// As many rows as inserts with these values, for every insert, created together: else
		// none is claimed (found apart, they may be other clients' rows, this request not done).
		const exact = keys.every((key) => matching.get(key)?.length === count.get(key));
		const stamps = new Set(keys.flatMap((key) => matching.get(key) ?? []).map((r) => r.created_at));
		if (!exact || stamps.size > 1)
			return inserts.map((insert, position) => {
				const found = matching.get(keys[position]) ?? [];
				return this.notFound({ found, count: count.get(keys[position]) ?? 1 }, insert, lost);
			});
		return inserts.map((_, position) => {
			const row = matching.get(keys[position])?.shift() as T;
			return this.markReturned(table, lost ? { ...row, recovered: true } : row);
		});
	}

	/** The rows created since the request (`sentAt`), not returned yet; or each item's error. */
	private async createdSince<T extends IDataObject>(
		table: Table,
		inserts: InsertRequest[],
		sentAt: number,
		lost: NodeApiError | undefined,
	): Promise<T[] | { errors: NodeApiError[] }> {
		const { itemIndex } = inserts[0].options;
		// A request that timed out may still be under way at the service: the lookup gives it as
		// long again, once (any other lost answer came after the service was done with it).
		const waitedMs = timedOutAfter(lost);
		if (waitedMs !== undefined) await sleep(waitedMs);
		// The request's moment by the service's clock: its clock now less the time passed here since.
		const since = this.client.serviceNow() - (Date.now() - sentAt) - INSERT_SLACK_MS;
		const filters: Filter[] = [{ column: 'created_at', operator: 'gte', value: isoInstant(since) }];
		try {
			const query = { filters, order: OLDEST_FIRST };
			const rows = await this.client.selectAll<T>(table, query, { itemIndex });
			return rows.filter((row) => !this.claimed.has(`${table}:${String(row.id)}`));
		} catch (error) {
			// The lookup failed too: the first error tells what happened, each item's its own.
			const { node } = this.client;
			const failure = lost ?? new NodeApiError(node, error as JsonObject, { itemIndex });
			const errors = inserts.map(
				({ options }) => errorForItem(node, failure, options.itemIndex) as NodeApiError,
			);
			return { errors };
		}
	}

	/**
	 * The item's error when its rows cannot be told (none, more or fewer than sent with its values,
	 * or the request's rows not all found as one write): what was seen, where to look.
	 */
	private notFound(
		{ found, count }: { found: IDataObject[]; count: number },
		insert: InsertRequest,
		lost?: NodeApiError,
	) {
		const { itemIndex, noun, findHint } = insert.options;
		const waitedMs = timedOutAfter(lost);
		const lookup =
			waitedMs === undefined
				? 'the lookup'
				: `the lookup ${waitedMs} ms after the node stopped waiting`;
		const summary =
			found.length === 0
				? `Not found yet: no ${noun} with these values was created between the request and ${lookup}.`
				: seenSummary(found, count, noun);
		const message = lost?.message ?? `The service accepted the ${noun} but did not return it`;
		const maybe = !lost
			? ''
			: waitedMs === undefined
				? `The service did not answer, and it may have created the ${noun}. `
				: `The service did not answer in time: it may have created the ${noun}, or create it later. `;
		const description = `${maybe}${summary} Look for it with ${findHint} before running this item again.`;
		const options = { message, description, httpCode: lost?.httpCode ?? undefined, itemIndex };
		return new NodeApiError(this.client.node, { message }, options);
	}
}

/** What a lookup saw of an item's values when it found rows but cannot say which are its. */
function seenSummary(found: IDataObject[], count: number, noun: string): string {
	const one = found.length === 1;
	const ids = found.map((row) => String(row.id)).join(', ');
	const seen = `${found.length} ${noun}${one ? '' : 's'} with these values ${one ? 'was' : 'were'} created since the request was sent (ID${one ? '' : 's'} ${ids})`;
	if (found.length > count) return `${seen}: the node cannot tell which one is this item's.`;
	// Its values' rows alone would fit, but the request's others are missing, too many or were
	// written apart, and the service writes a request's rows all at once or none.
	const why =
		found.length < count
			? `fewer than the request sent with these values`
			: `but its request's rows could not all be matched to one write (the service writes them all at once or none)`;
	return `${seen}, ${why}: the node cannot tell whether ${one ? 'it is' : 'they are'} this item's or another client's.`;
}
