import { request } from 'undici';
import { call, login, rest, start } from './helpers';
import { waitFor } from '../../stack/n8n/process';
import type { Emulator } from '../../stack/service/index';
import { MAX_REQUEST_LINE_BYTES } from '../../stack/service/server';

let emu: Emulator;
let token: string;

beforeAll(async () => {
	emu = await start();
});
afterAll(() => emu.close());
beforeEach(async () => {
	await emu.reset();
	token = await login(emu);
	emu.clearLog();
});

const jobs = () => call(emu, 'GET', rest('jobs'), { token });

async function elapsed(action: () => Promise<unknown>): Promise<number> {
	const started = performance.now();
	await action();
	return performance.now() - started;
}

describe('faults', () => {
	it('answers 429 with Retry-After, once by default, then normally', async () => {
		emu.fault({ match: { method: 'GET', path: '/rest/v1/jobs' }, status: 429, retryAfter: 7 });
		const limited = await jobs();
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('7');
		expect(limited.json).toEqual({
			code: '429',
			details: null,
			hint: null,
			message: 'Too Many Requests',
		});
		expect((await jobs()).status).toBe(200);
	});

	it('counts `times`, matches method and path (string or RegExp), first added first', async () => {
		emu.fault({ match: { path: /^\/rest\/v1\/(jobs|options)$/ }, status: 500, times: 2 });
		emu.fault({ match: { method: 'GET' }, status: 503, body: { message: 'maintenance' } });
		expect(
			(await call(emu, 'POST', rest('options'), { token, body: { mode: 'offline' } })).status,
		).toBe(500);
		const second = await jobs();
		expect([second.status, second.json]).toEqual([
			500,
			{ code: '500', details: null, hint: null, message: 'Internal Server Error' },
		]);
		const third = await jobs();
		expect([third.status, third.json]).toEqual([503, { message: 'maintenance' }]);
		expect((await jobs()).status).toBe(200);
		emu.fault({ match: { method: 'DELETE' }, status: 500 });
		expect((await jobs()).status).toBe(200);
		emu.clearFaults();
		expect((await call(emu, 'DELETE', rest('jobs', { id: 'eq.1' }), { token })).status).toBe(204);
	});

	it('skip lets that many matching requests pass: the fault meets the k-th', async () => {
		emu.fault({ match: { method: 'GET', path: '/rest/v1/jobs' }, status: 503, skip: 2, times: 2 });
		emu.fault({ match: { method: 'GET' }, status: 500, skip: 1 });
		await call(emu, 'POST', rest('options'), { token, body: { mode: 'offline' } });
		const statuses = [];
		for (let i = 0; i < 6; i++) statuses.push((await jobs()).status);
		// 1st passes both; 2nd passes the first, meets the second; then the first's two.
		expect(statuses).toEqual([200, 500, 503, 503, 200, 200]);
		expect(() => emu.fault({ skip: -1, status: 500 })).toThrow('skip');
	});

	it('delays (delayMs without status answers normally after the delay)', async () => {
		emu.fault({ match: { path: '/rest/v1/jobs' }, delayMs: 150 });
		let res: Awaited<ReturnType<typeof jobs>> | undefined;
		expect(await elapsed(async () => (res = await jobs()))).toBeGreaterThanOrEqual(140);
		expect(res?.status).toBe(200);
		await jobs();
		expect(emu.log.map((e) => [e.status, e.delayedMs, e.faulted])).toEqual([
			[200, 150, false],
			[200, 0, false],
		]);
	});

	it('hangs until the client gives up; reset() releases the socket', async () => {
		emu.fault({ match: { path: '/rest/v1/jobs' }, hang: true });
		await expect(
			request(`${emu.baseUrl}/rest/v1/jobs`, {
				headers: { apikey: emu.apiKey },
				signal: AbortSignal.timeout(100),
			}),
		).rejects.toMatchObject({ name: 'TimeoutError' });
		expect(emu.log.at(-1)).toMatchObject({ path: '/rest/v1/jobs', status: 0, faulted: true });
		emu.fault({ hang: true });
		const pending = request(`${emu.baseUrl}/rest/v1/jobs`, { headers: { apikey: emu.apiKey } });
		// Held once the log marks it faulted (the same turn as the hold): then reset() releases it.
		await waitFor(() => emu.log.length === 2 && emu.log[1].faulted, {
			timeoutMs: 10_000,
			intervalMs: 5,
			failure: () => new Error(`the second request was not held: ${JSON.stringify(emu.log)}`),
		});
		await emu.reset();
		await expect(pending).rejects.toThrow();
	});

	it('applyAfterHandling performs the write, then answers with the fault', async () => {
		emu.fault({
			match: { method: 'POST', path: '/rest/v1/jobs' },
			status: 502,
			applyAfterHandling: true,
		});
		const res = await call(emu, 'POST', rest('jobs'), {
			token,
			body: { url: 'https://a.example', email: 'a@x.test' },
		});
		expect(res.status).toBe(502);
		expect(await emu.rows('jobs')).toMatchObject([{ id: 1, url: 'https://a.example' }]);
		expect(emu.log.at(-1)).toMatchObject({ method: 'POST', status: 502, faulted: true });
	});

	it('afterCommit loses the answer of the first write carried out, not of a refused one', async () => {
		const post = { method: 'POST', path: '/rest/v1/options' };
		emu.fault({ match: post, status: 502, applyAfterHandling: true, afterCommit: true });
		const refused = await call(emu, 'POST', rest('options'), {
			token,
			body: { mode: 'offline', job_id: 999 },
		});
		expect(refused.status).toBe(409);
		const lost = await call(emu, 'POST', rest('options'), { token, body: { mode: 'offline' } });
		expect(lost.status).toBe(502);
		const answered = await call(emu, 'POST', rest('options'), { token, body: { mode: 'offline' } });
		expect(answered.status).toBe(201);
		expect(await emu.rows('options')).toHaveLength(2);
		expect(emu.log.map((entry) => entry.faulted)).toEqual([false, true, false]);
	});
});

describe('broken bodies', () => {
	it('contentType: a string body goes with the Content-Type given (text/plain without one)', async () => {
		const page = '<!doctype html><html><body>Maintenance</body></html>';
		emu.fault({ match: { method: 'GET' }, status: 200, body: page, contentType: 'text/html' });
		emu.fault({ match: { method: 'GET' }, status: 503, body: 'try later' });
		const html = await jobs();
		expect([html.status, html.headers['content-type'], html.text]).toEqual([
			200,
			'text/html',
			page,
		]);
		const plain = await jobs();
		expect(plain.headers['content-type']).toBe('text/plain; charset=utf-8');
	});

	it('cutAfterBytes: the request is carried out, its real answer cut after so many bytes', async () => {
		emu.fault({ match: { method: 'POST', path: '/rest/v1/jobs' }, cutAfterBytes: 20 });
		const created = await call(emu, 'POST', rest('jobs'), {
			token,
			body: { url: 'https://a.example', email: 'a@x.test' },
			headers: { prefer: 'return=representation' },
		});
		expect(created.status).toBe(201);
		expect(created.headers['content-type']).toMatch(/^application\/json/);
		expect(created.headers['content-length']).toBe('20');
		expect(created.text).toBe(JSON.stringify(await emu.rows('jobs')).slice(0, 20));
		expect(created.json).toBeUndefined();
		expect(emu.log.at(-1)).toMatchObject({ method: 'POST', status: 201, faulted: true });
		const listed = await jobs();
		expect(listed.json).toMatchObject([{ url: 'https://a.example' }]);
	});

	it('cutAfterBytes 0 leaves an empty 200 body', async () => {
		emu.fault({ match: { method: 'GET', path: '/rest/v1/jobs' }, cutAfterBytes: 0 });
		const empty = await jobs();
		expect([empty.status, empty.text, empty.headers['content-length']]).toEqual([200, '', '0']);
	});
});

describe('latency', () => {
	it('delays every non-control answer by settings.latencyMs', async () => {
		emu.settings.latencyMs = 120;
		expect(await elapsed(jobs)).toBeGreaterThanOrEqual(110);
		// A control call sent while a held-back request waits is answered first: it is never held.
		emu.settings.latencyMs = 1_000;
		const answered: string[] = [];
		const health = () => request(`${emu.baseUrl}/__emulator/health`).then((r) => r.body.dump());
		await Promise.all([
			jobs().then(() => answered.push('rest')),
			health().then(() => answered.push('control')),
		]);
		expect(answered).toEqual(['control', 'rest']);
		emu.settings.latencyMs = 0;
		await jobs();
		expect(emu.log.map((e) => e.delayedMs)).toEqual([120, 1_000, 0]);
	});
});

describe('the gateway', () => {
	it('refuses a request line over 8 KiB with 414, and takes one of exactly 8 KiB', async () => {
		const lineOf = (query: string) => `GET /rest/v1/jobs?${query} HTTP/1.1`;
		const pad = (items: number) => `url=in.(${'a,'.repeat(items)}`;
		let query = pad(4000);
		query += 'a'.repeat(MAX_REQUEST_LINE_BYTES - lineOf(query).length - 1) + ')';
		expect(lineOf(query)).toHaveLength(MAX_REQUEST_LINE_BYTES);
		expect((await call(emu, 'GET', rest(`jobs?${query}`), { token })).status).toBe(200);
		const over = await call(emu, 'GET', rest(`jobs?${query.replace('in.(', 'in.(a,')}`), { token });
		expect(over.status).toBe(414);
	});
});

describe('request log and stats', () => {
	it('records every request in order, without control requests', async () => {
		await emu.insert('jobs', [{ url: 'https://a.example', email: 'a@x.test' }]);
		const listed = await call(emu, 'GET', rest('jobs', { select: 'id' }), { token });
		await call(emu, 'POST', rest('options'), { token, body: { mode: 'offline' } });
		await call(emu, 'POST', '/auth/v1/token?grant_type=password', { body: emu.demoUser });
		await call(emu, 'GET', '/nowhere');
		await request(`${emu.baseUrl}/__emulator/log`).then((r) => r.body.dump());
		emu.fault({ status: 500 });
		await jobs();
		expect(
			emu.log.map((e) => [
				e.seq - emu.log[0].seq,
				e.method,
				e.path,
				e.status,
				e.kind,
				e.table,
				e.faulted,
			]),
		).toEqual([
			[0, 'GET', '/rest/v1/jobs', 200, 'rest', 'jobs', false],
			[1, 'POST', '/rest/v1/options', 201, 'rest', 'options', false],
			[2, 'POST', '/auth/v1/token', 200, 'token', undefined, false],
			[3, 'GET', '/nowhere', 404, 'other', undefined, false],
			[4, 'GET', '/rest/v1/jobs', 500, 'rest', 'jobs', true],
		]);
		expect(emu.log[0]).toMatchObject({
			query: 'select=id',
			responseBytes: Buffer.byteLength(listed.text),
		});
		expect(emu.log[0].at).toBe(emu.clock.now());
		expect(emu.stats()).toEqual({
			total: 5,
			token: 1,
			rest: 3,
			archive: 0,
			byTable: { jobs: 2, options: 1 },
			byMethod: { GET: 3, POST: 2 },
		});
		emu.clearLog();
		expect(emu.log).toEqual([]);
		expect(emu.stats().total).toBe(0);
	});
});
