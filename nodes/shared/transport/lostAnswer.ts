// Why: a write whose answer was lost (a gateway error after the commit, a reset connection) may have been carried out: this tells when that can be, finds the rows an insert may have created and the rows a delete removed.
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../constants';
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
			// The lookup failed too: the first error is the one that tells what happened (the
			// router gives each item its own copy).
			const failure = lost ?? new NodeApiError(this.node, error as JsonObject, { itemIndex });
			return inserts.map(() => failure);
		}
		const twins = new Map<string, T[]>();
		return inserts.map(({ body, options }) => {
			const key = JSON.stringify(valuesOf(body));
			const found = created.filter((row) => valuesOf(body).every(([k, v]) => row[k] === v));
			const count = inserts.filter((other) => JSON.stringify(valuesOf(other.body)) === key).length;
			const taken = twins.get(key) ?? [];
			twins.set(key, taken);
			if (found.length === count) {
				const row = found[taken.length];
				taken.push(row);
				return this.claim(table, lost ? { ...row, recovered: true } : row);
			}
			return this.notFound(found, lost, options);
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
