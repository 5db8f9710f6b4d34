// GoTrue (Supabase Auth) on /auth/v1: password and refresh-token grants, /user, /logout.
import type { Account, Accounts } from './accounts';
import { type JwtClaims, signJwt, verifyJwt } from './jwt';
import {
	ApiError,
	type EmuRequest,
	type Reply,
	bearerToken,
	emptyReply,
	header,
	jsonReply,
} from './reply';
import type { Settings } from './types';

export interface AuthContext {
	accounts: Accounts;
	settings: Settings;
	secret: string;
	baseUrl: string;
	nowMs: number;
}

const API_VERSION_HEADER = 'x-supabase-api-version';

/** Clients sending `X-Supabase-Api-Version: 2024-01-01` or later get `{code, message}` errors. */
function usesVersionedErrors(req: EmuRequest): boolean {
	const version = header(req, API_VERSION_HEADER);
	return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= '2024-01-01';
}

function authError(req: EmuRequest, status: number, errorCode: string, msg: string): ApiError {
	const headers: Record<string, string> = { 'x-sb-error-code': errorCode };
	if (usesVersionedErrors(req)) {
		headers[API_VERSION_HEADER] = '2024-01-01';
		return new ApiError(status, { code: errorCode, message: msg }, headers);
	}
	return new ApiError(status, { code: status, error_code: errorCode, msg }, headers);
}

/** Go's time.Time JSON: RFC 3339 with the fraction's trailing zeros dropped. */
function goTime(ms: number): string {
	return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

export function userObject(account: Account): Record<string, unknown> {
	const created = goTime(account.createdMs);
	return {
		id: account.id,
		aud: 'authenticated',
		role: 'authenticated',
		email: account.email,
		email_confirmed_at: created,
		phone: '',
		confirmed_at: created,
		last_sign_in_at: account.lastSignInMs === undefined ? undefined : goTime(account.lastSignInMs),
		app_metadata: { provider: 'email', providers: ['email'] },
		user_metadata: {},
		identities: [],
		created_at: created,
		updated_at: goTime(account.lastSignInMs ?? account.createdMs),
		is_anonymous: false,
	};
}

export async function handleAuth(req: EmuRequest, ctx: AuthContext): Promise<Reply> {
	const route = req.path.slice('/auth/v1'.length);
	if (route === '/token' && req.method === 'POST') return await token(req, ctx);
	if (route === '/user' && req.method === 'GET')
		return jsonReply(200, userObject((await authenticate(req, ctx)).account));
	if (route === '/logout' && req.method === 'POST') {
		const { account, claims } = await authenticate(req, ctx);
		const scope = new URLSearchParams(req.query).get('scope') ?? 'local';
		if (scope !== 'local' && scope !== 'global' && scope !== 'others') {
			throw authError(req, 400, 'validation_failed', `Unsupported logout scope "${scope}"`);
		}
		ctx.accounts.endSessions(account.id, String(claims.session_id ?? ''), scope);
		return emptyReply(204);
	}
	throw authError(req, 404, 'not_found', 'Not Found');
}

async function token(req: EmuRequest, ctx: AuthContext): Promise<Reply> {
	const grantType = new URLSearchParams(req.query).get('grant_type') ?? '';
	if (grantType === 'password') return await passwordGrant(req, ctx);
	if (grantType === 'refresh_token') return await refreshTokenGrant(req, ctx);
	// GoTrue files an unknown grant type under invalid_credentials.
	throw authError(req, 400, 'invalid_credentials', 'unsupported_grant_type');
}

/** grant_type=password: an email address (phone logins are off) and its password start a session. */
async function passwordGrant(req: EmuRequest, ctx: AuthContext): Promise<Reply> {
	const params = jsonBody(req);
	const email = typeof params.email === 'string' ? params.email : '';
	const phone = typeof params.phone === 'string' ? params.phone : '';
	if (email && phone) {
		throw authError(
			req,
			400,
			'validation_failed',
			'Only an email address or phone number should be provided on login.',
		);
	}
	if (phone) throw authError(req, 422, 'phone_provider_disabled', 'Phone logins are disabled');
	if (!email) throw authError(req, 400, 'validation_failed', 'missing email or phone');
	const account = ctx.accounts.findByEmail(email);
	if (!account || account.password !== params.password) {
		throw authError(req, 400, 'invalid_credentials', 'Invalid login credentials');
	}
	account.lastSignInMs = ctx.nowMs;
	const { sessionId, refreshToken } = ctx.accounts.startSession(account.id);
	return jsonReply(200, await session(account, sessionId, refreshToken, ctx));
}

/** grant_type=refresh_token: a refresh token is used once, and rotated into a new session token. */
async function refreshTokenGrant(req: EmuRequest, ctx: AuthContext): Promise<Reply> {
	const params = jsonBody(req);
	const refreshToken = typeof params.refresh_token === 'string' ? params.refresh_token : '';
	if (
		refreshToken.length < 12 ||
		(refreshToken.length === 12 && !/^[a-z0-9]{12}$/.test(refreshToken))
	) {
		throw authError(req, 400, 'validation_failed', 'Refresh token is not valid');
	}
	const rotated = ctx.accounts.rotate(refreshToken);
	const account = rotated.ok ? ctx.accounts.findById(rotated.userId) : undefined;
	if (!rotated.ok && rotated.reason === 'already_used') {
		throw authError(req, 400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
	}
	if (!rotated.ok || !account) {
		throw authError(
			req,
			400,
			'refresh_token_not_found',
			'Invalid Refresh Token: Refresh Token Not Found',
		);
	}
	return jsonReply(200, await session(account, rotated.sessionId, rotated.refreshToken, ctx));
}

/** The request's JSON object body (anything else counts as empty); unparsable JSON is GoTrue's bad_json. */
function jsonBody(req: EmuRequest): Record<string, unknown> {
	try {
		const parsed: unknown = JSON.parse(req.body.toString('utf8'));
		return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
	} catch (error) {
		throw authError(
			req,
			400,
			'bad_json',
			`Could not parse request body as JSON: ${(error as Error).message}`,
		);
	}
}

async function session(
	account: Account,
	sessionId: string,
	refreshToken: string,
	ctx: AuthContext,
): Promise<Record<string, unknown>> {
	const iat = Math.floor(ctx.nowMs / 1000);
	const exp = iat + ctx.settings.tokenLifetimeSeconds;
	const claims: JwtClaims = {
		aud: 'authenticated',
		exp,
		iat,
		iss: `${ctx.baseUrl}/auth/v1`,
		sub: account.id,
		email: account.email,
		phone: '',
		app_metadata: { provider: 'email', providers: ['email'] },
		user_metadata: {},
		role: 'authenticated',
		aal: 'aal1',
		amr: [{ method: 'password', timestamp: iat }],
		session_id: sessionId,
		is_anonymous: false,
	};
	return {
		access_token: await signJwt(claims, ctx.secret),
		token_type: 'bearer',
		expires_in: ctx.settings.tokenLifetimeSeconds,
		expires_at: exp,
		refresh_token: refreshToken,
		user: userObject(account),
	};
}

/** GoTrue's requireAuthentication: a valid, unexpired JWT of an existing user. */
async function authenticate(
	req: EmuRequest,
	ctx: AuthContext,
): Promise<{ account: Account; claims: JwtClaims }> {
	const token = bearerToken(req);
	if (!token)
		throw authError(req, 401, 'no_authorization', 'This endpoint requires a valid Bearer token');
	const badJwt = (reason: string) =>
		authError(req, 403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${reason}`);
	const verified = await verifyJwt(token, ctx.secret);
	if (!verified.ok) {
		if (verified.problem === 'parts')
			throw badJwt('token is malformed: token contains an invalid number of segments');
		if (verified.problem === 'malformed')
			throw badJwt('token is malformed: could not JSON decode header or claims');
		if (verified.problem === 'algorithm')
			throw badJwt(
				'token is unverifiable: error while executing keyfunc: unrecognized JWT kid <nil> for algorithm',
			);
		throw badJwt('token signature is invalid: signature is invalid');
	}
	const { claims } = verified;
	if (typeof claims.exp === 'number' && claims.exp * 1000 <= ctx.nowMs)
		throw badJwt('token has invalid claims: token is expired');
	if (typeof claims.sub !== 'string' || claims.sub === '') {
		throw authError(req, 403, 'bad_jwt', 'invalid claim: missing sub claim');
	}
	const account = ctx.accounts.findById(claims.sub);
	if (!account)
		throw authError(req, 403, 'user_not_found', 'User from sub claim in JWT does not exist');
	return { account, claims };
}
