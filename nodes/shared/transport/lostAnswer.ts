// Why: an insert is never sent twice (it could create a duplicate): when its answer was lost (a gateway error after the commit, a reset connection) or carried no rows, this finds the rows it created.
import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import type { Table } from '../constants';
import { errorForItem } from '../itemError';
import { isoInstant } from '../timestamps';
import type { WebsiteExportClient } from './index';
import { OLDEST_FIRST, type Filter } from './query';
import { timedOutAfter } from './send';

/** How far back from the request a row it created may be stamped (Date headers count whole seconds). */
const INSERT_SLACK_MS = 2_000;

/** One row to insert, for one item; messages call it `noun` (`job`) and send the user to `findHint` (`Job → Get Many with URL … and Email …`). */
export type InsertRequest = {
	body: IDataObject;
	options: { itemIndex?: number; noun: string; findHint: string };
};

/** The values of a body that a row it created must have: its strings, numbers, booleans and nulls. */
const valuesOf = (body: IDataObject) =>
	Object.entries(body).filter(
		([, value]) => value === null || ['string', 'number', 'boolean'].includes(typeof value),
	);

/** Values as a map key: the same columns with equal values give the same key. */
const valuesKey = (values: Array<[string, unknown]>) => JSON.stringify(values);

/** The rows having each wanted set of values, by its key: one pass over the rows per shape of body. */
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

/** An insert's rows are those with its values, created since it was sent and not yet returned by this execution; identical bodies take them in the order sent. */
export class InsertRecovery {
	/** Rows this execution's inserts returned: a lookup after a lost answer never hands one out twice. */
	private readonly claimed = new Set<string>();

	constructor(private readonly client: WebsiteExportClient) {}

	/** Per set of values, the last insert of this execution that has them: the next one waits for it. */
	private readonly latest = new Map<string, Promise<unknown>>();

	/** Runs `insert` once this execution's earlier inserts with some of its values are settled: identical rows created at once could not be told apart. */
	async alone<R>(inserts: InsertRequest[], insert: () => Promise<R>): Promise<R> {
		const keys = [...new Set(inserts.map(({ body }) => valuesKey(valuesOf(body))))];
		const result = Promise.all(keys.map((key) => this.latest.get(key))).then(() => insert());
		const settled = result.catch(() => undefined);
		for (const key of keys) this.latest.set(key, settled);
		return await result;
	}

	claim<T extends IDataObject>(table: Table, row: T): T {
		this.claimed.add(`${table}:${String(row.id)}`);
		return row;
	}

	/** For each insert sent at `sentAt`, its row (`recovered: true` after a lost answer, `lost`) or its item's error. */
	async recover<T extends IDataObject>(
		table: Table,
		inserts: InsertRequest[],
		sentAt: number,
		lost: NodeApiError | undefined,
	): Promise<Array<T | NodeApiError>> {
		const { itemIndex } = inserts[0].options;
		// A request that timed out may still be under way at the service: the lookup gives it as
		// long again, once (any other lost answer came after the service was done with it).
		const waitedMs = timedOutAfter(lost);
		if (waitedMs !== undefined) await sleep(waitedMs);
		// The request's moment by the service's clock: its clock now less the time passed here since.
		const since = this.client.serviceNow() - (Date.now() - sentAt) - INSERT_SLACK_MS;
		const filters: Filter[] = [{ column: 'created_at', operator: 'gte', value: isoInstant(since) }];
		let created: T[];
		try {
			const query = { filters, order: OLDEST_FIRST };
			const rows = await this.client.selectAll<T>(table, query, { itemIndex });
			created = rows.filter((row) => !this.claimed.has(`${table}:${String(row.id)}`));
		} catch (error) {
			// The lookup failed too: the first error tells what happened, each item's its own.
			const { node } = this.client;
			const failure = lost ?? new NodeApiError(node, error as JsonObject, { itemIndex });
			return inserts.map(
				({ options }) => errorForItem(node, failure, options.itemIndex) as NodeApiError,
			);
		}
		const wanted = inserts.map(({ body }) => valuesOf(body));
		const keys = wanted.map(valuesKey);
		const matching = rowsByValues(created, wanted);
		const sent = new Map<string, number>();
		for (const key of keys) sent.set(key, (sent.get(key) ?? 0) + 1);
		// As many rows as inserts with these values, or none is handed out: rows are taken in order.
		const unsure = new Set(keys.filter((key) => matching.get(key)?.length !== sent.get(key)));
		return inserts.map((insert, place) => {
			const found = matching.get(keys[place]) ?? [];
			if (unsure.has(keys[place])) return this.notFound(found, insert, lost);
			const row = found.shift() as T;
			return this.claim(table, lost ? { ...row, recovered: true } : row);
		});
	}

	/** The item's error when no row, or several, have its values: what was seen, where to look. */
	private notFound(found: IDataObject[], insert: InsertRequest, lost?: NodeApiError) {
		const { itemIndex, noun, findHint } = insert.options;
		const ids = found.map((row) => String(row.id)).join(', ');
		const waitedMs = timedOutAfter(lost);
		const lookup =
			waitedMs === undefined
				? 'the lookup'
				: `the lookup ${waitedMs} ms after the node stopped waiting`;
		const summary =
			found.length === 0
				? `Not found yet: no ${noun} with these values was created between the request and ${lookup}.`
				: `${found.length} ${noun}s with these values were created since the request was sent (IDs ${ids}): the node cannot tell which one is this item's.`;
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
