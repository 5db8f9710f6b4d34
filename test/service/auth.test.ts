import { verifyJwt } from '../../stack/service/jwt';
import { DEFAULT_API_KEY, JWT_SECRET } from '../../stack/service/core';
import { T0, call, login, start } from './helpers';
import type { Emulator } from '../../stack/service/index';

let emu: Emulator;

beforeAll(async () => {
	emu = await start({ tokenLifetimeSeconds: 600 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const tokenPath = '/auth/v1/token?grant_type=password';

/** GoTrue's error body in its default (pre-2024-01-01) format. */
const goTrueError = (code: number, errorCode: string, msg: string) => ({
	code,
	error_code: errorCode,
	msg,
});

/** Trades a refresh token for a new session. */
const refresh = (refreshToken: string) =>
	call(emu, 'POST', '/auth/v1/token?grant_type=refresh_token', {
		body: { refresh_token: refreshToken },
	});

describe('gateway (Kong key-auth)', () => {
	it('refuses a request without apikey', async () => {
		const res = await call(emu, 'GET', '/rest/v1/jobs', { apikey: null });
		expect(res.status).toBe(401);
		expect(res.json).toEqual({
			message: 'No API key found in request',
			hint: 'No `apikey` request header or url param was found.',
		});
	});

	it('refuses a wrong key, also on /auth/v1', async () => {
		for (const path of ['/rest/v1/jobs', tokenPath]) {
			const res = await call(emu, 'POST', path, { apikey: 'nope', body: {} });
			expect(res.status).toBe(401);
			expect(res.json).toEqual({
				message: 'Invalid API key',
				hint: 'Double check your Supabase `anon` or `service_role` API key.',
			});
		}
	});

	it('accepts the key as an apikey query parameter and hides it from PostgREST', async () => {
		const res = await call(emu, 'GET', `/rest/v1/jobs?apikey=${emu.apiKey}`, { apikey: null });
		expect(res.status).toBe(200);
		expect(res.json).toEqual([]);
	});

	it('answers unknown routes like Kong, before any key check', async () => {
		const res = await call(emu, 'GET', '/nothing/here', { apikey: null });
		expect(res.status).toBe(404);
		expect(res.json).toEqual({ message: 'no Route matched with those values' });
	});

	it('answers CORS preflights without a key', async () => {
		const res = await call(emu, 'OPTIONS', '/rest/v1/jobs', {
			apikey: null,
			headers: {
				origin: 'http://app.test',
				'access-control-request-method': 'POST',
				'access-control-request-headers': 'apikey,authorization',
			},
		});
		expect(res.status).toBe(200);
		expect(res.headers['access-control-allow-origin']).toBe('http://app.test');
		expect(res.headers['access-control-allow-headers']).toBe('apikey,authorization');
		expect(res.headers['access-control-allow-methods']).toContain('PATCH');
	});
});

describe('POST /auth/v1/token?grant_type=password', () => {
	it('issues a GoTrue session with a real HS256 JWT', async () => {
		const res = await call(emu, 'POST', tokenPath, {
			body: { email: 'demo@example.com', password: 'demo-password' },
		});
		expect(res.status).toBe(200);
		const body = res.json;
		expect(body).toMatchObject({
			token_type: 'bearer',
			expires_in: 600,
			expires_at: Math.floor(T0 / 1000) + 600,
		});
		expect(body.refresh_token).toMatch(/^[a-z0-9]{12}$/);
		expect(body.user).toMatchObject({
			id: emu.userId('demo@example.com'),
			aud: 'authenticated',
			role: 'authenticated',
			email: 'demo@example.com',
			app_metadata: { provider: 'email', providers: ['email'] },
			user_metadata: {},
		});
		expect(typeof body.user.created_at).toBe('string');
		expect(typeof body.user.updated_at).toBe('string');
		const verified = await verifyJwt(body.access_token, JWT_SECRET);
		expect(verified.ok && verified.claims).toMatchObject({
			sub: body.user.id,
			role: 'authenticated',
			email: 'demo@example.com',
			aud: 'authenticated',
			iat: Math.floor(T0 / 1000),
			exp: body.expires_at,
		});
		expect(await verifyJwt(body.access_token, 'another secret')).toEqual({
			ok: false,
			problem: 'signature',
		});
	});

	it("uses Supabase's published anon key: role anon, signed with the demo secret", async () => {
		expect(await verifyJwt(DEFAULT_API_KEY, JWT_SECRET)).toEqual({
			ok: true,
			claims: { iss: 'supabase-demo', role: 'anon', exp: 1983812996 },
		});
	});

	it('gives GoTrue error bodies', async () => {
		const cases: Array<[unknown, number, object]> = [
			[
				{ email: 'demo@example.com', password: 'wrong' },
				400,
				goTrueError(400, 'invalid_credentials', 'Invalid login credentials'),
			],
			[
				{ email: 'nobody@example.com', password: 'x' },
				400,
				goTrueError(400, 'invalid_credentials', 'Invalid login credentials'),
			],
			[
				{ email: 'demo@example.com' },
				400,
				goTrueError(400, 'invalid_credentials', 'Invalid login credentials'),
			],
			[
				{ password: 'demo-password' },
				400,
				goTrueError(400, 'validation_failed', 'missing email or phone'),
			],
			['{not json', 400, { code: 400, error_code: 'bad_json' }],
			[
				{ email: 'demo@example.com', phone: '+15550100', password: 'x' },
				400,
				goTrueError(
					400,
					'validation_failed',
					'Only an email address or phone number should be provided on login.',
				),
			],
			[
				{ phone: '+15550100', password: 'x' },
				422,
				goTrueError(422, 'phone_provider_disabled', 'Phone logins are disabled'),
			],
		];
		for (const [body, status, expected] of cases) {
			const res = await call(emu, 'POST', tokenPath, { body });
			expect(res.status).toBe(status);
			expect(res.json).toMatchObject(expected);
			expect(res.headers['x-sb-error-code']).toBe((expected as { error_code: string }).error_code);
		}
	});

	it('refuses an unknown grant type', async () => {
		const res = await call(emu, 'POST', '/auth/v1/token?grant_type=magic', { body: {} });
		expect(res.status).toBe(400);
		expect(res.json).toEqual(goTrueError(400, 'invalid_credentials', 'unsupported_grant_type'));
	});

	it('answers in the 2024-01-01 error format when the client asks for it', async () => {
		const res = await call(emu, 'POST', tokenPath, {
			body: { email: 'demo@example.com', password: 'wrong' },
			headers: { 'x-supabase-api-version': '2024-01-01' },
		});
		expect(res.status).toBe(400);
		expect(res.json).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
		expect(res.headers['x-supabase-api-version']).toBe('2024-01-01');
	});

	it('logs in users added at run time, email case-insensitively', async () => {
		const { id } = await emu.addUser({ email: 'New@Example.com', password: 'pw-123456' });
		const res = await call(emu, 'POST', tokenPath, {
			body: { email: 'new@example.COM', password: 'pw-123456' },
		});
		expect(res.status).toBe(200);
		expect(res.json.user.id).toBe(id);
		await expect(emu.addUser({ email: 'new@example.com', password: 'x' })).rejects.toThrow(
			/already exists/,
		);
	});
});

describe('refresh tokens', () => {
	it('rotates: a refresh token works once', async () => {
		const first = (await call(emu, 'POST', tokenPath, { body: emu.demoUser })).json;
		await emu.clock.advance(1000);
		const refreshed = await refresh(first.refresh_token);
		expect(refreshed.status).toBe(200);
		expect(refreshed.json.refresh_token).not.toBe(first.refresh_token);
		expect(refreshed.json.expires_at).toBe(first.expires_at + 1);
		const again = await refresh(first.refresh_token);
		expect(again.status).toBe(400);
		expect(again.json).toEqual(
			goTrueError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
		);
	});

	it('refuses unknown and malformed refresh tokens', async () => {
		const unknown = await refresh('abcdefabcdef');
		expect(unknown.json).toEqual(
			goTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
		);
		const short = await refresh('abc');
		expect(short.json).toEqual(goTrueError(400, 'validation_failed', 'Refresh token is not valid'));
	});
});

describe('GET /auth/v1/user and logout', () => {
	it('returns the user of a valid token', async () => {
		const token = await login(emu);
		const res = await call(emu, 'GET', '/auth/v1/user', { token });
		expect(res.status).toBe(200);
		expect(res.json).toMatchObject({
			id: emu.userId('demo@example.com'),
			email: 'demo@example.com',
			aud: 'authenticated',
		});
	});

	it('refuses missing, forged and expired tokens with GoTrue bodies', async () => {
		const none = await call(emu, 'GET', '/auth/v1/user');
		expect(none.status).toBe(401);
		expect(none.json).toEqual(
			goTrueError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
		);
		const token = await login(emu);
		const forged = await call(emu, 'GET', '/auth/v1/user', { token: `${token.slice(0, -4)}AAAA` });
		expect(forged.status).toBe(403);
		expect(forged.json).toMatchObject({ code: 403, error_code: 'bad_jwt' });
		expect(forged.json.msg).toMatch(/^invalid JWT: unable to parse or verify signature, /);
		await emu.clock.advance(601_000);
		const expired = await call(emu, 'GET', '/auth/v1/user', { token });
		expect(expired.status).toBe(403);
		expect(expired.json.msg).toBe(
			'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired',
		);
		const anonKey = await call(emu, 'GET', '/auth/v1/user', { token: emu.apiKey });
		expect(anonKey.json).toEqual(goTrueError(403, 'bad_jwt', 'invalid claim: missing sub claim'));
	});

	it.each([
		[
			'a token of two segments',
			(token: string) => token.split('.').slice(0, 2).join('.'),
			'token is malformed: token contains an invalid number of segments',
		],
		[
			'a token whose claims were changed',
			(token: string) => `${token.split('.')[0]}.bm90IGpzb24.${token.split('.')[2]}`,
			'token signature is invalid: signature is invalid',
		],
		[
			'a token of another algorithm',
			(token: string) =>
				`${Buffer.from('{"alg":"HS512","typ":"JWT"}').toString('base64url')}.${token.split('.').slice(1).join('.')}`,
			'token is unverifiable: error while executing keyfunc: unrecognized JWT kid <nil> for algorithm',
		],
		[
			'a forged signature',
			(token: string) => `${token.slice(0, -4)}AAAA`,
			'token signature is invalid: signature is invalid',
		],
	])('names %s as GoTrue does', async (_, spoil, reason) => {
		const token = spoil(await login(emu));
		const answer = await call(emu, 'GET', '/auth/v1/user', { token });
		expect(answer.json).toEqual(
			goTrueError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${reason}`),
		);
	});

	it('logout ends the session: its refresh token stops working', async () => {
		const session = (await call(emu, 'POST', tokenPath, { body: emu.demoUser })).json;
		const badScope = await call(emu, 'POST', '/auth/v1/logout?scope=everything', {
			token: session.access_token,
		});
		expect([badScope.status, badScope.json.error_code]).toEqual([400, 'validation_failed']);
		expect(
			(await call(emu, 'POST', '/auth/v1/logout', { token: session.access_token })).status,
		).toBe(204);
		const res = await refresh(session.refresh_token);
		expect(res.json.error_code).toBe('refresh_token_not_found');
	});
});

// The real PostgREST (12.0.2) checks the tokens; these pin its answers and the service clock's part.
describe('PostgREST JWT checks', () => {
	it('PGRST301 for a bad signature or shape', async () => {
		const token = await login(emu);
		const bad = await call(emu, 'GET', '/rest/v1/jobs', { token: `${token.slice(0, -4)}AAAA` });
		expect(bad.status).toBe(401);
		expect(bad.json).toEqual({
			code: 'PGRST301',
			details: null,
			hint: null,
			message: 'JWSError JWSInvalidSignature',
		});
		const parts = await call(emu, 'GET', '/rest/v1/jobs', { token: 'abc' });
		expect(parts.json).toEqual({
			code: 'PGRST301',
			details: null,
			hint: null,
			message: 'JWSError (CompactDecodeError Invalid number of parts: Expected 3 parts; got 1)',
		});
	});

	it('PGRST301 once the token expired by the service clock (clock.advance)', async () => {
		const token = await login(emu);
		await emu.clock.advance(590_000);
		expect((await call(emu, 'GET', '/rest/v1/jobs', { token })).status).toBe(200);
		await emu.clock.advance(45_000);
		const res = await call(emu, 'GET', '/rest/v1/jobs', { token });
		expect(res.status).toBe(401);
		expect(res.json).toEqual({
			code: 'PGRST301',
			details: null,
			hint: null,
			message: 'JWT expired',
		});
		expect(res.headers['www-authenticate']).toBe(
			'Bearer error="invalid_token", error_description="JWT expired"',
		);
	});

	it('refuses every /rest/v1 call of a Free-plan account with 403', async () => {
		const token = await login(emu, 'free@example.com', 'free-password');
		for (const [method, path] of [
			['GET', '/rest/v1/jobs'],
			['POST', '/rest/v1/options'],
			['DELETE', '/rest/v1/jobs?id=eq.1'],
		]) {
			const res = await call(emu, method, path, {
				token,
				body: method === 'POST' ? { mode: 'offline' } : undefined,
			});
			expect(res.status).toBe(403);
			expect(res.json).toEqual({
				code: '42501',
				details: null,
				hint: 'Upgrade the account to the Business plan in the dashboard to use the API.',
				message: 'An active Business plan subscription is required to use the API',
			});
		}
	});
});
