// Why: a failed request as the service, network or login told it, in safe fields a user can act on.

/** What the service (PostgREST, GoTrue, storage) or the network said when a request failed. */
export interface ServiceFailure {
	/** HTTP status, absent when no answer arrived (connection refused, timeout, reset). */
	status?: number;
	/** PostgREST `code`, GoTrue `error_code`/`error`, or the network error code. */
	code?: string;
	message: string;
	hint?: string;
	details?: string;
	/** Wait requested by the server (Retry-After), in milliseconds. */
	retryAfterMs?: number;
	/** The credential's login failed before the request was sent: the message says what to fix. */
	login?: boolean;
	/** A 2xx whose body is not what was due (an HTML page, a cut-off body): answerShape.ts. */
	broken?: boolean;
}

const LOGIN_FAILED = 'WEBSITE_EXPORT_LOGIN_FAILED';

/**
 * A failed login: its message names the field to fix and holds no secret. n8n wraps it in a
 * NodeApiError, which keeps `httpCode` on 1.x and 2.x (1.x drops the `cause`, may reword the
 * message and keeps it as `messages[0]`): the code, not the wording, tells that the login failed.
 */
export const loginFailed = (message: string): Error =>
	Object.assign(new Error(message), { name: 'WebsiteExportLoginError', httpCode: LOGIN_FAILED });

type AnyRecord = Record<string, unknown>;

const asRecord = (value: unknown): AnyRecord | undefined =>
	value !== null && typeof value === 'object' ? (value as AnyRecord) : undefined;

const asText = (value: unknown): string | undefined =>
	typeof value === 'number' || (typeof value === 'string' && value.trim())
		? String(value)
		: undefined;

/** The first of `values` that is a text. */
const firstText = (...values: unknown[]) => values.map(asText).find(Boolean);

/** The first error that `match` accepts, under whatever n8n wrapped around it (`cause`). */
export function findInChain(error: unknown, match: (candidate: AnyRecord) => boolean) {
	let current = asRecord(error);
	for (let depth = 0; current && depth < 4; depth++) {
		if (match(current)) return current;
		current = asRecord(current.cause);
	}
	return undefined;
}

function parseBody(data: unknown): AnyRecord | undefined {
	if (data instanceof Uint8Array) return parseBody(Buffer.from(data).toString('utf8'));
	if (typeof data !== 'string') return asRecord(data);
	try {
		return asRecord(JSON.parse(data));
	} catch {
		return data.trim() ? { message: data.trim().slice(0, 300) } : undefined;
	}
}

/** Retry-After as milliseconds: either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const seconds = Number(text);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
	const date = Date.parse(String(text));
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const unreachable = (code?: string): ServiceFailure => ({
	code,
	message: `The service could not be reached${code ? ` (${code})` : ''}`,
});

/**
 * The failure in an error of n8n's request helpers: the service's own words and codes, never the
 * request (its headers carry the key and token, a login's body the password).
 */
export function readServiceFailure(error: unknown): ServiceFailure {
	const login = findInChain(error, (e) => e.httpCode === LOGIN_FAILED);
	if (login) {
		const message = firstText((login.messages as unknown[] | undefined)?.[0], login.message);
		return { message: message ?? 'Login failed', login: true };
	}
	const httpError = findInChain(error, (e) => !!asRecord(e.response) || typeof e.code === 'string');
	const response = asRecord(httpError?.response);
	if (response) {
		const status = typeof response.status === 'number' ? response.status : undefined;
		// Node's HTTP client gives header names in lower case.
		const retryAfterMs = parseRetryAfter(asRecord(response.headers)?.['retry-after']);
		return { ...fromAnswer(status, parseBody(response.data), response.statusText), retryAfterMs };
	}
	const flat = httpError ? undefined : asRecord(error);
	if (flat && flat.cause === undefined) return readFlattenedApiError(flat);
	return unreachable(asText(httpError?.code));
}

/**
 * What an answer says: its status,
 * and the service's own words and codes in its body (else `fallback`).
 */
function fromAnswer(status?: number, body: AnyRecord = {}, fallback?: unknown): ServiceFailure {
	// The service's own sentence: PostgREST `message`, GoTrue `msg` / `error_description` / `error`.
	const own = firstText(body.message, body.msg, body.error_description, body.error, fallback);
	const message = own ?? `The service answered with HTTP status ${status ?? 'unknown'}`;
	// GoTrue's numeric `code` repeats the status; its `error_code` is the meaningful one.
	const code = firstText(body.error_code, body.code, body.error !== message && body.error);
	return { status, code, message, hint: asText(body.hint), details: asText(body.details) };
}

/**
 * n8n 1.x's NodeApiError without its cause: its constructor copied the status (`httpCode`), the
 * body (`context.data`), the message.
 */
function readFlattenedApiError(flat: AnyRecord): ServiceFailure {
	const message = asText(flat.message);
	const status = Number(asText(flat.httpCode));
	const known = status >= 100 && status <= 599;
	const body = asRecord(asRecord(flat.context)?.data);
	if (known || body) return fromAnswer(known ? status : undefined, body, message);
	// No answer: the network error's code is in the message (`connect ECONNREFUSED 127.0.0.1:80`).
	return unreachable(/\b(E[A-Z_]{3,}|UND_ERR_[A-Z_]+)\b/.exec(message ?? '')?.[1]);
}
