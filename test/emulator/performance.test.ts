/* eslint-disable no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Benchmarks run 100 000-row tables through the emulator: reads must stay in the
// millisecond range. Budgets are generous multiples of what the code needs, to stay unflaky.
import { T0, call, login, rest, start } from './helpers';
import type { Emulator } from './index';

let emu: Emulator;
let token: string;
const ROWS = 100_000;
const BATCH = 1_000;

beforeAll(async () => {
	emu = await start();
	// 100 statements of 1 000 rows, one minute apart: created_at grows with id.
	for (let b = 0; b < ROWS / BATCH; b++) {
		emu.insert('jobs', Array.from({ length: BATCH }, (_, i) => ({ url: `https://site${b * BATCH + i}.example`, email: 'e@x.test', status: 'finished' })));
		emu.clock.advance(60_000);
	}
	token = await login(emu);
}, 30_000);
afterAll(() => emu.close());

/** Median wall time of `times` runs, after a few unmeasured runs to let the JIT settle. */
async function median(times: number, action: () => Promise<unknown>): Promise<number> {
	for (let i = 0; i < 5; i++) await action();
	const samples: number[] = [];
	for (let i = 0; i < times; i++) {
		const started = performance.now();
		await action();
		samples.push(performance.now() - started);
	}
	return samples.sort((a, b) => a - b)[Math.floor(times / 2)];
}

it('filters 100 000 rows on created_at in milliseconds', async () => {
	const since = new Date(T0 + 90 * 60_000).toISOString();
	const path = rest('jobs', { created_at: `gte.${since}`, select: 'id,created_at' });
	const res = await call(emu, 'GET', path, { token, headers: { prefer: 'count=exact' } });
	expect(res.headers['content-range']).toBe(`0-999/${10 * BATCH}`);
	expect(res.json[0].id).toBe(90 * BATCH + 1);
	const ms = await median(15, () => call(emu, 'GET', path, { token, headers: { prefer: 'count=exact' } }));
	console.log(`GET created_at=gte on ${ROWS} rows (count=exact, 1 000 returned): median ${ms.toFixed(1)} ms`);
	expect(ms).toBeLessThan(50);
});

it('pages newest-first without sorting', async () => {
	const path = rest('jobs', { order: 'created_at.desc', limit: '100', select: 'id' });
	const res = await call(emu, 'GET', path, { token });
	expect(res.json[0].id).toBe(ROWS);
	const ms = await median(15, () => call(emu, 'GET', path, { token }));
	console.log(`GET order=created_at.desc limit=100 on ${ROWS} rows: median ${ms.toFixed(1)} ms`);
	expect(ms).toBeLessThan(25);
});

it('finds a row by id without scanning', async () => {
	const path = rest('jobs', { id: `eq.${ROWS / 2}` });
	expect((await call(emu, 'GET', path, { token })).json).toHaveLength(1);
	const ms = await median(15, () => call(emu, 'PATCH', path, { token, body: { status: 'finished' } }));
	console.log(`PATCH id=eq on ${ROWS} rows: median ${ms.toFixed(1)} ms`);
	expect(ms).toBeLessThan(25);
});

it('returns 25 000 rows in one Return-All read', async () => {
	emu.settings.maxRows = 25_000;
	const path = rest('jobs', { limit: '25000', offset: '50000' });
	const started = performance.now();
	const res = await call(emu, 'GET', path, { token });
	const ms = performance.now() - started;
	console.log(`GET 25 000 rows (select=*): ${ms.toFixed(1)} ms, ${(res.text.length / 1e6).toFixed(1)} MB`);
	expect(res.json).toHaveLength(25_000);
	expect(res.headers['content-range']).toBe('50000-74999/*');
	expect(ms).toBeLessThan(2_000);
	emu.settings.maxRows = 1_000;
});
