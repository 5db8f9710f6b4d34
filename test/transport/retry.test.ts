import { retryDelay, type RetryPolicy } from '../../nodes/shared/transport/send';
import { parseRetryAfter, readServiceFailure } from '../../nodes/shared/serviceError';

const policy: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 100,
	maxDelayMs: 1000,
	maxRetryAfterMs: 5000,
};

describe('retry policy', () => {
	it('retries 429 for every method, honouring Retry-After', () => {
		expect(retryDelay({ status: 429, message: '', retryAfterMs: 2000 }, 'GET', 1, policy)).toBe(
			2000,
		);
		expect(retryDelay({ status: 429, message: '', retryAfterMs: 2000 }, 'POST', 1, policy)).toBe(
			2000,
		);
	});

	it('gives up when Retry-After is longer than we are willing to wait', () => {
		expect(
			retryDelay({ status: 429, message: '', retryAfterMs: 60_000 }, 'GET', 1, policy),
		).toBeUndefined();
	});

	it('retries 5xx and network failures only for idempotent methods', () => {
		for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
			expect(retryDelay({ status: 503, message: '' }, method, 1, policy)).toBeGreaterThan(0);
			expect(retryDelay({ code: 'ECONNRESET', message: '' }, method, 1, policy)).toBeGreaterThan(0);
		}
		expect(retryDelay({ status: 500, message: '' }, 'POST', 1, policy)).toBeUndefined();
		expect(retryDelay({ code: 'ETIMEDOUT', message: '' }, 'POST', 1, policy)).toBeUndefined();
	});

	it('does not send again a PATCH that timed out (it may land later), but a GET or DELETE', () => {
		for (const code of ['ECONNABORTED', 'ETIMEDOUT']) {
			expect(retryDelay({ code, message: '' }, 'PATCH', 1, policy)).toBeUndefined();
			for (const method of ['GET', 'DELETE'] as const)
				expect(retryDelay({ code, message: '' }, method, 1, policy)).toBeGreaterThan(0);
		}
		expect(retryDelay({ code: 'ECONNRESET', message: '' }, 'PATCH', 1, policy)).toBeGreaterThan(0);
	});

	it('never retries client errors, and stops after the last attempt', () => {
		expect(retryDelay({ status: 400, message: '' }, 'GET', 1, policy)).toBeUndefined();
		expect(retryDelay({ status: 401, message: '' }, 'GET', 1, policy)).toBeUndefined();
		expect(retryDelay({ status: 503, message: '' }, 'GET', 4, policy)).toBeUndefined();
	});

	it('backs off exponentially within bounds', () => {
		const delays = [1, 2, 3].map(
			(attempt) => retryDelay({ status: 502, message: '' }, 'GET', attempt, policy)!,
		);
		expect(delays[0]).toBeGreaterThanOrEqual(80);
		expect(delays[0]).toBeLessThanOrEqual(120);
		expect(delays[2]).toBeGreaterThanOrEqual(320);
		expect(delays[2]).toBeLessThanOrEqual(480);
	});
});

describe('reading service failures', () => {
	it('parses Retry-After as seconds or as an HTTP date', () => {
		expect(parseRetryAfter('3')).toBe(3000);
		expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
		expect(parseRetryAfter('soon')).toBeUndefined();
	});

	it('keeps PostgREST fields and never the request', () => {
		const failure = readServiceFailure({
			message: 'wrapped',
			cause: {
				config: {
					headers: { apikey: 'secret-key', Authorization: 'Bearer secret-token' },
					data: '{"password":"pw"}',
				},
				response: {
					status: 409,
					headers: { 'retry-after': '1' },
					data: {
						code: '23503',
						message: 'violates foreign key constraint',
						hint: null,
						details: 'Key (job_id)=(9) is not present',
					},
				},
			},
		});
		expect(failure).toEqual({
			status: 409,
			code: '23503',
			message: 'violates foreign key constraint',
			hint: undefined,
			details: 'Key (job_id)=(9) is not present',
			retryAfterMs: 1000,
		});
		expect(JSON.stringify(failure)).not.toMatch(/secret|pw/);
	});

	it('reads GoTrue and gateway bodies, and network errors', () => {
		expect(
			readServiceFailure({
				response: {
					status: 400,
					data: { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' },
				},
			}),
		).toMatchObject({
			status: 400,
			code: 'invalid_credentials',
			message: 'Invalid login credentials',
		});
		expect(
			readServiceFailure({ response: { status: 401, data: '{"message":"Invalid API key"}' } })
				.message,
		).toBe('Invalid API key');
		expect(readServiceFailure({ code: 'ECONNREFUSED' })).toEqual({
			code: 'ECONNREFUSED',
			message: 'The service could not be reached (ECONNREFUSED)',
		});
	});
});
