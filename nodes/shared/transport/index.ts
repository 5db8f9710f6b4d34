import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { checkBaseUrl } from '../baseUrl';
import { CREDENTIAL_NAME, type ResourceName } from '../constants';
import { failureToErrorResponse, readServiceFailure, readStreamedErrorBody, type ServiceFailure } from '../serviceError';
import { parseTimestamp } from '../timestamps';
import { buildFilterString, buildQueryString, NEWEST_FIRST, parseContentRangeTotal, type Filter, type ListQuery, type OrderBy } from './query';
import { DEFAULT_RETRY_POLICY, isIdempotent, retryDelay, type RetryPolicy } from './retry';

export { NEWEST_FIRST } from './query';
export type { Filter, FilterOperator, ListQuery, OrderBy } from './query';
export type { RetryPolicy } from './retry';

export type TransportContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ClientOptions {
	retry?: RetryPolicy;
	/** Per-request timeout for API calls. */
	timeoutMs?: number;
	/** Rows asked for per page; Supabase's default `max-rows` is 1000. */
	pageSize?: number;
}

export interface CallOptions {
	/** Item the request is made for: errors name it, so the editor can point at it. */
	itemIndex?: number;
}

export interface InsertOptions extends CallOptions {
	/** What the row is called in messages: `job`. */
	noun: string;
	/** Where the user can look for the row: `Job → Get Many with URL … and Email …`. */
	findHint: string;
}

export interface Page<T> {
	rows: T[];
	/** Rows matching the filters in all, when the server counted them. */
	total?: number;
}

/** A readable byte stream, as n8n's prepareBinaryData takes it ('stream' may not be imported here). */
export type ByteStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

export interface Archive {
	stream: ByteStream;
	contentType?: string;
	contentLength?: number;
}

interface FullResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
	/** An earlier attempt of this request failed after it may have reached the database. */
	answerLost?: boolean;
}

/** Network failures that happen before a request leaves: it cannot have been carried out. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Errors of requests that may have been carried out although no answer came back. */
const answerMayBeLost = new WeakSet<Error>();

/** How far back from the request a row it created may be stamped (Date headers count whole seconds). */
const INSERT_SLACK_MS = 2_000;

const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * The renewal gate (see admit): from this long before the token's expiry, by the service's clock,
 * requests go one at a time, so that one request meets the 401 and n8n logs in once, instead
 * of once per request in flight (measured in the benchmark: 1 login instead of 8 with 8 in
 * flight). The service's clock is known to the second (Date header) and a request reaches it in
 * milliseconds: 5 s covers both. `enabled` is switched off by the benchmark alone, to measure
 * what the gate buys.
 */
export const tokenGate = { marginMs: 5_000, enabled: true };

/**
 * Expiry (ms) of the stored access token: undefined when there is none, Infinity when it is not
 * a JWT we can read (then n8n's 401 handling alone decides).
 */
export function tokenExpiry(token: unknown): number | undefined {
	if (typeof token !== 'string' || token === '') return undefined;
	try {
		const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
		return typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
	} catch {
		return Infinity;
	}
}
const ARCHIVE_TIMEOUT_MS = 30 * 60_000;
const MAX_ARCHIVE_REDIRECTS = 5;

/**
 * The only code that talks to the Website Export service. Every request goes through
 * n8n's `httpRequestWithAuthentication`, so the credential adds the API key and the token,
 * and n8n logs in again by itself after a 401 (once per request).
 */
export class WebsiteExportClient {
	/** A 429 pauses every request of this execution, not just the one that got it. */
	private pausedUntil = 0;

	/** While set, one request is renewing the token and the others wait for it. */
	private tokenRenewal: Promise<void> | undefined;

	private readonly retry: RetryPolicy;

	private readonly timeoutMs: number;

	readonly pageSize: number;

	/** Whether the service returns written rows when asked (`Prefer: return=representation`); undefined until seen. */
	private returnsRows: boolean | undefined;

	/** Rows this execution's inserts returned: a lookup after a lost answer never hands one out twice. */
	private readonly claimed = new Set<string>();

	/** The service's clock as its last answer gave it (Date header), and ours when it came. */
	private serverClock?: { server: number; local: number };

	private constructor(
		private readonly ctx: TransportContext,
		readonly baseUrl: string,
		private tokenExpiresAt: number | undefined,
		options: ClientOptions,
	) {
		this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
		this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
		this.pageSize = options.pageSize ?? 1000;
	}

	/** Reads the credential's base URL once per execution and checks it before any request. */
	static async connect(ctx: TransportContext, options: ClientOptions = {}): Promise<WebsiteExportClient> {
		const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
		const baseUrl = checkBaseUrl(credentials?.baseUrl);
		if (!baseUrl.ok) {
			throw new NodeOperationError(ctx.getNode(), baseUrl.reason, {
				description: 'Open the Website Export credential and correct its Base URL.',
			});
		}
		return new WebsiteExportClient(ctx, baseUrl.url, tokenExpiry(credentials.accessToken), options);
	}

	/** One page of a collection. */
	async select<T = IDataObject>(
		resource: ResourceName,
		query: ListQuery,
		options: CallOptions & { count?: boolean } = {},
	): Promise<Page<T>> {
		const response = await this.send('GET', this.restUrl(resource, buildQueryString(query)), {
			...options,
			prefer: options.count ? 'count=exact' : undefined,
		});
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
		resource: ResourceName,
		query: Omit<ListQuery, 'limit' | 'offset' | 'after'> & { order: OrderBy[] },
		options: CallOptions & { max?: number } = {},
	): Promise<T[]> {
		const max = options.max ?? Infinity;
		const rows: T[] = [];
		let stride = this.pageSize;
		let total: number | undefined;
		let after: Record<string, unknown> | undefined;
		for (;;) {
			const limit = Math.min(stride, max - rows.length);
			const page = await this.select<T>(resource, { ...query, limit, after }, { ...options, count: after === undefined });
			rows.push(...page.rows);
			if (after === undefined) {
				total = page.total;
				// A first page shorter than asked while more rows exist: the server's own cap.
				if (page.rows.length < limit && total !== undefined && page.rows.length < total) stride = page.rows.length;
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
	 * Inserts one row and returns it as stored. A POST is never sent twice (it could create a
	 * duplicate), so when its answer is lost (a gateway error after the database committed, a
	 * reset connection), or comes without the row (the service ignored `Prefer`), the row is
	 * looked up instead: the one with these values, created since the request was sent, and
	 * not already returned by this execution. A row found after a lost answer is marked
	 * `recovered: true`.
	 */
	async insert<T extends IDataObject = IDataObject>(resource: ResourceName, body: IDataObject, options: InsertOptions): Promise<T> {
		const sentAt = Date.now();
		let rows: T[] | undefined;
		let lost: NodeApiError | undefined;
		try {
			const response = await this.send('POST', this.restUrl(resource, ''), { ...options, body, prefer: 'return=representation' });
			rows = this.representation<T>(response.body);
		} catch (error) {
			// send() throws NodeApiErrors only; those of a request that may have been carried out are looked into.
			if (!answerMayBeLost.has(error as Error)) throw new NodeApiError(this.ctx.getNode(), error as JsonObject);
			lost = error as NodeApiError;
		}
		if (rows?.length === 1) return this.claim(resource, rows[0]);
		const found = await this.findInserted<T>(resource, body, sentAt, options).catch((error: unknown) => {
			// The lookup failed too: the first error is the one that tells what happened.
			if (lost) throw lost;
			throw error instanceof NodeApiError ? error : new NodeApiError(this.ctx.getNode(), error as JsonObject, { itemIndex: options.itemIndex });
		});
		if (found.length === 1) return this.claim(resource, lost ? { ...found[0], recovered: true } : found[0]);
		const ids = found.map((row) => String(row.id)).join(', ');
		const where = `Look for it with ${options.findHint} before running this item again.`;
		const summary = found.length === 0
			? `No ${options.noun} with these values was created since the request was sent, so it was most likely not created.`
			: `${found.length} ${options.noun}s with these values were created since the request was sent (IDs ${ids}): the node cannot tell which one is this item's.`;
		if (lost) {
			lost.description = `The service did not answer, and it may have created the ${options.noun}. ${summary} ${where}`;
			throw lost;
		}
		throw new NodeApiError(this.ctx.getNode(), { message: 'no representation' }, {
			message: `The service accepted the ${options.noun} but did not return it`,
			description: `${summary} ${where}`,
			itemIndex: options.itemIndex,
		});
	}

	/**
	 * Updates the rows matching `filters`; returns them as they are now ([] when none matched).
	 * A PATCH is idempotent: after a lost answer it is sent again and the second answer counts.
	 * Without a representation in the answer, the rows are read again.
	 */
	async update<T = IDataObject>(resource: ResourceName, filters: Filter[], patch: IDataObject, options: CallOptions = {}): Promise<T[]> {
		const response = await this.send('PATCH', this.restUrl(resource, this.requireFilters(filters)), {
			...options,
			body: patch,
			prefer: 'return=representation',
		});
		return this.representation<T>(response.body) ?? (await this.select<T>(resource, { filters, limit: 2 }, options)).rows;
	}

	/**
	 * Deletes the rows matching `filters` (by id) and returns them ([] when none matched). A
	 * retried DELETE whose first answer was lost finds nothing left: that is success, and the
	 * row comes back as far as known. Until the service has shown that it returns deleted rows,
	 * the rows are read first, so that "not found" stays a fact even if it answers 204 alone.
	 */
	async remove<T = IDataObject>(resource: ResourceName, filters: Filter[], options: CallOptions = {}): Promise<T[]> {
		const url = this.restUrl(resource, this.requireFilters(filters));
		const before = this.returnsRows ? undefined : (await this.select<T>(resource, { filters, limit: 2 }, options)).rows;
		if (before?.length === 0) return [];
		const response = await this.send('DELETE', url, {
			...options,
			prefer: 'return=representation',
		});
		const rows = this.representation<T>(response.body);
		if (rows?.length) return rows;
		if (before) return before;
		if (rows && !response.answerLost) return [];
		// Gone, as asked: its other fields are not known any more.
		return (await this.select<T>(resource, { filters, limit: 1 }, options)).rows.length
			? []
			: [Object.fromEntries(filters.map((filter) => [filter.column, filter.value])) as T];
	}

	/**
	 * Opens an archive link as a stream: the caller hands it to n8n's binary data store, so an
	 * archive of any size never sits in memory. The link may live on another host; the
	 * credential then adds no key or token to the request. Redirects are followed here, one
	 * hop at a time, so that the credential decides anew for each host: n8n's own redirect
	 * handling would carry the key and the token along to wherever the link points.
	 */
	async openArchive(url: string, options: CallOptions = {}): Promise<Archive> {
		let target = url;
		let response = await this.send('GET', target, { ...options, stream: true });
		for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400; hops++) {
			const next = URL.canParse(String(response.headers.location), target) ? new URL(String(response.headers.location), target) : undefined;
			if (hops === MAX_ARCHIVE_REDIRECTS || !next || (next.protocol !== 'https:' && next.protocol !== 'http:')) {
				throw new NodeApiError(this.ctx.getNode(), { message: 'redirect refused' }, {
					message: 'The archive link redirects too often, or to something that is not an http(s) address',
					httpCode: String(response.statusCode),
					itemIndex: options.itemIndex,
				});
			}
			target = next.toString();
			response = await this.send('GET', target, { ...options, stream: true });
		}
		const length = Number(response.headers['content-length']);
		return {
			stream: response.body as ByteStream,
			contentType: typeof response.headers['content-type'] === 'string' ? response.headers['content-type'] : undefined,
			contentLength: Number.isFinite(length) ? length : undefined,
		};
	}

	/**
	 * The service's current time, from the Date header of its last answer plus the time that
	 * has passed here since (storage expires links and tokens by that clock); this machine's
	 * clock before any answer or when the answer had no Date. The header counts whole seconds,
	 * so the service's clock may be up to 1 s later than this.
	 */
	serverNow(): number {
		return this.serverClock ? this.serverClock.server + (Date.now() - this.serverClock.local) : Date.now();
	}

	private noteServerClock(headers: Record<string, unknown>): void {
		const value = Array.isArray(headers.date) ? headers.date[0] : headers.date;
		const server = typeof value === 'string' ? Date.parse(value) : NaN;
		if (!Number.isNaN(server)) this.serverClock = { server, local: Date.now() };
	}

	/** The rows a write answered with, or undefined when the answer carried none (204, or a 201 without body). */
	private representation<T>(body: unknown): T[] | undefined {
		const rows = Array.isArray(body) ? (body as T[]) : undefined;
		this.returnsRows = rows !== undefined;
		return rows;
	}

	private claim<T extends IDataObject>(resource: ResourceName, row: T): T {
		this.claimed.add(`${resource}:${String(row.id)}`);
		return row;
	}

	/** Rows with the values of `body` that were created since `sentAt` (this machine's clock) and are not claimed yet. */
	private async findInserted<T extends IDataObject>(resource: ResourceName, body: IDataObject, sentAt: number, options: CallOptions): Promise<T[]> {
		const filters: Filter[] = Object.entries(body)
			.filter(([, value]) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
			.map(([column, value]) => ({ column, operator: 'eq', value: value as string | number | boolean }));
		const page = await this.select<T>(resource, { filters, order: NEWEST_FIRST, limit: 20 }, options);
		// The request's moment by the service's clock: its clock now (this answer's Date header)
		// minus the time that has passed here since the request left.
		const since = this.serverNow() - (Date.now() - sentAt) - INSERT_SLACK_MS;
		return page.rows.filter((row) => !this.claimed.has(`${resource}:${String(row.id)}`) && parseTimestamp(row.created_at) >= since);
	}

	private restUrl(resource: ResourceName, queryString: string): string {
		return `${this.baseUrl}/rest/v1/${resource}${queryString ? `?${queryString}` : ''}`;
	}

	private requireFilters(filters: Filter[]): string {
		// PostgREST applies an unfiltered PATCH or DELETE to every row the account can see.
		if (filters.length === 0) throw new NodeOperationError(this.ctx.getNode(), 'Refusing to update or delete without a filter');
		return buildFilterString(filters);
	}

	private async send(
		method: IHttpRequestMethods,
		url: string,
		options: CallOptions & { body?: IDataObject | IDataObject[]; prefer?: string; stream?: boolean },
	): Promise<FullResponse> {
		const request: IHttpRequestOptions = {
			method,
			url,
			headers: { Accept: 'application/json', ...(options.prefer ? { Prefer: options.prefer } : {}) },
			returnFullResponse: true,
			timeout: options.stream ? ARCHIVE_TIMEOUT_MS : this.timeoutMs,
			...(options.stream ? { encoding: 'stream' as const, disableFollowRedirect: true } : { json: true }),
			...(options.body !== undefined ? { body: options.body } : {}),
		};
		let answerLost = false;
		for (let attempt = 1; ; attempt++) {
			const wait = this.pausedUntil - Date.now();
			if (wait > 0) await sleep(wait);
			const renewed = await this.admit();
			try {
				const response = (await this.ctx.helpers.httpRequestWithAuthentication.call(
					this.ctx,
					CREDENTIAL_NAME,
					{ ...request, headers: { ...request.headers } },
				)) as FullResponse;
				this.noteServerClock(response.headers ?? {});
				return answerLost ? { ...response, answerLost } : response;
			} catch (error) {
				if (options.stream) await readStreamedErrorBody(error);
				const failure = readServiceFailure(error);
				if (options.stream && failure.location !== undefined) {
					return { body: undefined, headers: { location: failure.location }, statusCode: failure.status as number };
				}
				const delay = retryDelay(failure, method, attempt, this.retry);
				const mayHaveReached = !failure.login && (failure.status === undefined ? !NEVER_SENT.has(failure.code ?? '') : failure.status >= 500);
				if (delay === undefined) {
					const nodeError = this.toNodeError(failure, method, attempt, options.itemIndex);
					if (mayHaveReached) answerMayBeLost.add(nodeError);
					throw nodeError;
				}
				if (mayHaveReached) answerLost = true;
				if (failure.status === 429) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delay);
				else await sleep(delay);
			} finally {
				await renewed?.();
			}
		}
	}

	/**
	 * n8n logs in when the stored token is empty, and again after a 401: with several requests
	 * in flight, each would log in. So when no valid token is known, one request goes alone
	 * (n8n logs in and stores the token) and the others wait, then read the stored token.
	 * Returns what the lone request must call when done.
	 */
	private async admit(): Promise<(() => Promise<void>) | undefined> {
		while (this.tokenRenewal) await this.tokenRenewal;
		// The token's `exp` is the service's time: compare it with the service's clock once known.
		const now = this.serverNow();
		if (!tokenGate.enabled || (this.tokenExpiresAt !== undefined && now < this.tokenExpiresAt - tokenGate.marginMs)) return undefined;
		let release = () => {};
		this.tokenRenewal = new Promise<void>((resolve) => (release = resolve));
		return async () => {
			try {
				const credentials = await this.ctx.getCredentials(CREDENTIAL_NAME);
				this.tokenExpiresAt = tokenExpiry(credentials?.accessToken);
			} finally {
				this.tokenRenewal = undefined;
				release();
			}
		};
	}

	private toNodeError(failure: ServiceFailure, method: IHttpRequestMethods, attempts: number, itemIndex?: number): NodeApiError {
		const response = failureToErrorResponse(failure);
		const notes: string[] = [];
		if (response.description) notes.push(response.description as string);
		if (failure.status === 401) {
			notes.push('n8n logged in again and the service still refused the token: check the credential (API key, email, password).');
		}
		// A failed login sent nothing to the API: no duplicate to fear, the credential to fix.
		if (failure.login) notes.push('Open the Website Export credential of this node and correct it: saving it tests the login.');
		else if (!isIdempotent(method) && failure.status !== 429 && (failure.status === undefined || failure.status >= 500)) {
			notes.push('The request may have reached the service, so it was not sent again (that could create a duplicate): check whether the record exists before running the node again.');
		}
		if (attempts > 1) notes.push(`Gave up after ${attempts} attempts.`);
		return new NodeApiError(this.ctx.getNode(), response as JsonObject, {
			message: failure.message,
			description: notes.join(' ') || undefined,
			httpCode: failure.status === undefined ? undefined : String(failure.status),
			itemIndex,
		});
	}
}

/** PostgREST answers with an array, or with nothing (201/204 without a representation). */
function asRows<T>(body: unknown): T[] {
	if (Array.isArray(body)) return body as T[];
	if (body !== null && typeof body === 'object' && Object.keys(body).length > 0) return [body as T];
	return [];
}
