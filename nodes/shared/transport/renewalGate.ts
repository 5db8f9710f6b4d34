// Why: when the stored token is missing or about to expire, one request of the execution goes alone so that n8n logs in before the others send it (no 401 per request in flight).
import type { ServiceClock } from './serviceClock';

/**
 * From this long before the token's expiry, by the service's clock, requests go one at a time.
 * The service's clock is known to the second (Date header) and a request reaches it in
 * milliseconds: 5 s covers both.
 */
const RENEWAL_MARGIN_MS = 5_000;

/**
 * Expiry (ms) of an access token: undefined when there is none, Infinity when it is not a JWT
 * that can be read (then n8n's 401 handling alone decides).
 */
export function tokenExpiry(token: unknown): number | undefined {
	if (typeof token !== 'string' || token === '') return undefined;
	try {
		const payload = JSON.parse(
			Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
		) as { exp?: unknown };
		return typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
	} catch {
		return Infinity;
	}
}

/** What the request that went alone calls once answered: it reads the token n8n stored meanwhile. */
export type EndRenewal = () => Promise<void>;

/**
 * n8n logs in when the stored token is empty, and again after a 401. While no valid token is
 * known, one request goes alone (n8n logs in and stores the token) and the others wait, then
 * read the stored token. Requests of other executions that meet the same refusal share that
 * login through the credential (nodes/shared/renewal.ts).
 */
export class RenewalGate {
	/** While set, one request is renewing the token and the others wait for it. */
	private renewal: Promise<void> | undefined;

	constructor(
		private tokenExpiresAt: number | undefined,
		private readonly clock: ServiceClock,
		private readonly readStoredToken: () => Promise<unknown>,
	) {}

	/** Waits for a renewal under way; returns what the request must call when done if it goes alone. */
	async pass(): Promise<EndRenewal | undefined> {
		while (this.renewal) await this.renewal;
		// The token's `exp` is the service's time: compare it with the service's clock once known.
		if (
			this.tokenExpiresAt !== undefined &&
			this.clock.now() < this.tokenExpiresAt - RENEWAL_MARGIN_MS
		)
			return undefined;
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
