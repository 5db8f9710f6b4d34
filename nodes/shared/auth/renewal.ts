// Why: token renewal: the requests that meet the same refused token share one login per n8n process (GoTrue rate-limits sign-ins), and while an execution knows no valid token its requests wait for one login.
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';

import { REQUEST_TIMEOUT_MS } from '../constants';
import { requestToken } from './login';

/** A request sent with the replaced token may meet its 401 until it times out, after the login began. */
const SHARED_FOR_MS = REQUEST_TIMEOUT_MS;
/** Logins remembered at once; a handful of credentials renew at the same moment in practice. */
const MAX_SHARED_LOGINS = 50;

/** Logins by credential and refused token (hashed): n8n runs preAuthentication once per refused request, in any execution. */
const sharedLogins = new Map<string, { startedAt: number; accessToken: Promise<string> }>();

/** The credential's login fields and the token it holds now: one key per credential and refusal. */
function renewalKey(credentials: ICredentialDataDecryptedObject): string {
	const { baseUrl, apiKey, email, password, accessToken } = credentials;
	const key = JSON.stringify([baseUrl, apiKey, email, password, accessToken]);
	return createHash('sha256').update(key).digest('hex');
}

/** Forgets logins older than SHARED_FOR_MS, and the oldest beyond MAX_SHARED_LOGINS (Map order is insertion order). */
function forgetStale(now: number): void {
	for (const [key, login] of sharedLogins) {
		const stale = now - login.startedAt >= SHARED_FOR_MS || sharedLogins.size >= MAX_SHARED_LOGINS;
		if (stale) sharedLogins.delete(key);
	}
}

/** A new token for `credentials`, whose token the service refused: one login per credential and refused token, a failed one shared by those waiting, then forgotten. */
export async function renewToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<string> {
	const now = Date.now();
	forgetStale(now);
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

/** Expiry (ms) of an access token: none when empty, Infinity when not a readable JWT (n8n's 401 handling decides). */
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

/** From this long before the token's expiry by the service's clock (known to the second), requests go one at a time. */
const RENEWAL_MARGIN_MS = 5_000;

/**
 * n8n logs in when the stored token is empty, and after a 401. While no valid token is known, one
 * request of the execution goes alone (n8n logs in and stores the token) and the others wait for
 * it: one login, where every request in flight would meet a 401 (or no token) and ask for one.
 */
export class RenewalGate {
	/** While set, one request is renewing the token and the others wait for it. */
	private renewal: Promise<void> | undefined;

	constructor(
		private tokenExpiresAt: number | undefined,
		private readonly serviceNow: () => number,
		private readonly readStoredToken: () => Promise<unknown>,
	) {}

	/** Waits for a renewal under way; returns what the request must call once answered if it goes alone. */
	async pass(): Promise<(() => Promise<void>) | undefined> {
		while (this.renewal) await this.renewal;
		const expiresAt = this.tokenExpiresAt; // by the service's clock, as `exp` is
		if (expiresAt !== undefined && this.serviceNow() < expiresAt - RENEWAL_MARGIN_MS) return;
		let release = () => {};
		this.renewal = new Promise<void>((resolve) => (release = resolve));
		return async () => {
			try {
				this.tokenExpiresAt = tokenExpiry(await this.readStoredToken());
			} finally {
				this.renewal = undefined;
				release();
			}
		};
	}
}
