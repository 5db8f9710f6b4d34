// Why: the service's collections as PostgREST serves them: select with keyset paging, insert, update and delete, each one request where it can be.
import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Table } from '../constants';
import { deletedAfterLostAnswer, InsertRecovery, type InsertOptions } from './lostAnswer';
import {
	buildFilterString,
	buildQueryString,
	parseContentRangeTotal,
	type Filter,
	type ListQuery,
	type OrderBy,
} from './query';
import type { CallOptions, ServiceRequests, TransportContext } from './request';

export interface Page<T> {
	rows: T[];
	/** Rows matching the filters in all, when the server counted them. */
	total?: number;
}

/** PostgREST answers with an array, or with nothing (201/204 without a representation). */
function asRows<T>(body: unknown): T[] {
	if (Array.isArray(body)) return body as T[];
	if (body !== null && typeof body === 'object' && Object.keys(body).length > 0) return [body as T];
	return [];
}

export class PostgrestTables {
	/** Whether the service returns written rows when asked (`Prefer: return=representation`); undefined until seen. */
	private returnsRows: boolean | undefined;

	private readonly inserts: InsertRecovery;

	constructor(
		protected readonly ctx: TransportContext,
		protected readonly requests: ServiceRequests,
		readonly baseUrl: string,
		/** Rows asked for per page; Supabase's default `max-rows` is 1000. */
		readonly pageSize = 1000,
	) {
		const selectRows = async <T>(resource: Table, query: ListQuery, itemIndex?: number) =>
			(await this.select<T>(resource, query, { itemIndex })).rows;
		this.inserts = new InsertRecovery(ctx.getNode(), selectRows, () => requests.clock.now());
	}

	/** One page of a collection. */
	async select<T = IDataObject>(
		resource: Table,
		query: ListQuery,
		options: CallOptions & { count?: boolean } = {},
	): Promise<Page<T>> {
		const response = await this.requests.send(
			'GET',
			this.restUrl(resource, buildQueryString(query)),
			{
				...options,
				prefer: options.count ? 'count=exact' : undefined,
			},
		);
		return {
			rows: asRows<T>(response.body),
			total: parseContentRangeTotal(response.headers['content-range']),
		};
	}

	/**
	 * Every row matching `query` (or the first `max`), in the query's order, which must end with
	 * `id`. Pages follow each other by keyset (the rows after the last one received), so rows
	 * inserted or deleted meanwhile never make a page repeat or skip a row. The server may cap a
	 * page below what we ask for (Supabase's `max-rows`), silently: the first page's count tells,
	 * and the pages that follow ask for that many. ⌈N / page size⌉ requests for N rows.
	 */
	async selectAll<T = IDataObject>(
		resource: Table,
		query: Omit<ListQuery, 'limit' | 'after'> & { order: OrderBy[] },
		options: CallOptions & { max?: number } = {},
	): Promise<T[]> {
		const max = options.max ?? Infinity;
		const rows: T[] = [];
		let stride = this.pageSize;
		let total: number | undefined;
		let after: Record<string, unknown> | undefined;
		for (;;) {
			const limit = Math.min(stride, max - rows.length);
			const page = await this.select<T>(
				resource,
				{ ...query, limit, after },
				{ ...options, count: after === undefined },
			);
			rows.push(...page.rows);
			if (after === undefined) {
				total = page.total;
				// A first page shorter than asked while more rows exist: the server's own cap.
				if (page.rows.length < limit && total !== undefined && page.rows.length < total)
					stride = page.rows.length;
			}
			const ended = page.rows.length === 0 || page.rows.length < Math.min(stride, limit);
			// Rows inserted after the count come after every row counted (or before the first, when
			// newest first): having as many as were counted means every counted row is here.
			if (ended || rows.length >= max || (total !== undefined && rows.length >= total)) break;
			after = page.rows[page.rows.length - 1] as Record<string, unknown>;
		}
		return rows.slice(0, max);
	}

	/**
	 * Inserts one row and returns it as stored. When its answer is lost or carries no row, the row
	 * is looked up instead (lostAnswer.ts): a row found after a lost answer is marked `recovered: true`.
	 */
	async insert<T extends IDataObject = IDataObject>(
		resource: Table,
		body: IDataObject,
		options: InsertOptions,
	): Promise<T> {
		const sentAt = Date.now();
		let rows: T[] | undefined;
		let lost: NodeApiError | undefined;
		try {
			const response = await this.requests.send('POST', this.restUrl(resource, ''), {
				...options,
				body,
				prefer: 'return=representation',
			});
			rows = this.representation<T>(response.body);
		} catch (error) {
			// send() throws NodeApiErrors only; those of a request that lost its answer are looked into.
			if (!this.requests.lostAnswers.has(error))
				throw new NodeApiError(this.ctx.getNode(), error as JsonObject);
			lost = error;
		}
		if (rows?.length === 1) return this.inserts.claim(resource, rows[0]);
		return await this.inserts.recover<T>(resource, body, sentAt, lost, options);
	}

	/**
	 * Updates the rows matching `filters`; returns them as they are now ([] when none matched).
	 * A PATCH is idempotent: after a lost answer it is sent again and the second answer counts.
	 * Without a representation in the answer, the rows are read again.
	 */
	async update<T = IDataObject>(
		resource: Table,
		filters: Filter[],
		patch: IDataObject,
		options: CallOptions = {},
	): Promise<T[]> {
		const response = await this.requests.send(
			'PATCH',
			this.restUrl(resource, this.requireFilters(filters)),
			{
				...options,
				body: patch,
				prefer: 'return=representation',
			},
		);
		return (
			this.representation<T>(response.body) ??
			(await this.select<T>(resource, { filters, limit: 2 }, options)).rows
		);
	}

	/**
	 * Deletes the rows matching `filters` (by id) and returns them ([] when none matched). A
	 * retried DELETE whose first answer was lost finds nothing left: that is success, and the
	 * row comes back as far as known. Until the service has shown that it returns deleted rows,
	 * the rows are read first, so that "not found" stays a fact even if it answers 204 alone.
	 */
	async remove<T = IDataObject>(
		resource: Table,
		filters: Filter[],
		options: CallOptions = {},
	): Promise<T[]> {
		const url = this.restUrl(resource, this.requireFilters(filters));
		const before = this.returnsRows
			? undefined
			: (await this.select<T>(resource, { filters, limit: 2 }, options)).rows;
		if (before?.length === 0) return [];
		const response = await this.requests.send('DELETE', url, {
			...options,
			prefer: 'return=representation',
		});
		const rows = this.representation<T>(response.body);
		if (rows?.length) return rows;
		if (before) return before;
		if (rows && !response.answerLost) return [];
		return await deletedAfterLostAnswer<T>(
			filters,
			async () => (await this.select<T>(resource, { filters, limit: 1 }, options)).rows.length > 0,
		);
	}

	/** The rows a write answered with, or undefined when the answer carried none (204, or a 201 without body). */
	private representation<T>(body: unknown): T[] | undefined {
		const rows = Array.isArray(body) ? (body as T[]) : undefined;
		this.returnsRows = rows !== undefined;
		return rows;
	}

	private restUrl(resource: Table, queryString: string): string {
		return `${this.baseUrl}/rest/v1/${resource}${queryString ? `?${queryString}` : ''}`;
	}

	private requireFilters(filters: Filter[]): string {
		// PostgREST applies an unfiltered PATCH or DELETE to every row the account can see.
		if (filters.length === 0)
			throw new NodeOperationError(
				this.ctx.getNode(),
				'Refusing to update or delete without a filter',
			);
		return buildFilterString(filters);
	}
}
