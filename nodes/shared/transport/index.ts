// Why: the client operations use, one per execution: the service's tables as PostgREST serves them.
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { checkBaseUrl } from '../auth/baseUrl';
import { tokenExpiry } from '../auth/renewal';
import { CREDENTIAL_NAME, type Table } from '../constants';
import { InsertRecovery, type InsertRequest } from './lostAnswer';
import * as postgrest from './query';
import { OLDEST_FIRST, type Filter, type FilterValue, type ListQuery, type OrderBy } from './query';
import {
	ServiceRequests,
	type CallOptions,
	type ClientOptions,
	type TransportContext,
} from './send';

export { NEWEST_FIRST, type Filter, type FilterValue, type ListQuery, type OrderBy } from './query';
export type { InsertRequest } from './lostAnswer';
export type { CallOptions, ClientOptions, ServiceResponse } from './send';

/** Rows asked for per page: Supabase's default `max-rows`. */
const PAGE_SIZE = 1000;
/** The longest request line a gateway in front of the service takes (nginx's default, 8 KiB). */
export const MAX_REQUEST_LINE_BYTES = 8 * 1024;
const RETURN_ROWS = 'return=representation';
/** Every answer read as rows is checked to be a JSON list of records (answerShape.ts). */
const ROWS = 'rows' as const;

/**
 * The longest value each order column can bring into a keyset page's line: an id up to 2^53, a
 * created_at in its longest form (a space and a full offset, as text the service may write).
 */
const LONGEST_KEYS: Record<string, unknown> = {
	id: Number.MAX_SAFE_INTEGER,
	created_at: '9999-12-31 23:59:59.999999+00:00',
	any: 'x'.repeat(64),
};

/** `max`: the most rows wanted; `fields`: the editor's names of filtered columns, for errors. */
export type SelectAllOptions = CallOptions & { max?: number; fields?: Record<string, string> };

/** How many ids an `id=eq.…` or `id=in.(…)` filter names at most; Infinity without one. */
const idsNamed = (filters: Filter[] = []) =>
	Math.min(
		...filters
			.filter(({ column, operator }) => column === 'id' && (operator === 'in' || operator === 'eq'))
			.map(({ value }) => new Set([value].flat().map(String)).size),
	);

/**
 * What page 1 tells of the most rows a page gives: all asked for, at least as many; fewer while
 * the count says more match, the server's own cap; fewer without a count, nothing yet.
 */
function learnedCap(got: number, asked: number, total: number | undefined): number | undefined {
	if (got >= asked) return asked;
	if (total === undefined) return undefined;
	return total > got ? got : asked;
}

/** The rows of a checked answer; undefined when it carried none (a 201 or 204 without a body). */
const rowsOf = <T>(body: unknown): T[] | undefined => (Array.isArray(body) ? body : undefined);

/**
 * The service's tables: select with keyset paging, insert, update and delete, over the request
 * sender (send.ts).
 */
export class WebsiteExportClient {
	private readonly inserts = new InsertRecovery(this);

	private constructor(
		private readonly ctx: TransportContext,
		readonly requests: ServiceRequests,
		readonly baseUrl: string,
	) {}

	/** Reads the credential's base URL once per execution and checks it before any request. */
	static async connect(ctx: TransportContext, options: ClientOptions = {}) {
		const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
		const baseUrl = checkBaseUrl(credentials?.baseUrl);
		if (!baseUrl.ok)
			throw new NodeOperationError(ctx.getNode(), baseUrl.reason, {
				description: 'Open the Website Export credential and correct its Base URL.',
			});
		const requests = new ServiceRequests(ctx, tokenExpiry(credentials.accessToken), options);
		return new WebsiteExportClient(ctx, requests, baseUrl.url);
	}

	/** The node the client works for, for the errors it and its callers raise. */
	get node(): INode {
		return this.ctx.getNode();
	}

	/** The service's current time (its clock expires links and tokens). */
	serviceNow(): number {
		return this.requests.serviceNow();
	}

	/** The bytes of the request line that selects `query` (a gateway refuses one over 8 KiB). */
	requestLineBytes(table: Table, query: ListQuery): number {
		const { pathname, search } = new URL(this.restUrl(table, postgrest.buildQueryString(query)));
		return Buffer.byteLength(`GET ${pathname}${search} HTTP/1.1`);
	}

	/**
	 * The longest request line sent with `filter`, a selectAll page by id (pageLineBytes): a PATCH
	 * or DELETE by it is shorter (a method ≤ 3 bytes longer; no select, keyset, order or limit).
	 */
	listLineBytes(table: Table, filter: Filter): number {
		return this.pageLineBytes(table, { filters: [filter], order: OLDEST_FIRST });
	}

	/**
	 * `items` in consecutive groups of at most `size` whose `column=in.(…)` line (listLineBytes) fits
	 * a gateway's 8 KiB; a value too long goes alone.
	 */
	inGroups<T>(
		table: Table,
		column: string,
		items: T[],
		size: number,
		valueOf: (item: T) => FilterValue = (item) => item as FilterValue,
	): T[][] {
		const fits = (group: T[]) =>
			this.listLineBytes(table, { column, operator: 'in', value: group.map(valueOf) }) <=
			MAX_REQUEST_LINE_BYTES;
		const groups: T[][] = [];
		for (let start = 0; start < items.length; ) {
			// The longest group that fits, by bisection: lines grow with every value added.
			let [fitting, over] = [1, Math.min(size, items.length - start) + 1];
			while (over - fitting > 1) {
				const middle = Math.floor((fitting + over) / 2);
				if (fits(items.slice(start, start + middle))) fitting = middle;
				else over = middle;
			}
			groups.push(items.slice(start, start + fitting));
			start += fitting;
		}
		return groups;
	}

	/** One page of a table, with the count of matching rows when asked for. */
	async select<T = IDataObject>(
		table: Table,
		query: ListQuery,
		options: CallOptions & { count?: boolean } = {},
	): Promise<{ rows: T[]; total?: number }> {
		const prefer = options.count ? 'count=exact' : undefined;
		const url = this.restUrl(table, postgrest.buildQueryString(query));
		const response = await this.requests.request('GET', url, { ...options, prefer, expect: ROWS });
		const total = postgrest.parseContentRangeTotal(response.headers['content-range']);
		const rows = rowsOf<T>(response.body) ?? [];
		// Rows that exist now: a create sent later cannot have made them (lostAnswer.ts).
		this.inserts.see(table, rows as IDataObject[]);
		return { rows, total };
	}

	/**
	 * Every row matching `query` (or the first `max`), in its order ending with `id`: pages follow
	 * by keyset, so a row that matches from the first page to the last is returned once; one
	 * written meanwhile may be or not. It stops on evidence of the end only, never on page 1's
	 * count: rows updated into the filter meanwhile come on top of that count.
	 */
	async selectAll<T = IDataObject>(
		table: Table,
		query: Omit<ListQuery, 'limit' | 'after'> & { order: OrderBy[] },
		options: SelectAllOptions = {},
	): Promise<T[]> {
		// Evidence of the end too: as many rows as the ids a filter names (ids are unique).
		const max = Math.min(options.max ?? Infinity, idsNamed(query.filters));
		this.checkPageLines(table, query, options);
		const rows: T[] = [];
		/** The most rows a page gives, once known: the server's own cap, or what was asked. */
		let cap: number | undefined;
		let after: Record<string, unknown> | undefined;
		for (;;) {
			const limit = Math.min(cap ?? PAGE_SIZE, max - rows.length);
			const count = after === undefined;
			const page = await this.select<T>(table, { ...query, limit, after }, { ...options, count });
			rows.push(...page.rows);
			cap ??= learnedCap(page.rows.length, limit, count ? page.total : undefined);
			// The end: an empty page, or one shorter than a page gives (without a count a short
			// first page may be a silent cap, so the rows after it are asked for until none come).
			const short = cap !== undefined && page.rows.length < Math.min(cap, limit);
			if (page.rows.length === 0 || short || rows.length >= max) break;
			after = page.rows[page.rows.length - 1] as Record<string, unknown>;
		}
		return rows.slice(0, max);
	}

	/** The longest request line any page of `query` can have: a keyset page after the longest keys. */
	pageLineBytes(table: Table, query: Omit<ListQuery, 'limit' | 'after'>): number {
		const order = query.order ?? [];
		const longest = order.map(({ column }) => [column, LONGEST_KEYS[column] ?? LONGEST_KEYS.any]);
		const after = order.length ? Object.fromEntries(longest) : undefined;
		return this.requestLineBytes(table, { ...query, limit: PAGE_SIZE, after });
	}

	/** Refuses, before any request, a query one of whose pages a gateway would refuse (414). */
	private checkPageLines(table: Table, query: ListQuery, options: SelectAllOptions): void {
		const refusal = this.pageLinesRefusal(table, query, options);
		if (refusal) throw refusal;
	}

	/** The error of a query one of whose pages a gateway would refuse, for `options.itemIndex`. */
	pageLinesRefusal(
		table: Table,
		query: Omit<ListQuery, 'limit' | 'after'>,
		options: Pick<SelectAllOptions, 'itemIndex' | 'fields'>,
	): NodeOperationError | undefined {
		const bytes = this.pageLineBytes(table, query);
		if (bytes <= MAX_REQUEST_LINE_BYTES) return undefined;
		// The filter that takes the most room is the one to shorten.
		const filters = [...(query.filters ?? []), ...(query.anyOf ?? [])];
		const room = (filter: Filter) => postgrest.buildFilterString([filter]);
		const widest = filters.sort((a, b) => room(b).length - room(a).length)[0];
		const field = widest ? (options.fields?.[widest.column] ?? widest.column) : 'The filter';
		const { itemIndex } = options;
		return new NodeOperationError(this.ctx.getNode(), `Invalid input: ${field} is too long`, {
			itemIndex,
			description:
				`Its pages would be asked for with request lines of up to ${bytes} bytes (the filters ` +
				`URL-encoded, and where the page starts), and a gateway in front of the service takes ` +
				`at most ${MAX_REQUEST_LINE_BYTES}: shorten ${field}.` +
				(itemIndex === undefined ? '' : ` [item ${itemIndex}]`),
		});
	}

	/**
	 * Inserts rows in one transaction, answered in the order sent: refused, none was written; else
	 * each gets its row, or after a lost or empty answer a lookup's (lostAnswer.ts).
	 */
	async insertMany<T extends IDataObject = IDataObject>(
		table: Table,
		inserts: InsertRequest[],
	): Promise<{ refused: NodeApiError } | { rows: Array<T | NodeApiError> }> {
		const body = inserts.map((insert) => insert.body);
		const { itemIndex } = inserts[0].options;
		const request = { itemIndex, body, prefer: RETURN_ROWS, expect: ROWS };
		return await this.inserts.afterIdenticalInserts(inserts, async () => {
			// The highest id seen before it is sent: the rows it creates are above it.
			const sent = { at: Date.now(), floor: this.inserts.floor(table) };
			const outcome = await this.requests.send('POST', this.restUrl(table), request);
			if (outcome.kind === 'refused') return { refused: outcome.error };
			const rows = outcome.kind === 'answer' ? rowsOf<T>(outcome.response.body) : undefined;
			if (rows?.length === inserts.length)
				return { rows: rows.map((row) => this.inserts.markReturned(table, row)) };
			const lost = outcome.kind === 'lost' ? outcome.error : undefined;
			return { rows: await this.inserts.recover<T>(table, inserts, sent, lost) };
		});
	}

	/**
	 * Updates the rows matching `filters` and returns them (re-read when the answer has none); a
	 * retried PATCH's answer counts.
	 */
	async update<T = IDataObject>(
		table: Table,
		filters: Filter[],
		patch: IDataObject,
		options: CallOptions = {},
	): Promise<T[]> {
		// PostgREST applies an unfiltered PATCH to every row the account can see.
		const unfiltered = 'Refusing to update or delete without a filter';
		if (filters.length === 0) throw new NodeOperationError(this.ctx.getNode(), unfiltered);
		const url = this.restUrl(table, postgrest.buildFilterString(filters));
		const request = { ...options, body: patch, prefer: RETURN_ROWS, expect: ROWS };
		const response = await this.requests.request('PATCH', url, request);
		const rows = rowsOf<T>(response.body);
		return rows ?? (await this.selectAll<T>(table, { filters, order: OLDEST_FIRST }, options));
	}

	/**
	 * Deletes in one request the rows (read before) whose `column` has one of these values; returns
	 * those the answer lists or, if none or after a lost attempt, those no longer found.
	 */
	async removeByIds(
		table: Table,
		ids: number[],
		options: CallOptions = {},
		column = 'id',
	): Promise<number[]> {
		const filters: Filter[] = [{ column, operator: 'in', value: ids }];
		const url = this.restUrl(table, postgrest.buildFilterString(filters));
		const request = { ...options, prefer: RETURN_ROWS, expect: ROWS };
		const outcome = await this.requests.send('DELETE', url, request);
		if (outcome.kind !== 'answer') throw outcome.error;
		const rows = rowsOf<IDataObject>(outcome.response.body);
		if (rows && !outcome.afterLostAnswer) return rows.map((row) => row[column] as number);
		const left = await this.selectAll(table, { filters, order: OLDEST_FIRST }, options);
		const still = new Set(left.map((row) => row[column]));
		return ids.filter((id) => !still.has(id));
	}

	private restUrl(table: Table, queryString?: string): string {
		return `${this.baseUrl}/rest/v1/${table}${queryString ? `?${queryString}` : ''}`;
	}
}
