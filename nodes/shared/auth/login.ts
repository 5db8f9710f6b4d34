// Why: the one token exchange, made by the credential's preAuthentication and by the credential test alike, and the error it throws.
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';

import { LOGIN_FAILED, readServiceFailure, type ServiceFailure } from '../serviceError';
import { checkBaseUrl } from './baseUrl';

/**
 * A failed login: its message names the field to fix and holds no secret. n8n wraps it in a
 * NodeApiError, which keeps `httpCode` on n8n 1.x and 2.x alike (1.x drops the `cause`): the
 * code, not the wording, tells the transport that the login failed and nothing was sent.
 */
export const loginFailed = (message: string): Error =>
	Object.assign(new Error(message), { name: 'WebsiteExportLoginError', httpCode: LOGIN_FAILED });

/** A failed token request as a sentence that tells the user which field to fix. */
function loginFailureMessage({ status, message }: ServiceFailure): string {
	if (status === undefined) return `${message}: check the Base URL and that the service is online`;
	if (/api key/i.test(message))
		return `The API key was refused (${message}): copy it again from the API section of the Website Export dashboard`;
	if (status === 400 || status === 401 || status === 403)
		return `Login failed (${message}): check the email and password of the Website Export account`;
	return `Login failed: the service answered HTTP ${status} (${message})`;
}

/**
 * Exchanges the credential's email and password for a 1-hour bearer token
 * (`/auth/v1/token?grant_type=password`). Every failure is a `loginFailed` error.
 */
export async function requestToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<{ baseUrl: string; accessToken: string }> {
	const baseUrl = checkBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok) throw loginFailed(baseUrl.reason);
	const { email, password } = credentials;
	const response = (await helper.helpers
		.httpRequest({
			method: 'POST',
			url: `${baseUrl.url}/auth/v1/token`,
			qs: { grant_type: 'password' },
			headers: { apikey: String(credentials.apiKey ?? '') },
			body: { email, password },
			json: true,
		})
		.catch((error: unknown) => {
			// A fresh error on purpose: the original one carries the request, password included.
			throw loginFailed(loginFailureMessage(readServiceFailure(error)));
		})) as { access_token?: unknown } | undefined;
	const accessToken = response?.access_token;
	if (typeof accessToken === 'string' && accessToken) return { baseUrl: baseUrl.url, accessToken };
	throw loginFailed('Login failed: the token endpoint answered without an access token');
}
