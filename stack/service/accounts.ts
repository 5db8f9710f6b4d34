// User accounts, sessions and refresh tokens (GoTrue's state).
import { createHmac } from 'node:crypto';
import type { Plan } from './types';

export interface Account {
	id: string;
	email: string;
	password: string;
	plan: Plan;
	createdMs: number;
	lastSignInMs?: number;
}

interface RefreshToken {
	userId: string;
	sessionId: string;
	/** GoTrue rotates on every use; a used token is refused with `refresh_token_already_used`. */
	used: boolean;
}

export const DEMO_USER = { email: 'demo@example.com', password: 'demo-password' } as const;
export const FREE_USER = { email: 'free@example.com', password: 'free-password' } as const;

/** Deterministic pseudo-random hex, so ids and tokens repeat from run to run. */
function derivedHex(secret: string, label: string): string {
	return createHmac('sha256', secret).update(label).digest('hex');
}

/** A version-4-shaped UUID derived from a label. */
function derivedUuid(secret: string, label: string): string {
	const h = derivedHex(secret, label);
	const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export class Accounts {
	private readonly byEmail = new Map<string, Account>();
	private readonly refreshTokens = new Map<string, RefreshToken>();
	private counter = 0;

	constructor(private readonly secret: string) {}

	add(input: { email: string; password: string; plan?: Plan }, nowMs: number): Account {
		const email = input.email.trim().toLowerCase();
		if (!email || typeof input.password !== 'string')
			throw new Error('addUser needs an email and a password');
		if (this.byEmail.has(email)) throw new Error(`a user with the email ${email} already exists`);
		if (input.plan !== undefined && input.plan !== 'business' && input.plan !== 'free') {
			throw new Error(`unknown plan ${String(input.plan)} (business or free)`);
		}
		const account: Account = {
			// The id depends on the email only: tokens of seeded users stay valid across reset().
			id: derivedUuid(this.secret, `user:${email}`),
			email,
			password: input.password,
			plan: input.plan ?? 'business',
			createdMs: nowMs,
		};
		this.byEmail.set(email, account);
		return account;
	}

	findByEmail(email: string): Account | undefined {
		return this.byEmail.get(email.trim().toLowerCase());
	}

	findById(id: string): Account | undefined {
		return [...this.byEmail.values()].find((account) => account.id === id);
	}

	/** Starts a session; answers its id and its first refresh token. */
	startSession(userId: string): { sessionId: string; refreshToken: string } {
		const sessionId = derivedUuid(this.secret, `session:${++this.counter}`);
		return { sessionId, refreshToken: this.issueRefreshToken(userId, sessionId) };
	}

	/** What a refresh token was issued for, unless a logout dropped it. */
	refreshToken(token: string): Readonly<RefreshToken> | undefined {
		return this.refreshTokens.get(token);
	}

	/** Rotates a refresh token: the old one becomes used, a new one of the same session is issued. */
	rotate(token: string): string {
		const entry = this.refreshTokens.get(token);
		if (!entry || entry.used) throw new Error('only an unused refresh token rotates');
		entry.used = true;
		return this.issueRefreshToken(entry.userId, entry.sessionId);
	}

	/** Logout: drops the refresh tokens of one session, of all the user's sessions, or of the others. */
	endSessions(userId: string, sessionId: string, scope: 'local' | 'global' | 'others'): void {
		for (const [token, entry] of this.refreshTokens) {
			if (entry.userId !== userId) continue;
			const same = entry.sessionId === sessionId;
			if (scope === 'global' || (scope === 'local' && same) || (scope === 'others' && !same)) {
				this.refreshTokens.delete(token);
			}
		}
	}

	clear(): void {
		this.byEmail.clear();
		this.refreshTokens.clear();
	}

	private issueRefreshToken(userId: string, sessionId: string): string {
		// GoTrue's legacy format: 12 lowercase alphanumerics.
		const token = BigInt(`0x${derivedHex(this.secret, `refresh:${++this.counter}`).slice(0, 16)}`)
			.toString(36)
			.padStart(12, '0')
			.slice(-12);
		this.refreshTokens.set(token, { userId, sessionId, used: false });
		return token;
	}
}
