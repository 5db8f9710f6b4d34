// Why: sends a request through the credential and says how it ended: answered, refused or lost.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { tokenExpiry } from '../auth/renewal';
import { CREDENTIAL_NAME, REQUEST_TIMEOUT_MS } from '../constants';
import { readServiceFailure, type ServiceFailure } from '../serviceError';
import { brokenAnswer, type ExpectedAnswer } from './answerShape';

export type TransportContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface RetryPolicy {
	/** Attempts in all, the first one included. */
	maxAttempts: number;
	/**
	 * First back-off when the server gives no Retry-After; doubles on each attempt up to maxDelayMs.
	 */
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest Retry-After we are willing to wait; beyond it the error goes to the user. */
	maxRetryAfterMs: number;
}

/**
 * `inFlight`: the most requests on the wire at once (Requests in Flight), however callers nest
 * them; `timeoutMs`: Options → Timeout, when the user set it (else each request's own default).
 */
export type ClientOptions = { retry?: RetryPolicy; inFlight?: number; timeoutMs?: number };

/** `itemIndex`: the item the request is made for: errors name it, so the editor can point at it. */
export type CallOptions = { itemIndex?: number };

export interface SendOptions extends CallOptions {
	body?: IDataObject | IDataObject[];
	/** PostgREST's Prefer header: `return=representation`, `count=exact`. */
	prefer?: string;
	/** Request options of the caller's own, e.g. an archive's stream encoding. */
	http?: Partial<IHttpRequestOptions>;
	/** The shape the answer must have (answerShape.ts): any other is a failed attempt. */
	expect?: ExpectedAnswer;
	/** Looks at a failed attempt first: may take it as the answer (an archive's redirect). */
	onFailure?: (error: unknown) => Promise<ServiceResponse | undefined>;
}

export type ServiceResponse = { body: unknown; headers: IDataObject; statusCode: number };

/**
 * How a request ended once retried: a lost answer may have been carried out, a refusal was not;
 * `afterLostAnswer` when an earlier attempt may have been.
 */
export type Outcome =
	| { kind: 'answer'; response: ServiceResponse; afterLostAnswer: boolean }
	| { kind: 'refused' | 'lost'; error: NodeApiError };

const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
	maxRetryAfterMs: 60_000,
};

/** Network failures that a second attempt may not meet. */
const TRANSIENT_NETWORK_CODES = new Set([
	...['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'EAI_AGAIN'],
	...['ERR_SOCKET_CONNECTION_TIMEOUT', 'UND_ERR_SOCKET'],
]);

/**
 * Network failures before the request left: no answer was lost, the request was never carried out.
 */
const FAILED_BEFORE_SENDING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Network codes of a request that got no answer within its timeout (axios says ECONNABORTED). */
const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT']);

/** Whether no answer came within the request's timeout: the service may still carry it out. */
export const timedOut = ({ status, code }: ServiceFailure): boolean =>
	status === undefined && TIMEOUT_CODES.has(code ?? '');

/** The Timeout (ms) a request waited in vain, for an error of `giveUp`; else undefined. */
export const timedOutAfter = (error: NodeApiError | undefined): number | undefined =>
	typeof error?.context.timedOutMs === 'number' ? error.context.timedOutMs : undefined;

/**
 * Whether the request may have been carried out although its answer was lost (no answer, or a 5xx).
 */
function answerLost(failure: ServiceFailure): boolean {
	if (failure.login) return false; // a failed login sent nothing to the API
	if (failure.broken) return true; // answered, but what it said cannot be read
	const { status, code } = failure;
	return status === undefined ? !FAILED_BEFORE_SENDING.has(code ?? '') : status >= 500;
}

/**
 * Milliseconds before trying again, or undefined to give up: after a 429 for any method (the
 * gateway refused it unprocessed), after a 5xx, a broken body or a network failure for all but
 * POST (it may have created a row: the error says so) and a PATCH that timed out (it may land
 * later).
 */
export function retryDelay(
	failure: ServiceFailure,
	method: IHttpRequestMethods,
	attempt: number,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): number | undefined {
	if (attempt >= policy.maxAttempts) return undefined;
	const { status, code } = failure;
	// A broken body (a proxy's page, a cut-off answer) is a hiccup on the way, as a 502 is.
	const failedOnTheWay =
		failure.broken === true ||
		(status === undefined
			? TRANSIENT_NETWORK_CODES.has(code ?? '')
			: status >= 500 && status !== 501);
	if (status !== 429 && (method === 'POST' || !failedOnTheWay)) return undefined;
	// A timed-out update may still land later; sent again, it would be reported done, and a later
	// item's write could be undone by the first attempt without anyone knowing: the item fails.
	if (method === 'PATCH' && timedOut(failure)) return undefined;
	if (failure.retryAfterMs !== undefined)
		return failure.retryAfterMs <= policy.maxRetryAfterMs ? failure.retryAfterMs : undefined;
	const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	// Jitter keeps several executions that failed together from retrying in lockstep.
	return Math.round(backoff * (0.8 + Math.random() * 0.4));
}

/**
 * From this long before the token's expiry by the service's clock (known to the second), requests
 * go one at a time.
 */
const RENEWAL_MARGIN_MS = 5_000;

/**
 * Sends an execution's requests through n8n's `httpRequestWithAuthentication`: the credential adds
 * the key and the token, n8n logs in again after a 401.
 */
export class ServiceRequests {
	/**
	 * The service's clock (Date header of its last answer) and ours then:
	 * links and tokens expire by it.
	 */
	private serviceTime?: { service: number; local: number };
	/** A 429 pauses every request of this execution, not just the one that got it. */
	private pausedUntil = 0;
	/** While set, one request is renewing the token and the others wait for it. */
	private renewal: Promise<void> | undefined;
	/** Requests on the wire now, and those waiting for one of the `inFlight` places. */
	private open = 0;
	private readonly queued: Array<() => void> = [];

	constructor(
		private readonly ctx: TransportContext,
		/** The stored token's expiry (tokenExpiry), by the service's clock as `exp` is. */
		private tokenExpiresAt: number | undefined,
		private readonly options: ClientOptions,
	) {}

	/**
	 * The service's time now; this machine's before any answer.
	 * Date counts whole seconds: up to 1 s early.
	 */
	serviceNow(): number {
		const time = this.serviceTime;
		return time ? time.service + (Date.now() - time.local) : Date.now();
	}

	/** How long a request waits for its answer: Options → Timeout, else `fallback`. */
	timeoutMs(fallback = REQUEST_TIMEOUT_MS): number {
		return this.options.timeoutMs ?? fallback;
	}

	/** The answer; a refusal or a lost answer is thrown as the NodeApiError the user sees. */
	async request(method: IHttpRequestMethods, url: string, options: SendOptions = {}) {
		const outcome = await this.send(method, url, options);
		if (outcome.kind === 'answer') return outcome.response;
		throw outcome.error;
	}

	async send(
		method: IHttpRequestMethods,
		url: string,
		options: SendOptions = {},
	): Promise<Outcome> {
		let afterLostAnswer = false;
		for (let attempt = 1; ; attempt++) {
			const { response, failure } = await this.attempt(method, url, options);
			if (response) return { kind: 'answer', response, afterLostAnswer };
			const lost = answerLost(failure);
			const delay = retryDelay(failure, method, attempt, this.options.retry);
			if (delay === undefined) {
				const error = this.giveUp(failure, method, attempt, options);
				return { kind: lost ? 'lost' : 'refused', error };
			}
			afterLostAnswer ||= lost;
			if (failure.status === 429) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delay);
			else await sleep(delay);
		}
	}

	private async attempt(method: IHttpRequestMethods, url: string, options: SendOptions) {
		const pause = this.pausedUntil - Date.now();
		if (pause > 0) await sleep(pause);
		const endRenewal = await this.renewalGate();
		// Taken after the renewal gate:
		// the one request that renews never waits behind those it holds back.
		await this.takeSlot();
		const { prefer, body } = options;
		const request: IHttpRequestOptions = {
			method,
			url,
			headers: { Accept: 'application/json', ...(prefer && { Prefer: prefer }) },
			...(body !== undefined && { body }),
			returnFullResponse: true,
			json: true,
			timeout: this.timeoutMs(),
			...options.http,
		};
		try {
			const response = (await this.ctx.helpers.httpRequestWithAuthentication.call(
				this.ctx,
				CREDENTIAL_NAME,
				request,
			)) as ServiceResponse;
			const date = Date.parse(String(response.headers?.date));
			if (!Number.isNaN(date)) this.serviceTime = { service: date, local: Date.now() };
			const broken = options.expect && brokenAnswer(response, options.expect);
			return broken ? { failure: broken } : { response };
		} catch (error) {
			const taken = await options.onFailure?.(error);
			return taken ? { response: taken } : { failure: readServiceFailure(error) };
		} finally {
			this.freeSlot();
			await endRenewal?.();
		}
	}

	/**
	 * While no valid token is known, one request goes alone (n8n logs in, as for an empty token or
	 * a 401, and stores the token) and the others wait: one login, not one per request in flight.
	 * Returns what that request calls once answered.
	 */
	private async renewalGate(): Promise<(() => Promise<void>) | undefined> {
		while (this.renewal) await this.renewal;
		if (this.serviceNow() < (this.tokenExpiresAt ?? -Infinity) - RENEWAL_MARGIN_MS) return;
		let release = () => {};
		this.renewal = new Promise<void>((resolve) => (release = resolve));
		return async () => {
			try {
				const stored = await this.ctx.getCredentials(CREDENTIAL_NAME);
				this.tokenExpiresAt = tokenExpiry(stored?.accessToken);
			} finally {
				this.renewal = undefined;
				release();
			}
		};
	}

	private async takeSlot(): Promise<void> {
		if (this.open < (this.options.inFlight ?? Infinity)) this.open++;
		else await new Promise<void>((resolve) => this.queued.push(resolve));
	}

	private freeSlot(): void {
		const next = this.queued.shift();
		if (next) next();
		else this.open--;
	}

	/**
	 * The error the user sees when no attempt is left: the service's words and what to do about them.
	 */
	private giveUp(
		failure: ServiceFailure,
		method: IHttpRequestMethods,
		attempts: number,
		{ itemIndex, http }: SendOptions,
	): NodeApiError {
		const { status, hint, details, code, login } = failure;
		const waitedMs = timedOut(failure) ? Number(http?.timeout ?? this.timeoutMs()) : undefined;
		const message =
			waitedMs === undefined
				? failure.message
				: `The service did not answer within ${waitedMs} ms (Options → Timeout)`;
		// A timeout's code (ECONNABORTED) says nothing the message does not say already.
		const shownCode = waitedMs === undefined && code && `Code: ${code}`;
		const notes = [hint, details, shownCode].filter(Boolean).join(' — ') || undefined;
		const advice = [
			notes,
			status === 401 &&
				'n8n logged in again and the service still refused the token: ' +
					'check the credential (API key, email, password).',
			login &&
				'Open the Website Export credential of this node and correct it: saving it tests the login.',
			waitedMs !== undefined && LATE_WRITE[method],
			answerLost(failure) &&
				method === 'POST' &&
				'The request may have reached the service, so it was not sent again ' +
					'(that could create a duplicate): ' +
					'check whether the record exists before running the node again.',
			attempts > 1 && `Gave up after ${attempts} attempts.`,
			waitedMs !== undefined && 'If the service is only slow, raise Options → Timeout.',
		];
		const httpCode = status?.toString();
		const description = advice.filter(Boolean).join(' ') || undefined;
		const response = { message, description: notes, httpCode } as JsonObject;
		const options = { message, description, httpCode, itemIndex };
		const error = new NodeApiError(this.ctx.getNode(), response, options);
		if (waitedMs !== undefined) error.context.timedOutMs = waitedMs;
		return error;
	}
}

/** What a write that got no answer in time may still do: the service may carry it out later. */
const LATE_WRITE: Partial<Record<IHttpRequestMethods, string>> = {
	PATCH:
		'The service may still carry out this update later, even after the writes of later items, ' +
		'and so undo them; for that reason it was not sent again. ' +
		'Read the record (e.g. Job → Get) to see its values before running this item again.',
	DELETE:
		'The service may still carry out a delete it had received. ' +
		'Read the record (e.g. Job → Get) to see whether it still exists ' +
		'before running this item again.',
	POST: 'The service may still carry out a create it had received, later than this error.',
};
