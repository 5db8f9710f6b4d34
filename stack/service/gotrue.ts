// GoTrue (Supabase Auth) on /auth/v1: password and refresh-token grants, /user, /logout.
import type { Account } from './accounts';
import type { EmulatorCore } from './core';
import { type JwtClaims, type JwtProblem, signJwt, verifyJwt } from './jwt';
import { ApiError, type EmuRequest, type Reply, bearerToken, header, jsonReply } from './reply';

/** A request's view of the service: its state, where it listens, and the time the request came. */
interface AuthContext {
	core: EmulatorCore;
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

function userObject(account: Account): Record<string, unknown> {
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
	if (route === '/token' && req.method === 'POST') {
		const grantType = new URLSearchParams(req.query).get('grant_type');
		if (grantType === 'password') return await passwordGrant(req, ctx);
		if (grantType === 'refresh_token') return await refreshTokenGrant(req, ctx);
		// GoTrue files an unknown grant type under invalid_credentials.
		throw authError(req, 400, 'invalid_credentials', 'unsupported_grant_type');
	}
	if (route === '/user' && req.method === 'GET')
		return jsonReply(200, userObject((await authenticate(req, ctx)).account));
	if (route === '/logout' && req.method === 'POST') {
		const { account, claims } = await authenticate(req, ctx);
		const scope = new URLSearchParams(req.query).get('scope') ?? 'local';
		if (scope !== 'local' && scope !== 'global' && scope !== 'others') {
			throw authError(req, 400, 'validation_failed', `Unsupported logout scope "${scope}"`);
		}
		ctx.core.accounts.endSessions(account.id, String(claims.session_id ?? ''), scope);
		return { status: 204, headers: {} };
	}
	throw authError(req, 404, 'not_found', 'Not Found');
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
	const account = ctx.core.accounts.findByEmail(email);
	if (!account || account.password !== params.password) {
		throw authError(req, 400, 'invalid_credentials', 'Invalid login credentials');
	}
	account.lastSignInMs = ctx.nowMs;
	const { sessionId, refreshToken } = ctx.core.accounts.startSession(account.id);
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
	const issued = ctx.core.accounts.refreshToken(refreshToken);
	if (issued?.used) {
		throw authError(req, 400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
	}
	const account = issued && ctx.core.accounts.findById(issued.userId);
	if (!issued || !account) {
		throw authError(
			req,
			400,
			'refresh_token_not_found',
			'Invalid Refresh Token: Refresh Token Not Found',
		);
	}
	const rotated = ctx.core.accounts.rotate(refreshToken);
	return jsonReply(200, await session(account, issued.sessionId, rotated, ctx));
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
	const exp = iat + ctx.core.settings.tokenLifetimeSeconds;
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
		access_token: await signJwt(claims, ctx.core.secret),
		token_type: 'bearer',
		expires_in: ctx.core.settings.tokenLifetimeSeconds,
		expires_at: exp,
		refresh_token: refreshToken,
		user: userObject(account),
	};
}

/** GoTrue's words for each way a token fails verification. */
const BAD_JWT: Record<JwtProblem, string> = {
	parts: 'token is malformed: token contains an invalid number of segments',
	malformed: 'token is malformed: could not JSON decode header or claims',
	algorithm:
		'token is unverifiable: error while executing keyfunc: unrecognized JWT kid <nil> for algorithm',
	signature: 'token signature is invalid: signature is invalid',
};

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
	const verified = await verifyJwt(token, ctx.core.secret);
	if (!verified.ok) throw badJwt(BAD_JWT[verified.problem]);
	const { claims } = verified;
	if (typeof claims.exp === 'number' && claims.exp * 1000 <= ctx.nowMs)
		throw badJwt('token has invalid claims: token is expired');
	if (typeof claims.sub !== 'string' || claims.sub === '') {
		throw authError(req, 403, 'bad_jwt', 'invalid claim: missing sub claim');
	}
	const account = ctx.core.accounts.findById(claims.sub);
	if (!account)
		throw authError(req, 403, 'user_not_found', 'User from sub claim in JWT does not exist');
	return { account, claims };
}
