// Why: one token exchange, made by the credential's preAuthentication and by the nodes' credential test alike.
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';

import { checkBaseUrl } from './baseUrl';
import { loginError, readServiceFailure, type ServiceFailure } from './serviceError';

/** A failed token request as a sentence that tells the user which field to fix. */
function loginFailureMessage(failure: ServiceFailure): string {
	if (failure.status === undefined) {
		return `${failure.message}: check the Base URL and that the service is online`;
	}
	if (/api key/i.test(failure.message)) {
		return `The API key was refused (${failure.message}): copy it again from the API section of the Website Export dashboard`;
	}
	if (failure.status === 400 || failure.status === 401 || failure.status === 403) {
		return `Login failed (${failure.message}): check the email and password of the Website Export account`;
	}
	return `Login failed: the service answered HTTP ${failure.status} (${failure.message})`;
}

/**
 * Exchanges the credential's email and password for a 1-hour bearer token
 * (`/auth/v1/token?grant_type=password`). Every failure is a loginError: its message names the
 * field to fix and holds no secret.
 */
export async function requestToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<{ baseUrl: string; accessToken: string }> {
	const baseUrl = checkBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok) throw loginError(baseUrl.reason);
	let response: { access_token?: unknown } | undefined;
	try {
		response = (await helper.helpers.httpRequest({
			method: 'POST',
			url: `${baseUrl.url}/auth/v1/token`,
			qs: { grant_type: 'password' },
			headers: { apikey: String(credentials.apiKey ?? '') },
			body: { email: credentials.email, password: credentials.password },
			json: true,
		})) as { access_token?: unknown } | undefined;
	} catch (error) {
		// A fresh error on purpose: the original one carries the request, password included.
		throw loginError(loginFailureMessage(readServiceFailure(error)));
	}
	if (typeof response?.access_token !== 'string' || !response.access_token) {
		throw loginError('Login failed: the token endpoint answered without an access token');
	}
	return { baseUrl: baseUrl.url, accessToken: response.access_token };
}
