/* eslint-disable @typescript-eslint/no-explicit-any -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
import { request } from 'undici';
import { T0, call, login, rest, start } from './helpers';
import type { Emulator } from '../../stack/service/index';

let emu: Emulator;

beforeAll(async () => {
	emu = await start();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

async function control(
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; json: any }> {
	const res = await request(`${emu.baseUrl}/__emulator${path}`, {
		method: method as 'GET',
		body: body === undefined ? undefined : JSON.stringify(body),
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
	});
	const text = await res.body.text();
	return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

describe('/__emulator control API', () => {
	it('GET / says what this is and where to go, without an apikey', async () => {
		const res = await call(emu, 'GET', '/', { apikey: null });
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(res.text).toContain('<h1>Website Export emulator</h1>');
		for (const path of [
			'/auth/v1/token?grant_type=password',
			'/rest/v1/options',
			'/__emulator/health',
		])
			expect(res.text).toContain(`${emu.baseUrl}${path}`);
	});

	it('GET /health needs no apikey', async () => {
		expect(await control('GET', '/health')).toEqual({
			status: 200,
			json: {
				ok: true,
				baseUrl: emu.baseUrl,
				apiKey: emu.apiKey,
				demoUser: { email: 'demo@example.com', password: 'demo-password' },
				freeUser: { email: 'free@example.com', password: 'free-password' },
			},
		});
	});

	it('GET/POST /clock read, advance and set the clock', async () => {
		expect((await control('GET', '/clock')).json).toEqual({ now: T0 });
		expect((await control('POST', '/clock', { advanceMs: 1500 })).json).toEqual({ now: T0 + 1500 });
		expect((await control('POST', '/clock', { setMs: T0 - 1000 })).json).toEqual({
			now: T0 - 1000,
		});
		expect(emu.clock.now()).toBe(T0 - 1000);
		expect((await control('POST', '/clock', {})).status).toBe(400);
	});

	it('POST/GET /rows/:table insert (owner by email) and list rows', async () => {
		await emu.addUser({ email: 'other@example.com', password: 'pw' });
		const created = await control('POST', '/rows/jobs', {
			rows: [{ url: 'https://a.example', email: 'a@x.test' }],
			owner: 'other@example.com',
		});
		expect(created.status).toBe(201);
		expect(created.json).toEqual([
			expect.objectContaining({
				id: 1,
				user_id: emu.userId('other@example.com'),
				status: 'queued',
			}),
		]);
		await control('POST', '/rows/options', { rows: [{ mode: 'offline', job_id: 1 }] });
		expect((await control('GET', '/rows/options')).json).toEqual([
			expect.objectContaining({ id: 1, job_id: 1, mode: 'offline' }),
		]);
		expect((await control('GET', '/rows/jobs')).json).toHaveLength(1);
		const bad = await control('POST', '/rows/jobs', {
			rows: [{ url: 'x', email: 'y', colour: 'red' }],
		});
		expect(bad).toEqual({
			status: 400,
			json: { error: "Could not find the 'colour' column of 'jobs' in the schema cache" },
		});
		expect((await control('GET', '/rows/nope')).status).toBe(400);
	});

	it('PATCH /settings validates and updates the settings', async () => {
		const res = await control('PATCH', '/settings', { maxRows: 5, latencyMs: 0 });
		expect(res.json).toEqual({
			maxRows: 5,
			tokenLifetimeSeconds: 3600,
			jobDurationMs: 3000,
			archiveBytes: 65536,
			latencyMs: 0,
			downloadDelayMs: 0,
			ignorePrefer: false,
			downloadTimestamps: 'timestamptz',
		});
		expect(
			(
				await control('PATCH', '/settings', {
					ignorePrefer: true,
					downloadTimestamps: 'epoch-ms',
					downloadDelayMs: 500,
				})
			).json,
		).toMatchObject({ ignorePrefer: true, downloadTimestamps: 'epoch-ms', downloadDelayMs: 500 });
		expect((await control('PATCH', '/settings', { downloadTimestamps: 'roman' })).status).toBe(400);
		expect((await control('PATCH', '/settings', { ignorePrefer: 1 })).status).toBe(400);
		expect(emu.settings.maxRows).toBe(5);
		expect((await control('PATCH', '/settings', { maxRows: 0 })).status).toBe(400);
		expect((await control('PATCH', '/settings', { colour: 1 })).status).toBe(400);
		expect(emu.settings.maxRows).toBe(5);
	});

	it('POST/DELETE /faults add (with pathRegex) and clear faults', async () => {
		expect(
			(
				await control('POST', '/faults', {
					match: { method: 'GET', pathRegex: '^/rest/v1/' },
					status: 503,
					retryAfter: 2,
				})
			).status,
		).toBe(201);
		await control('POST', '/faults', {
			match: { path: '/rest/v1/options' },
			status: 418,
			times: 3,
		});
		const first = await call(emu, 'GET', rest('jobs'));
		expect([first.status, first.headers['retry-after']]).toEqual([503, '2']);
		expect((await call(emu, 'GET', rest('options'))).status).toBe(418);
		await control('DELETE', '/faults');
		expect((await call(emu, 'GET', rest('options'))).status).toBe(200);
		expect((await control('POST', '/faults', { status: 42 })).status).toBe(400);
	});

	it('GET/DELETE /log return and clear the log with stats', async () => {
		await call(emu, 'GET', rest('jobs'));
		const res = await control('GET', '/log');
		expect(res.json.log).toEqual([
			expect.objectContaining({
				method: 'GET',
				path: '/rest/v1/jobs',
				status: 200,
				kind: 'rest',
				table: 'jobs',
			}),
		]);
		expect(res.json.stats).toMatchObject({ total: 1, rest: 1, byTable: { jobs: 1 } });
		await control('DELETE', '/log');
		expect((await control('GET', '/log')).json).toEqual({
			log: [],
			stats: { total: 0, token: 0, rest: 0, archive: 0, byTable: {}, byMethod: {} },
		});
	});

	it('POST /users adds an account that can log in', async () => {
		const res = await control('POST', '/users', {
			email: 'free2@example.com',
			password: 'pw',
			plan: 'free',
		});
		expect(res).toEqual({ status: 201, json: { id: emu.userId('free2@example.com') } });
		const token = await login(emu, 'free2@example.com', 'pw');
		expect((await call(emu, 'GET', rest('jobs'), { token })).status).toBe(403);
		expect(
			(await control('POST', '/users', { email: 'free2@example.com', password: 'pw' })).status,
		).toBe(400);
	});

	it('POST /reset drops rows, users, faults, log and settings changes; the clock returns to its start', async () => {
		await emu.addUser({ email: 'temp@example.com', password: 'pw' });
		await emu.insert('jobs', [{ url: 'a', email: 'a' }]);
		emu.fault({ status: 500, times: 5 });
		emu.settings.maxRows = 3;
		await emu.clock.advance(60_000);
		expect((await control('POST', '/reset')).json).toEqual({ ok: true });
		expect(await emu.count('jobs')).toBe(0);
		expect(() => emu.userId('temp@example.com')).toThrow();
		expect(emu.settings.maxRows).toBe(1000);
		expect(emu.clock.now()).toBe(T0);
		expect(emu.log).toEqual([]);
		expect((await call(emu, 'GET', rest('jobs'))).status).toBe(200);
		// Ids start again at 1; seeded users keep their ids (old tokens stay valid).
		expect(await emu.insert('jobs', [{ url: 'b', email: 'b' }])).toEqual([
			expect.objectContaining({ id: 1 }),
		]);
	});

	it('answers 404 for unknown control endpoints', async () => {
		expect((await control('GET', '/nope')).status).toBe(404);
	});
});

describe('programmatic controls', () => {
	it('insert() takes explicit ids and created_at, and moves the id sequence past them', async () => {
		const [row] = (await emu.insert('jobs', [
			{ id: 10, url: 'a', email: 'a', created_at: '2026-01-01T00:00:00Z' },
		])) as Array<{ id: number; created_at: string }>;
		expect(row).toMatchObject({ id: 10, created_at: '2026-01-01T00:00:00+00:00' });
		expect(await emu.insert('jobs', [{ url: 'b', email: 'b' }])).toEqual([
			expect.objectContaining({ id: 11 }),
		]);
		await expect(emu.insert('jobs', [{ id: 10, url: 'c', email: 'c' }])).rejects.toThrow(
			'duplicate key value violates unique constraint "jobs_pkey"',
		);
		await expect(emu.insert('options', [{ mode: 'nope' }])).rejects.toThrow(/options_mode_check/);
	});

	it('insert() of downloads makes a working link and takes the owner of the job', async () => {
		await emu.addUser({ email: 'other@example.com', password: 'pw' });
		await emu.insert('jobs', [{ url: 'https://a.example', email: 'a' }], {
			owner: 'other@example.com',
		});
		const [download] = (await emu.insert('downloads', [{ job_id: 1 }])) as Array<{
			download_link: string;
		}>;
		const archive = await request(download.download_link);
		expect(archive.statusCode).toBe(200);
		await archive.body.dump();
		const token = await login(emu, 'other@example.com', 'pw');
		expect((await call(emu, 'GET', rest('downloads'), { token })).json).toHaveLength(1);
	});

	it('rows() and count() read every owner, in id order', async () => {
		await emu.addUser({ email: 'other@example.com', password: 'pw' });
		await emu.insert('jobs', [{ url: 'a', email: 'a' }]);
		await emu.insert('jobs', [{ url: 'b', email: 'b' }], { owner: 'other@example.com' });
		expect((await emu.rows('jobs')).map((r) => (r as { url: string }).url)).toEqual(['a', 'b']);
		expect(await emu.count('jobs')).toBe(2);
		await expect(
			emu.insert('jobs', [{ url: 'c', email: 'c' }], { owner: 'ghost@example.com' }),
		).rejects.toThrow(/no user/);
	});
});
