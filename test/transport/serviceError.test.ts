// n8n 1.x's NodeApiError drops an Error `cause`: the failure is read from what its constructor
// copied (httpCode, the body in context.data, the message), and a login error by its code.
import type { INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { checkBaseUrl } from '../../nodes/shared/auth/baseUrl';
import { loginFailed, readServiceFailure } from '../../nodes/shared/serviceError';

/** A NodeApiError as n8n 1.x leaves it: no cause, the answer's body in context.data. */
const flattened = (fields: Record<string, unknown>) =>
	Object.assign(new Error(String(fields.message ?? '')), {
		cause: undefined,
		context: {},
		...fields,
	});

/** The NodeApiError that n8n's httpRequestWithAuthentication throws around a failed preAuthentication. */
const wrappedByN8n = (error: Error) =>
	new NodeApiError({ name: 'Website Export', type: 'websiteExport' } as INode, error as never);

describe('readServiceFailure on n8n 1.x errors (no cause)', () => {
	it("reads the status and the service's own words from httpCode and context.data", () => {
		const error = flattened({
			message: 'Forbidden - perhaps check your credentials?',
			httpCode: '403',
			context: {
				data: {
					code: '42501',
					message: 'An active Business plan is required',
					hint: 'Upgrade the plan',
					details: null,
				},
			},
		});
		expect(readServiceFailure(error)).toEqual({
			status: 403,
			code: '42501',
			message: 'An active Business plan is required',
			hint: 'Upgrade the plan',
			details: undefined,
		});
	});

	it('knows a login error by its code, inside the NodeApiError n8n wraps it in', () => {
		const message =
			'Login failed (Invalid login credentials): check the email and password of the Website Export account';
		expect(readServiceFailure(wrappedByN8n(loginFailed(message)))).toEqual({
			message,
			login: true,
		});
	});

	it.each([
		'Login failed: the service answered HTTP 503 (Service Unavailable)',
		'The API key was refused (Invalid API key): copy it again from the API section of the Website Export dashboard',
		// NodeApiError rewords a message that names a network error: the code still tells.
		'The service could not be reached (ECONNREFUSED): check the Base URL and that the service is online',
		...['', 'not a url', 'http://example.com', 'https://example.com/?q=1'].map((raw) => {
			const check = checkBaseUrl(raw);
			return check.ok ? 'unexpected' : check.reason;
		}),
	])('knows every kind of login error by its code once the cause is dropped: %s', (message) => {
		const flat = wrappedByN8n(loginFailed(message));
		Object.defineProperty(flat, 'cause', { value: undefined }); // as n8n 1.x's error classes leave it
		expect(readServiceFailure(flat)).toEqual({ message, login: true });
	});

	it("does not take an error in the login's words for a login error", () => {
		const message = 'Login failed (Invalid login credentials): check the email and password';
		expect(readServiceFailure(flattened({ message, httpCode: null })).login).toBeUndefined();
	});

	it('reads a network error code from the message', () => {
		expect(
			readServiceFailure(
				flattened({ message: 'connect ECONNREFUSED 127.0.0.1:9', httpCode: null }),
			),
		).toEqual({
			code: 'ECONNREFUSED',
			message: 'The service could not be reached (ECONNREFUSED)',
		});
	});
});
