// Why: the requests of one credential that meet the same refused token share one login, so a burst of 401s costs one token request per n8n process (GoTrue rate-limits sign-ins).
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/**
 * How long a login answers for the token it replaced: a request sent with that token may meet
 * its 401 up to the transport's timeout (60 s) after the login began.
 */
const SHARED_FOR_MS = 60_000;

/** Logins remembered at once; a handful of credentials renew at the same moment in practice. */
const MAX_SHARED_LOGINS = 50;

interface SharedLogin {
	startedAt: number;
	accessToken: Promise<string>;
}

/**
 * Logins by credential and refused token. n8n calls a credential's preAuthentication once per
 * refused request, in whatever execution made it; this map is what makes them one login. It
 * holds hashes and pending tokens only, and never decides anything but "log in or wait".
 */
const sharedLogins = new Map<string, SharedLogin>();

/** The credential's login fields and the token it holds now, hashed: one key per credential and refusal. */
function renewalKey(credentials: ICredentialDataDecryptedObject): string {
	const fields = [
		credentials.baseUrl,
		credentials.apiKey,
		credentials.email,
		credentials.password,
		credentials.accessToken,
	];
	return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

function forgetStale(now: number): void {
	for (const [key, login] of sharedLogins) {
		if (now - login.startedAt >= SHARED_FOR_MS) sharedLogins.delete(key);
	}
	// Map order is insertion order: the oldest go first.
	for (const key of sharedLogins.keys()) {
		if (sharedLogins.size < MAX_SHARED_LOGINS) break;
		sharedLogins.delete(key);
	}
}

/**
 * The new access token for `credentials`, whose token (or its absence) the service refused: the
 * first caller runs `login`, every caller with the same credential and token within
 * SHARED_FOR_MS gets its result. A failed login is shared by the callers already waiting, then
 * forgotten, so that the next refusal tries again.
 */
export async function renewToken(
	credentials: ICredentialDataDecryptedObject,
	login: () => Promise<string>,
): Promise<string> {
	const now = Date.now();
	forgetStale(now);
	const key = renewalKey(credentials);
	const running = sharedLogins.get(key);
	if (running) return await running.accessToken;
	const accessToken = login();
	sharedLogins.set(key, { startedAt: now, accessToken });
	accessToken.catch(() => {
		if (sharedLogins.get(key)?.accessToken === accessToken) sharedLogins.delete(key);
	});
	return await accessToken;
}
