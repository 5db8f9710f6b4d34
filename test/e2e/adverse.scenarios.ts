/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: a world that is not ideal, inside real n8n (issue 9): a bad item sends nothing, a refused
// write stops the writes after it, lost answers, exact Return All while jobs are created, any
// created_at format under a non-UTC host, validity by the service's clock.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

import { ADVERSE } from './built-workflows';
import { insertFinishedDownloads } from './trigger-runs';
import { execute, outputOf, report, resetService, runOk, service } from './suite';

// Registered by editor-n8n.test.ts, inside its describe block, on its n8n.
const HOUR = 3_600_000;

/** The jobs whose URL contains `prefix`. */
const jobsLike = async (prefix: string) =>
	(await service.rows('jobs')).filter((job) => String(job.url).includes(prefix));

/** How many job creates (POST) the service received after the request `since`. */
const posts = async (since: number) =>
	(await service.log()).filter((e) => e.seq > since && e.method === 'POST' && e.table === 'jobs')
		.length;

beforeEach(() => resetService());

test('a bad 3rd item of 10 sends nothing at all (job.create)', async () => {
	const r = await execute(ADVERSE.validate.id);
	assert.equal(r.ok, false, 'the run must fail');
	assert.match(String(r.error?.message), /Email must be an email address/);
	assert.equal(await posts(0), 0, 'POST requests');
	assert.equal((await jobsLike('adv-validate')).length, 0, 'jobs created');
	report(`run failed with "${r.error?.message}"; 0 POST requests, 0 jobs`);
});

test('the service refuses the 3rd of 10 creates: nothing after it is sent (job.create)', async () => {
	const POST_JOBS = { method: 'POST', path: '/rest/v1/jobs' };
	const refusal = {
		status: 400,
		body: {
			code: '23514',
			details: null,
			hint: null,
			message: 'new row for relation "jobs" violates check constraint',
		},
	};
	// The one POST of the 10 rows is refused (nothing written), then, sent one by one, the 3rd.
	await service.fault({ match: POST_JOBS, ...refusal });
	await service.fault({ match: POST_JOBS, times: 2 });
	await service.fault({ match: POST_JOBS, ...refusal });
	const r = await execute(ADVERSE.refused.id);
	assert.equal(r.ok, false, 'the run must fail');
	assert.deepEqual(
		(await jobsLike('adv-refused')).map((job) => job.url),
		['https://adv-refused-0.e2e.example.com/', 'https://adv-refused-1.e2e.example.com/'],
		'jobs created',
	);
	assert.equal(await posts(0), 4, 'POST requests');
	report(
		`run failed at item 3 ("${r.error?.message}"); 4 POST requests (the refused chunk of 10, then one by one up to the 3rd), jobs of items 1 and 2 only`,
	);
});

test('a create and a delete whose answers were lost after the commit (job.create, job.delete)', async () => {
	await service.fault({
		match: { method: 'POST', path: '/rest/v1/jobs' },
		reset: true,
		applyAfterHandling: true,
	});
	await service.fault({
		match: { method: 'DELETE', path: '/rest/v1/jobs' },
		status: 503,
		applyAfterHandling: true,
	});
	const r = await execute(ADVERSE.lost.id);
	assert.equal(r.ok, true, `the run must succeed: ${r.error?.message}`);
	const [created] = outputOf(r, 'Website Export').map((item) => item.json);
	const [deleted] = outputOf(r, 'Delete Job').map((item) => item.json);
	assert.equal(created.recovered, true, 'the created job is marked recovered');
	assert.deepEqual([deleted.deleted, deleted.id], [true, created.id], 'the delete reports success');
	assert.equal(
		(await jobsLike('adv-lost')).length,
		0,
		'the job is gone, and was never created twice',
	);
	report(
		`job #${created.id} recovered after a reset connection; delete after a 503: { deleted: true, id: ${deleted.id} }`,
	);
});

test('Return All stays exact while jobs are created between pages (job.getAll, keyset paging)', async () => {
	const keyset = (label: string | number) => ({
		url: `https://keyset-${label}.e2e.example.com/`,
		email: 'keyset@e2e.example.com',
	});
	const seeded = await service.insert(
		'jobs',
		Array.from({ length: 70 }, (_, i) => keyset(i)),
	);
	await service.patchSettings({ maxRows: 7, latencyMs: 150 });
	let creating = true;
	let extra = 0;
	const creator = (async () => {
		for (; creating; await sleep(100)) await service.insert('jobs', [keyset(`new-${extra++}`)]);
	})();
	const since = await service.lastSeq();
	const r = await execute(ADVERSE.keyset.id).finally(() => ((creating = false), creator));
	assert.equal(r.ok, true, `run: ${r.error?.message}`);
	const ids = outputOf(r, 'Website Export').map((item) => item.json.id);
	assert.equal(new Set(ids).size, ids.length, 'no job twice');
	assert.deepEqual(
		seeded.filter((job) => !ids.includes(job.id)),
		[],
		'every seeded job returned',
	);
	const pages = (await service.log()).filter(
		(e) => e.seq > since && e.method === 'GET' && e.table === 'jobs',
	).length;
	// The end is an empty page or a short one (never a count): ⌊N / 7⌋ + 1 pages.
	assert.equal(pages, Math.floor(ids.length / 7) + 1, 'one request per 7-row page, then the end');
	report(
		`${ids.length} jobs, none twice, all 70 seeded ones; ${extra} created during the run; ${pages} GET requests = ⌊${ids.length} / 7⌋ + 1`,
	);
});

test('created_at with "+00" and without offset, n8n host in Pacific/Chatham (download.getAll)', async () => {
	const made = [];
	for (const format of ['short-offset', 'no-offset', 'epoch-ms'] as const) {
		await service.patchSettings({ downloadTimestamps: format });
		const [job] = await service.insert('jobs', [
			{ url: `https://ts-${format}.e2e.example.com/`, email: 'ts@e2e.example.com' },
		]);
		await service.advanceClock(5_000); // the job finishes: its download row is written in `format`
		made.push({ format, job });
	}
	await service.patchSettings({ downloadTimestamps: 'timestamptz' });
	await service.advanceClock(23.5 * HOUR);
	const r = await execute(ADVERSE.timestamps.id);
	assert.equal(r.ok, true, `run: ${r.error?.message}`);
	const items = outputOf(r, 'Website Export').map((item) => item.json);
	const lines = made.map(({ format, job }) => {
		const d = items.find((item) => item.job_id === job.id);
		assert.ok(d, `the download of the ${format} job is listed`);
		assert.equal(d.is_expired, false, `${format}: a 23.5-hour-old link is valid`);
		const created =
			typeof d.created_at === 'number'
				? d.created_at
				: Date.parse(
						/[Z+-]\d*:?\d*$/.test(d.created_at.slice(19))
							? d.created_at.replace(/\+00$/, '+00:00')
							: `${d.created_at}Z`,
					);
		assert.equal(
			Date.parse(d.expires_at),
			Math.floor(created) + 24 * HOUR,
			`${format}: expires_at = created_at + 24 h`,
		);
		return `${format} ${JSON.stringify(d.created_at)} → expires_at ${d.expires_at}`;
	});
	report(lines.join('; '));
});

test('valid links judged by the service clock, 23.5 h ahead of the host (download-list-valid)', async () => {
	// The seeded valid link (1 h old) is 24.5 h old by the service's clock, this one 23.5 h.
	const [fresh] = await insertFinishedDownloads(service, ['clock-fresh'], {
		email: 'clock@e2e.example.com',
		nextFiles: () => 1,
		jobMs: 2000,
	});
	await service.advanceClock(23.5 * HOUR);
	const r = await runOk('download-list-valid');
	const listed = outputOf(r, 'Get Valid Download Links').map((item) => item.json);
	assert.deepEqual(
		listed.map((d) => [d.id, d.is_expired]),
		[[fresh.id, false]],
		'only the link valid by the service clock',
	);
	assert.equal(outputOf(r, 'Download Each Archive').length, 1, 'its archive downloaded');
	report(
		`1 link listed (#${fresh.id}); the seeded one, valid by the host's clock, expired by the service's and left out`,
	);
});
