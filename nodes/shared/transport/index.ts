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
import { mapInOrder } from '../pool';
import { failureToErrorResponse, readServiceFailure, readStreamedErrorBody, type ServiceFailure } from '../serviceError';
import { buildFilterString, buildQueryString, parseContentRangeTotal, type Filter, type ListQuery } from './query';
import { DEFAULT_RETRY_POLICY, isIdempotent, retryDelay, type RetryPolicy } from './retry';

export type { Filter, FilterOperator, ListQuery, OrderBy } from './query';
export type { RetryPolicy } from './retry';

export type TransportContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ClientOptions {
	retry?: RetryPolicy;
	/** Per-request timeout for API calls. */
	timeoutMs?: number;
	/** Rows asked for per page; Supabase's default `max-rows` is 1000. */
	pageSize?: number;
	/** Pages fetched at once by selectAll once the total is known. */
	pageConcurrency?: number;
}

export interface CallOptions {
	/** Item the request is made for: errors name it, so the editor can point at it. */
	itemIndex?: number;
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
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** A token this close to its expiry is treated as expired (clock skew, request time). */
const TOKEN_MARGIN_MS = 60_000;

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

	private readonly pageConcurrency: number;

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
		this.pageConcurrency = options.pageConcurrency ?? 1;
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
	 * Every row matching `query` (or the first `max`), in the query's order. The server may cap
	 * any page below what we ask for (Supabase's `max-rows`), silently: so paging moves on by
	 * the rows actually received, and ends at the counted total or at an empty page.
	 */
	async selectAll<T = IDataObject>(
		resource: ResourceName,
		query: Omit<ListQuery, 'limit' | 'offset'>,
		options: CallOptions & { max?: number } = {},
	): Promise<T[]> {
		const max = options.max ?? Infinity;
		const want = (offset: number) => Math.min(this.pageSize, max - offset);
		const first = await this.select<T>(resource, { ...query, limit: want(0) }, { ...options, count: true });
		const rows = first.rows;
		const total = first.total === undefined ? undefined : Math.min(first.total, max);
		if (rows.length === 0 || rows.length >= (total ?? max)) return rows.slice(0, max);

		// The first page tells the server's real page size and the total: the other offsets are
		// known, so they can be fetched side by side.
		const stride = rows.length;
		if (total !== undefined && this.pageConcurrency > 1) {
			const offsets: number[] = [];
			for (let offset = stride; offset < total; offset += stride) offsets.push(offset);
			const limitAt = (offset: number) => Math.min(stride, total - offset);
			const pages = await mapInOrder(offsets, this.pageConcurrency, async (offset) =>
				this.select<T>(resource, { ...query, limit: limitAt(offset), offset }, options),
			);
			for (const [index, page] of pages.entries()) {
				rows.push(...page.rows);
				// Short page (rows deleted meanwhile): what follows may not line up, so the
				// sequential walk below goes on from where the rows really end.
				if (page.rows.length < limitAt(offsets[index])) break;
			}
		}

		for (let offset = rows.length; offset < max && (total === undefined || offset < total); ) {
			const page = await this.select<T>(resource, { ...query, limit: want(offset), offset }, options);
			if (page.rows.length === 0) break;
			rows.push(...page.rows);
			offset += page.rows.length;
		}
		return rows.slice(0, max);
	}

	/** Inserts one row (or several) and returns what the server stored. */
	async insert<T = IDataObject>(resource: ResourceName, body: IDataObject | IDataObject[], options: CallOptions = {}): Promise<T[]> {
		const response = await this.send('POST', this.restUrl(resource, ''), {
			...options,
			body,
			prefer: 'return=representation',
		});
		return asRows<T>(response.body);
	}

	/** Updates the rows matching `filters`; returns them as they are now ([] when none matched). */
	async update<T = IDataObject>(resource: ResourceName, filters: Filter[], patch: IDataObject, options: CallOptions = {}): Promise<T[]> {
		const response = await this.send('PATCH', this.restUrl(resource, this.requireFilters(filters)), {
			...options,
			body: patch,
			prefer: 'return=representation',
		});
		return asRows<T>(response.body);
	}

	/** Deletes the rows matching `filters`; returns them ([] when none matched). */
	async remove<T = IDataObject>(resource: ResourceName, filters: Filter[], options: CallOptions = {}): Promise<T[]> {
		const response = await this.send('DELETE', this.restUrl(resource, this.requireFilters(filters)), {
			...options,
			prefer: 'return=representation',
		});
		return asRows<T>(response.body);
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
	 * has passed here since; undefined before any answer or when the answer had no Date. The
	 * header counts whole seconds, so the service's clock may be up to 1 s later than this.
	 */
	serverNow(): number | undefined {
		return this.serverClock && this.serverClock.server + (Date.now() - this.serverClock.local);
	}

	private noteServerClock(headers: Record<string, unknown>): void {
		const value = Array.isArray(headers.date) ? headers.date[0] : headers.date;
		const server = typeof value === 'string' ? Date.parse(value) : NaN;
		if (!Number.isNaN(server)) this.serverClock = { server, local: Date.now() };
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
				return response;
			} catch (error) {
				if (options.stream) await readStreamedErrorBody(error);
				const failure = readServiceFailure(error);
				if (options.stream && failure.location !== undefined) {
					return { body: undefined, headers: { location: failure.location }, statusCode: failure.status as number };
				}
				const delay = retryDelay(failure, method, attempt, this.retry);
				if (delay === undefined) throw this.toNodeError(failure, method, attempt, options.itemIndex);
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
		const now = this.serverNow() ?? Date.now();
		if (this.tokenExpiresAt !== undefined && now < this.tokenExpiresAt - TOKEN_MARGIN_MS) return undefined;
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
