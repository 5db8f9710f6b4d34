// Why: the service's error answers (PostgREST, GoTrue, storage) as messages a user can act on.
import type { IDataObject } from 'n8n-workflow';

/** What the service (or the network) said when a request failed, reduced to safe fields. */
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
	/** Where a redirect (3xx) points, for requests that follow redirects themselves. */
	location?: string;
	/** The credential's login failed before the request was sent: the message says what to fix. */
	login?: boolean;
}

type AnyRecord = Record<string, unknown>;

const asRecord = (value: unknown): AnyRecord | undefined =>
	value !== null && typeof value === 'object' ? (value as AnyRecord) : undefined;

const asText = (value: unknown): string | undefined => {
	if (typeof value === 'string' && value.trim() !== '') return value;
	if (typeof value === 'number') return String(value);
	return undefined;
};

/** Name of the errors the credential's login throws; n8n wraps them (as `cause`) in a NodeApiError. */
export const LOGIN_ERROR_NAME = 'WebsiteExportLoginError';

/**
 * Every message a login error carries (login.ts, with baseUrl.ts's reasons) begins or ends this
 * way. n8n 1.x's NodeApiError drops an Error `cause` (its error classes redeclare the field), so
 * there the login error survives only as the wrapping error's message: this tells it apart from
 * a network failure, from the message alone.
 */
const LOGIN_MESSAGE =
	/^(?:Login failed\b|The API key was refused\b|The Base URL\b)|: check the Base URL and that the service is online$/;

/** An error of the credential's login (preAuthentication): its message is for the user and holds no secret. */
export function loginError(message: string): Error {
	const error = new Error(message);
	error.name = LOGIN_ERROR_NAME;
	return error;
}

/** The first error that `match` accepts, under whatever n8n wrapped around it (`cause`). */
function findInChain(
	error: unknown,
	match: (candidate: AnyRecord) => boolean,
): AnyRecord | undefined {
	let current = asRecord(error);
	for (let depth = 0; current && depth < 4; depth++) {
		if (match(current)) return current;
		current = asRecord(current.cause);
	}
	return undefined;
}

/** The axios-like error object. */
const findHttpError = (error: unknown) =>
	findInChain(error, (e) => asRecord(e.response) !== undefined || typeof e.code === 'string');

/** The error the credential's login threw. */
const findLoginError = (error: unknown) => findInChain(error, (e) => e.name === LOGIN_ERROR_NAME);

/** The service's own sentence in an error body: PostgREST `message`, GoTrue `msg` / `error_description` / `error`. */
const bodyMessage = (body: AnyRecord): string | undefined =>
	asText(body.message) ?? asText(body.msg) ?? asText(body.error_description) ?? asText(body.error);

function parseBody(data: unknown): AnyRecord | undefined {
	if (typeof data === 'string') {
		try {
			return asRecord(JSON.parse(data));
		} catch {
			return data.trim() ? { message: data.trim().slice(0, 300) } : undefined;
		}
	}
	if (data instanceof Uint8Array) return parseBody(Buffer.from(data).toString('utf8'));
	return asRecord(data);
}

/**
 * A failed streamed request (an archive download) leaves the error body unread: reads up to
 * `maxBytes` of it in place, so that readServiceFailure sees the service's own words (e.g.
 * storage's "Object not found"), and lets the connection go.
 */
export async function readStreamedErrorBody(error: unknown, maxBytes = 16 * 1024): Promise<void> {
	const response = asRecord(findHttpError(error)?.response);
	const body = response?.data as (AsyncIterable<unknown> & { destroy?: () => void }) | undefined;
	if (!response || typeof body?.[Symbol.asyncIterator] !== 'function') return;
	const decoder = new TextDecoder();
	let text = '';
	try {
		for await (const chunk of body) {
			text +=
				typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
			if (text.length >= maxBytes) break;
		}
	} catch {
		// A body cut short still says what it says.
	}
	body.destroy?.();
	response.data = text.slice(0, maxBytes);
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

function header(headers: unknown, name: string): unknown {
	const record = asRecord(headers);
	if (!record) return undefined;
	if (typeof (record as { get?: unknown }).get === 'function') {
		return (record as unknown as { get(n: string): unknown }).get(name);
	}
	const key = Object.keys(record).find((k) => k.toLowerCase() === name);
	return key === undefined ? undefined : record[key];
}

/**
 * Reads the failure out of an error thrown by n8n's request helpers. Only the service's own
 * words and codes are kept: never the request (its headers carry the API key and the token,
 * the token request's body carries the password).
 */
export function readServiceFailure(error: unknown): ServiceFailure {
	const httpError = findHttpError(error);
	const response = asRecord(httpError?.response);
	if (!response) {
		const login = findLoginError(error);
		if (login) return { message: asText(login.message) ?? 'Login failed', login: true };
		const flattened = httpError ? undefined : readFlattenedApiError(error);
		if (flattened) return flattened;
		const code = asText(httpError?.code);
		return {
			code,
			message: code
				? `The service could not be reached (${code})`
				: 'The service could not be reached',
		};
	}
	const status = typeof response.status === 'number' ? response.status : undefined;
	const body = parseBody(response.data) ?? {};
	const message =
		bodyMessage(body) ??
		asText(response.statusText) ??
		`The service answered with HTTP status ${status ?? 'unknown'}`;
	return {
		status,
		// GoTrue's numeric `code` repeats the status; its `error_code` is the meaningful one.
		code:
			asText(body.error_code) ??
			asText(body.code) ??
			(body.error !== message ? asText(body.error) : undefined),
		message,
		hint: asText(body.hint),
		details: asText(body.details),
		retryAfterMs: parseRetryAfter(header(response.headers, 'retry-after')),
		location:
			status !== undefined && status >= 300 && status < 400
				? asText(header(response.headers, 'location'))
				: undefined,
	};
}

/**
 * n8n 1.x: a NodeApiError without its cause, whose constructor copied what it could: the HTTP
 * status (`httpCode`), the answer's body (`context.data`) and the message. Undefined when the
 * error is not such a one.
 */
function readFlattenedApiError(error: unknown): ServiceFailure | undefined {
	const flat = asRecord(error);
	if (!flat || flat.cause !== undefined) return undefined;
	const message = asText(flat.message);
	if (message !== undefined && LOGIN_MESSAGE.test(message)) return { message, login: true };
	const status = Number(asText(flat.httpCode));
	const body = asRecord(asRecord(flat.context)?.data);
	if (!(status >= 100 && status <= 599) && !body) {
		// No answer: the network error's code is in the message (`connect ECONNREFUSED 127.0.0.1:80`).
		const code = message ? /\b(E[A-Z_]{3,}|UND_ERR_[A-Z_]+)\b/.exec(message)?.[1] : undefined;
		return code ? { code, message: `The service could not be reached (${code})` } : undefined;
	}
	const text = body ? bodyMessage(body) : undefined;
	return {
		status: status >= 100 && status <= 599 ? status : undefined,
		code: body ? (asText(body.error_code) ?? asText(body.code)) : undefined,
		message: text ?? message ?? `The service answered with HTTP status ${status}`,
		hint: body ? asText(body.hint) : undefined,
		details: body ? asText(body.details) : undefined,
	};
}

/** The failure as the JSON that NodeApiError shows: message first, the rest as description. */
export function failureToErrorResponse(failure: ServiceFailure): IDataObject {
	const parts = [failure.hint, failure.details, failure.code ? `Code: ${failure.code}` : undefined];
	return {
		message: failure.message,
		description: parts.filter(Boolean).join(' — ') || undefined,
		httpCode: failure.status === undefined ? undefined : String(failure.status),
	};
}
