/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AdmZip from 'adm-zip';
import { request } from 'undici';
import { T0, call, login, rest, start } from './helpers';
import type { Emulator } from '../../stack/service/index';

let emu: Emulator;
let token: string;

beforeAll(async () => {
	emu = await start({ jobDurationMs: 10_000, archiveBytes: 200_000 });
});
afterAll(() => emu.close());
beforeEach(async () => {
	await emu.reset();
	token = await login(emu);
});

async function createJob(url: string): Promise<number> {
	const res = await call(emu, 'POST', rest('jobs'), {
		token,
		body: { url, email: 'me@x.test' },
		headers: { prefer: 'return=representation' },
	});
	return res.json[0].id as number;
}

async function job(id: number): Promise<{ status: string; files: number }> {
	return (await call(emu, 'GET', rest('jobs', { id: `eq.${id}` }), { token })).json[0];
}

const downloads = async () =>
	(await call(emu, 'GET', rest('downloads'), { token })).json as Array<{
		id: number;
		job_id: number;
		created_at: string;
		download_link: string;
	}>;

interface ZipFile {
	name: string;
	data: Buffer;
	crc: number;
}

/** The entries of a ZIP archive, read by adm-zip, which checks every CRC-32; all stored (method 0). */
function readZip(zip: Buffer): ZipFile[] {
	return new AdmZip(zip).getEntries().map((entry) => {
		expect(entry.header.method).toBe(0);
		return { name: entry.entryName, data: entry.getData(), crc: entry.header.crc };
	});
}

describe('job lifecycle', () => {
	it('goes queued → running → finished with the clock and creates exactly one download', async () => {
		const id = await createJob('https://www.example.com/docs');
		expect(await job(id)).toMatchObject({ status: 'queued', files: 0 });
		await emu.clock.advance(1_999);
		expect((await job(id)).status).toBe('queued');
		await emu.clock.advance(1);
		expect((await job(id)).status).toBe('running');
		await emu.clock.advance(7_999);
		expect((await job(id)).status).toBe('running');
		expect(await downloads()).toEqual([]);
		await emu.clock.advance(1);
		const finished = await job(id);
		expect(finished.status).toBe('finished');
		expect(finished.files).toBeGreaterThanOrEqual(1);
		const rows = await downloads();
		expect(rows).toHaveLength(1);
		expect(rows[0]).toMatchObject({ id: 1, job_id: id });
		expect(Date.parse(rows[0].created_at)).toBe(T0 + 10_000);
		expect(rows[0].download_link).toMatch(
			new RegExp(`^${emu.baseUrl}/storage/v1/object/public/exports/[0-9a-f]{32}\\.zip$`),
		);
		await emu.clock.advance(60_000);
		expect(await downloads()).toHaveLength(1);
		expect(await emu.count('downloads')).toBe(1);
	});

	it('fails jobs whose host is under .invalid, without a download', async () => {
		const id = await createJob('https://broken.invalid/page');
		await emu.clock.advance(10_000);
		expect(await job(id)).toMatchObject({ status: 'failed', files: 0 });
		expect(await downloads()).toEqual([]);
	});

	it('jumps straight to the final state when the clock jumps, dating the download at the finish', async () => {
		const a = await createJob('https://a.example');
		await emu.clock.advance(5_000);
		const b = await createJob('https://b.example');
		await emu.clock.advance(3_600_000);
		expect([(await job(a)).status, (await job(b)).status]).toEqual(['finished', 'finished']);
		const rows = await downloads();
		expect(rows.map((d) => d.job_id)).toEqual([a, b]);
		expect(rows.map((d) => Date.parse(d.created_at))).toEqual([T0 + 10_000, T0 + 15_000]);
	});

	it('respects a status set by PATCH; PATCH to finished adds the download row once', async () => {
		const cancelled = await createJob('https://c.example');
		const done = await createJob('https://d.example');
		await call(emu, 'PATCH', rest('jobs', { id: `eq.${cancelled}` }), {
			token,
			body: { status: 'cancelled' },
		});
		await emu.clock.advance(1_000);
		await call(emu, 'PATCH', rest('jobs', { id: `eq.${done}` }), {
			token,
			body: { status: 'finished' },
		});
		expect((await downloads()).map((d) => [d.job_id, Date.parse(d.created_at)])).toEqual([
			[done, T0 + 1_000],
		]);
		await emu.clock.advance(20_000);
		expect((await job(cancelled)).status).toBe('cancelled');
		expect(await downloads()).toHaveLength(1);
	});

	it('moves jobs when the clock moves through the control API too', async () => {
		const id = await createJob('https://e.example');
		const res = await request(`${emu.baseUrl}/__emulator/clock`, {
			method: 'POST',
			body: JSON.stringify({ advanceMs: 10_000 }),
		});
		expect((await res.body.json()) as object).toEqual({ now: T0 + 10_000 });
		expect(await emu.rows('jobs')).toMatchObject([{ id, status: 'finished' }]);
	});
});

describe('archive links', () => {
	async function finishedLink(): Promise<string> {
		await createJob('https://www.example.com');
		await emu.clock.advance(10_000);
		return (await downloads())[0].download_link;
	}

	it('serve a valid zip without apikey: index.html and the payload, CRC-32 correct', async () => {
		const link = await finishedLink();
		const res = await request(link);
		expect(res.statusCode).toBe(200);
		expect(res.headers['content-type']).toBe('application/zip');
		const zip = Buffer.from(await res.body.arrayBuffer());
		expect(Number(res.headers['content-length'])).toBe(zip.length);
		const files = readZip(zip);
		expect(files.map((f) => [f.name, f.data.length])).toEqual([
			['index.html', files[0].data.length],
			['payload.bin', 200_000],
		]);
		expect(files[0].data.toString()).toContain('https://www.example.com');
		const dir = mkdtempSync(join(tmpdir(), 'wex-zip-'));
		try {
			writeFileSync(join(dir, 'a.zip'), zip);
			// Info-ZIP's own check, when the machine has it.
			const { execa } = await import('execa');
			const unzip = await execa('unzip', ['-t', join(dir, 'a.zip')], { reject: false });
			if (unzip.code !== 'ENOENT') expect(unzip.stdout).toContain('No errors detected');
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('answer HEAD with the length and no body', async () => {
		const link = await finishedLink();
		const res = await request(link, { method: 'HEAD' });
		expect(res.statusCode).toBe(200);
		expect(Number(res.headers['content-length'])).toBeGreaterThan(200_000);
		expect(await res.body.text()).toBe('');
	});

	it('stop serving 24 h after the job finished; the record stays', async () => {
		const link = await finishedLink();
		await emu.clock.advance(24 * 3_600_000 - 1);
		const stillThere = await request(link);
		expect(stillThere.statusCode).toBe(200);
		await stillThere.body.dump();
		await emu.clock.advance(1);
		const gone = await request(link);
		expect(gone.statusCode).toBe(400);
		expect(await gone.body.json()).toEqual({
			statusCode: '404',
			error: 'not_found',
			message: 'Object not found',
		});
		token = await login(emu);
		expect(await downloads()).toHaveLength(1);
		const unknown = await request(`${emu.baseUrl}/storage/v1/object/public/exports/nothing.zip`);
		expect(unknown.statusCode).toBe(400);
		await unknown.body.dump();
	});

	it('follow settings.archiveBytes', async () => {
		emu.settings.archiveBytes = 0;
		const link = await finishedLink();
		const files = readZip(Buffer.from(await (await request(link)).body.arrayBuffer()));
		expect(files[1]).toMatchObject({ name: 'payload.bin', crc: 0 });
		expect(files[1].data.length).toBe(0);
	});
});
