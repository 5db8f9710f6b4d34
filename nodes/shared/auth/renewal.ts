// Why: one login for the requests that met the same refused token (GoTrue rate-limits sign-ins).
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';

import { REQUEST_TIMEOUT_MS } from '../constants';
import { loginFailed, readServiceFailure, type ServiceFailure } from '../serviceError';
import { brokenAnswer } from '../transport/answerShape';
import { checkBaseUrl } from './baseUrl';

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** A failed token request as a sentence that tells the user which field to fix. */
function loginFailureMessage({ status, message }: ServiceFailure): string {
	if (status === undefined) return `${message}: check the Base URL and that the service is online`;
	if (/api key/i.test(message))
		return (
			`The API key was refused (${message}): ` +
			'copy it again from the API section of the Website Export dashboard'
		);
	if (status === 400 || status === 401 || status === 403)
		return `Login failed (${message}): check the email and password of the Website Export account`;
	return `Login failed: the service answered HTTP ${status} (${message})`;
}

/**
 * Exchanges the credential's email and password for a 1-hour bearer token, for the credential's
 * preAuthentication and the credential test; every failure is a `loginFailed` error.
 */
export async function requestToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<{ baseUrl: string; accessToken: string }> {
	const baseUrl = checkBaseUrl(credentials.baseUrl);
	if (!baseUrl.ok) throw loginFailed(baseUrl.reason);
	const response = (await helper.helpers
		.httpRequest({
			method: 'POST',
			url: `${baseUrl.url}/auth/v1/token`,
			qs: { grant_type: 'password' },
			headers: { apikey: String(credentials.apiKey ?? '') },
			body: { email: credentials.email, password: credentials.password },
			json: true,
		})
		.catch((error: unknown) => {
			// A fresh error on purpose: the original one carries the request, password included.
			throw loginFailed(loginFailureMessage(readServiceFailure(error)));
		})) as { access_token?: unknown } | undefined;
	// A proxy's page or a cut-off body comes as a string: say what came back.
	const broken = brokenAnswer({ body: response, statusCode: 200 }, 'record');
	if (broken) throw loginFailed(`Login failed: ${lowerFirst(broken.message)}`);
	const accessToken = response?.access_token;
	if (typeof accessToken === 'string' && accessToken) return { baseUrl: baseUrl.url, accessToken };
	throw loginFailed('Login failed: the token endpoint answered without an access token');
}

/** Logins remembered at once; a handful of credentials renew at the same moment in practice. */
const MAX_SHARED_LOGINS = 50;

/**
 * Logins by credential and refused token (hashed), one map per n8n process: n8n runs
 * preAuthentication once per refused request, in any execution.
 */
const sharedLogins = new Map<string, { startedAt: number; accessToken: Promise<string> }>();

/**
 * The credential's login fields and the token it holds now: one key per account and refusal (two
 * credentials of one account holding the same token, or none yet, share the login).
 */
function renewalKey(credentials: ICredentialDataDecryptedObject): string {
	const { baseUrl, apiKey, email, password, accessToken } = credentials;
	const key = JSON.stringify([baseUrl, apiKey, email, password, accessToken]);
	return createHash('sha256').update(key).digest('hex');
}

/**
 * A new token for `credentials`, whose token the service refused: one login per credential and
 * refused token, a failed one shared by those waiting, then forgotten.
 */
export async function renewToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<string> {
	const now = Date.now();
	// A login is shared while a request sent with the token it replaced may meet its 401 (until that
	// request times out); beyond MAX_SHARED_LOGINS the oldest go (a Map keeps insertion order).
	for (const [old, login] of sharedLogins)
		if (now - login.startedAt >= REQUEST_TIMEOUT_MS || sharedLogins.size >= MAX_SHARED_LOGINS)
			sharedLogins.delete(old);
	const key = renewalKey(credentials);
	const running = sharedLogins.get(key);
	if (running) return await running.accessToken;
	const accessToken = requestToken(helper, credentials).then((login) => login.accessToken);
	sharedLogins.set(key, { startedAt: now, accessToken });
	accessToken.catch(() => {
		if (sharedLogins.get(key)?.accessToken === accessToken) sharedLogins.delete(key);
	});
	return await accessToken;
}

/**
 * Expiry (ms) of an access token: none when empty, Infinity when not a readable JWT (n8n's 401
 * handling decides).
 */
export function tokenExpiry(token: unknown): number | undefined {
	if (typeof token !== 'string' || token === '') return undefined;
	try {
		const payload = Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8');
		const { exp } = JSON.parse(payload) as { exp?: unknown };
		return typeof exp === 'number' ? exp * 1000 : Infinity;
	} catch {
		return Infinity;
	}
}
