// Why: a write whose answer was lost (a gateway error after the commit, a reset connection) may have been carried out: this tells when that can be, finds the row an insert may have created and confirms a delete.
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../constants';
import type { ServiceFailure } from '../serviceError';
import { parseTimestamp } from '../timestamps';
import type { WebsiteExportClient } from './index';
import { NEWEST_FIRST, type Filter } from './query';

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

/** A DELETE retried after a lost answer finds nothing left: gone, unless `stillThere`, and known by its filters' values. */
export async function deletedAfterLostAnswer<T>(
	filters: Filter[],
	stillThere: () => Promise<boolean>,
): Promise<T[]> {
	if (await stillThere()) return [];
	return [Object.fromEntries(filters.map((filter) => [filter.column, filter.value])) as T];
}

export interface InsertOptions {
	itemIndex?: number;
	/** What the row is called in messages: `job`. */
	noun: string;
	/** Where the user can look for the row: `Job → Get Many with URL … and Email …`. */
	findHint: string;
}

/**
 * An insert is never sent twice (it could create a duplicate): when its answer is lost or has no
 * row, the row is looked up: the one with these values, created since the request was sent, and
 * not already returned by this execution.
 */
export class InsertRecovery {
	/** Rows this execution's inserts returned: a lookup after a lost answer never hands one out twice. */
	private readonly claimed = new Set<string>();

	constructor(
		private readonly node: INode,
		private readonly client: Pick<WebsiteExportClient, 'select' | 'serviceNow'>,
	) {}

	claim<T extends IDataObject>(table: Table, row: T): T {
		this.claimed.add(`${table}:${String(row.id)}`);
		return row;
	}

	/** The row an insert sent at `sentAt` created, `recovered: true` after a lost answer (`lost`); throws when none or several match. */
	async recover<T extends IDataObject>(
		table: Table,
		body: IDataObject,
		sentAt: number,
		lost: NodeApiError | undefined,
		{ itemIndex, noun, findHint }: InsertOptions,
	): Promise<T> {
		const found = await this.findInserted<T>(table, body, sentAt, itemIndex).catch(
			(error: unknown) => {
				// The lookup failed too: the first error is the one that tells what happened.
				throw lost ?? new NodeApiError(this.node, error as JsonObject, { itemIndex });
			},
		);
		if (found.length === 1)
			return this.claim(table, lost ? { ...found[0], recovered: true } : found[0]);
		const ids = found.map((row) => String(row.id)).join(', ');
		const where = `Look for it with ${findHint} before running this item again.`;
		const summary =
			found.length === 0
				? `No ${noun} with these values was created since the request was sent, so it was most likely not created.`
				: `${found.length} ${noun}s with these values were created since the request was sent (IDs ${ids}): the node cannot tell which one is this item's.`;
		if (lost) {
			lost.description = `The service did not answer, and it may have created the ${noun}. ${summary} ${where}`;
			throw lost;
		}
		const message = `The service accepted the ${noun} but did not return it`;
		const description = `${summary} ${where}`;
		throw new NodeApiError(this.node, { message }, { message, description, itemIndex });
	}

	/** Rows with the values of `body` that were created since `sentAt` (this machine's clock) and are not claimed yet. */
	private async findInserted<T extends IDataObject>(
		table: Table,
		body: IDataObject,
		sentAt: number,
		itemIndex?: number,
	): Promise<T[]> {
		const filters: Filter[] = Object.entries(body)
			.filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
			.map(([column, value]) => ({ column, operator: 'eq', value: value as string }));
		const query = { filters, order: NEWEST_FIRST, limit: 20 };
		const { rows } = await this.client.select<T>(table, query, { itemIndex });
		// The request's moment by the service's clock: its clock now less the time passed here since.
		const since = this.client.serviceNow() - (Date.now() - sentAt) - INSERT_SLACK_MS;
		return rows.filter(
			(row) =>
				!this.claimed.has(`${table}:${String(row.id)}`) && parseTimestamp(row.created_at) >= since,
		);
	}
}
