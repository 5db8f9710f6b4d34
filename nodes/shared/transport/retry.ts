// Why: which failed requests are tried again, and after how long.
import type { IHttpRequestMethods } from 'n8n-workflow';

import type { ServiceFailure } from '../serviceError';

export interface RetryPolicy {
	/** Attempts in all, the first one included. */
	maxAttempts: number;
	/** First back-off when the server gives no Retry-After; doubles on each attempt up to maxDelayMs. */
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest Retry-After we are willing to wait; beyond it the error goes to the user. */
	maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
	maxRetryAfterMs: 60_000,
};

/** Network failures where the request may or may not have been processed. */
const TRANSIENT_NETWORK_CODES = new Set([
	...['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'EAI_AGAIN'],
	...['ERR_SOCKET_CONNECTION_TIMEOUT', 'UND_ERR_SOCKET'],
]);

/** Of the service's methods (GET, POST, PATCH, DELETE), only POST creates: the others can be repeated. */
export const isIdempotent = (method: IHttpRequestMethods): boolean => method !== 'POST';

/**
 * Milliseconds to wait before trying again, or undefined to give up. A 429 is retried for every
 * method (the gateway refused it unprocessed); 5xx and network failures only for idempotent ones:
 * a POST that may have reached the database is never sent again blindly (the error says so).
 */
export function retryDelay(
	failure: ServiceFailure,
	method: IHttpRequestMethods,
	attempt: number,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): number | undefined {
	if (attempt >= policy.maxAttempts) return undefined;
	const { status, code } = failure;
	const failedOnTheWay =
		status === undefined
			? TRANSIENT_NETWORK_CODES.has(code ?? '')
			: status >= 500 && status !== 501;
	if (status !== 429 && !(isIdempotent(method) && failedOnTheWay)) return undefined;
	if (failure.retryAfterMs !== undefined) {
		return failure.retryAfterMs <= policy.maxRetryAfterMs ? failure.retryAfterMs : undefined;
	}
	const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	// Jitter keeps several executions that failed together from retrying in lockstep.
	return Math.round(backoff * (0.8 + Math.random() * 0.4));
}
