// Why: a write whose answer was lost (a gateway error after the commit, a reset connection) may have been carried out: this tells when that can be, finds the rows an insert may have created and the rows a delete removed.
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../constants';
import { errorForItem } from '../itemError';
import type { ServiceFailure } from '../serviceError';
import { isoInstant } from '../timestamps';
import type { Filter, ListQuery, OrderBy } from './query';

const OLDEST_FIRST: OrderBy[] = [{ column: 'id' }];

/** What a lookup needs of the client: every row of a query, and the service's clock. */
export interface RowReader {
	selectAll<T = IDataObject>(
		table: Table,
		query: Omit<ListQuery, 'limit' | 'after'> & { order: OrderBy[] },
		options?: { itemIndex?: number },
	): Promise<T[]>;
	serviceNow(): number;
}

/** Network failures before the request left: no answer was lost, the request was never carried out. */
const FAILED_BEFORE_SENDING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** How far back from the request a row it created may be stamped (Date headers count whole seconds). */
const INSERT_SLACK_MS = 2_000;

/** Whether the request may have been carried out although its answer was lost (no answer, or a 5xx). */
export function answerLost(failure: ServiceFailure): boolean {
	if (failure.login) return false;
	const { status, code } = failure;
	return status === undefined ? !FAILED_BEFORE_SENDING.has(code ?? '') : status >= 500;
}

/**
 * The ids a DELETE removed when its answer does not list them (a 204 without rows, or a retry
 * after a lost attempt that may have deleted them): those of `ids`, all there before, now gone.
 * The lookup is the chunk's own id list, so its request line is no longer than the chunk's.
 */
export async function idsDeleted(
	reader: RowReader,
	table: Table,
	ids: number[],
	itemIndex?: number,
): Promise<number[]> {
	const filters: Filter[] = [{ column: 'id', operator: 'in', value: ids }];
	const left = await reader.selectAll(table, { filters, order: OLDEST_FIRST }, { itemIndex });
	const still = new Set(left.map((row) => row.id));
	return ids.filter((id) => !still.has(id));
}

export interface InsertOptions {
	itemIndex?: number;
	/** What the row is called in messages: `job`. */
	noun: string;
	/** Where the user can look for the row: `Job → Get Many with URL … and Email …`. */
	findHint: string;
}

/** One row to insert, for one item. */
export type InsertRequest = { body: IDataObject; options: InsertOptions };

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
			const key = valuesKey(
				columns.map((column) => [column, row[column] ?? (column in row ? null : {})]),
			);
			const same = byKey.get(key);
			if (same) same.push(row);
			else byKey.set(key, [row]);
		}
	return byKey;
}

/**
 * An insert is never sent twice (it could create a duplicate): when its answer is lost or has no
 * rows, the rows are looked up: those with the values sent, created since the request was sent,
 * and not already returned by this execution; identical bodies take them in the order sent.
 */
export class InsertRecovery {
	/** Rows this execution's inserts returned: a lookup after a lost answer never hands one out twice. */
	private readonly claimed = new Set<string>();

	constructor(
		private readonly node: INode,
		private readonly client: RowReader,
	) {}

	/** Per set of values, the insert of this execution that has them and is not settled yet. */
	private readonly unsettled = new Map<string, Promise<void>>();

	/**
	 * Runs `insert` once no other insert of this execution with the same values is unsettled:
	 * identical rows created at once could not be told apart when their answers carry no rows.
	 */
	async alone<R>(inserts: InsertRequest[], insert: () => Promise<R>): Promise<R> {
		const keys = [...new Set(inserts.map(({ body }) => valuesKey(valuesOf(body))))];
		for (;;) {
			const earlier = keys.flatMap((key) => this.unsettled.get(key) ?? []);
			if (earlier.length === 0) break;
			await Promise.all(earlier);
		}
		const result = insert();
		const settled = result.then(
			() => undefined,
			() => undefined,
		);
		for (const key of keys) this.unsettled.set(key, settled);
		void settled.then(() => {
			for (const key of keys) if (this.unsettled.get(key) === settled) this.unsettled.delete(key);
		});
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
		let created: T[];
		try {
			created = await this.createdSince<T>(table, sentAt, itemIndex);
		} catch (error) {
			// The lookup failed too: the first error is the one that tells what happened, each
			// item's its own.
			const failure = lost ?? new NodeApiError(this.node, error as JsonObject, { itemIndex });
			return inserts.map(
				({ options }) => errorForItem(this.node, failure, options.itemIndex) as NodeApiError,
			);
		}
		const wanted = inserts.map(({ body }) => valuesOf(body));
		const matching = rowsByValues(created, wanted);
		const sent = new Map<string, number>();
		for (const values of wanted)
			sent.set(valuesKey(values), (sent.get(valuesKey(values)) ?? 0) + 1);
		const taken = new Map<string, number>();
		return inserts.map(({ options }, place) => {
			const key = valuesKey(wanted[place]);
			const found = matching.get(key) ?? [];
			if (found.length !== sent.get(key)) return this.notFound(found, lost, options);
			const row = found[taken.get(key) ?? 0];
			taken.set(key, (taken.get(key) ?? 0) + 1);
			return this.claim(table, lost ? { ...row, recovered: true } : row);
		});
	}

	/** The item's error when no row, or several, have its values. */
	private notFound(found: IDataObject[], lost: NodeApiError | undefined, options: InsertOptions) {
		const { itemIndex, noun, findHint } = options;
		const ids = found.map((row) => String(row.id)).join(', ');
		const where = `Look for it with ${findHint} before running this item again.`;
		const summary =
			found.length === 0
				? `No ${noun} with these values was created since the request was sent, so it was most likely not created.`
				: `${found.length} ${noun}s with these values were created since the request was sent (IDs ${ids}): the node cannot tell which one is this item's.`;
		const message = lost?.message ?? `The service accepted the ${noun} but did not return it`;
		const description = lost
			? `The service did not answer, and it may have created the ${noun}. ${summary} ${where}`
			: `${summary} ${where}`;
		const httpCode = lost?.httpCode ?? undefined;
		return new NodeApiError(this.node, { message }, { message, description, httpCode, itemIndex });
	}

	/** Rows created since `sentAt` (this machine's clock) and not claimed yet, oldest first. */
	private async createdSince<T extends IDataObject>(
		table: Table,
		sentAt: number,
		itemIndex?: number,
	) {
		// The request's moment by the service's clock: its clock now less the time passed here since.
		const since = this.client.serviceNow() - (Date.now() - sentAt) - INSERT_SLACK_MS;
		const filters: Filter[] = [{ column: 'created_at', operator: 'gte', value: isoInstant(since) }];
		const rows = await this.client.selectAll<T>(
			table,
			{ filters, order: OLDEST_FIRST },
			{ itemIndex },
		);
		return rows.filter((row) => !this.claimed.has(`${table}:${String(row.id)}`));
	}
}
