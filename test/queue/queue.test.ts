/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the pack in n8n's queue mode (Postgres, Redis, main + 2 workers), which the e2e run's single
// sqlite process cannot show: webhook executions spread over workers, an archive in database
// mode, the trigger on main, and last a worker killed mid-run (worker-kill.scenarios.ts). One
// cluster and one fresh service for them all: the scenarios tell their rows apart by email (a
// trigger running across a reset would meet reused ids).
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import {
	assertEachOnce,
	collectFinishedExecutions,
	countIds,
	insertFinishedDownloads,
	pollingEvery10s,
	triggerEmission,
	waitForTriggerPoll,
} from '../e2e/trigger-runs';
import { inspectZip, report, seconds, workflowFile, type Json } from '../e2e/suite';
import {
	CONCURRENCY,
	CREATE,
	JOB_MS,
	WAIT,
	WORKERS,
	countBy,
	dbExecutions,
	fire,
	pool,
	useCluster,
	waitExecutions,
	webhookWorkflow,
} from './cluster';
import { kill, workerKill } from './worker-kill.scenarios';

// Each worker's 10 slots filled five times over (20 calls in flight): the spread, the one job per
// call and the shared token show at 100 as at 200, for 30 s less CPU and 50 s less wall (alone:
// 82 / 164 s against 115 / 218 s).
const EXECUTIONS = 100;
const WF = {
	create: webhookWorkflow('wexQueueCreate01', 'Queue: webhook → create a job', 'wex-queue-create', [
		{ name: 'Create Job', parameters: CREATE },
	]),
	exportDownload: webhookWorkflow(
		'wexQueueExport01',
		'Queue: webhook → export, wait, download the archive',
		'wex-queue-export',
		[
			{ name: 'Export Website', parameters: { ...CREATE, ...WAIT, optionMode: 'offline' } },
			{
				name: 'Download Archive',
				parameters: {
					resource: 'download',
					operation: 'downloadArchive',
					downloadBy: 'id',
					downloadId: { __rl: true, mode: 'id', value: '={{ $json.download.id }}' },
					binaryPropertyName: 'data',
				},
			},
		],
	),
};
const trigger: Json = pollingEvery10s(workflowFile('trigger-download-ready'));

const q = useCluster([...Object.values(WF), trigger, kill]);
// The trigger's activation poll (its baseline) comes before anything is created.
beforeAll(
	() =>
		waitForTriggerPoll(
			q.service,
			0,
			60_000,
			'the trigger did not poll within 60 s of main being ready',
		),
	90_000,
);

/** How many of the executions each worker started (by its log). */
const perWorker = (ids: string[]) =>
	q.cluster.workers.map((w: Json) => ids.filter((id) => w.started().includes(id)).length);

test('queue mode is on (main + workers, binary data in database mode)', async () => {
	for (const w of q.cluster.workers)
		assert.ok(
			w.logs().some((l: Json) => /n8n worker is now ready/.test(String(l.message))),
			`worker ${w.index} log says "n8n worker is now ready"`,
		);
	assert.deepEqual(
		[
			q.cluster.env.EXECUTIONS_MODE,
			q.cluster.env.DB_TYPE,
			q.cluster.env.N8N_DEFAULT_BINARY_DATA_MODE,
		],
		['queue', 'postgresdb', 'database'],
	);
	const [{ server_version: pg }] = await q.cluster.pg.query('show server_version');
	report(
		`Postgres ${pg}, Redis :${q.cluster.redis.port}, main ready in ${seconds(q.cluster.main.startMs)}, ${WORKERS} workers --concurrency=${CONCURRENCY}`,
	);
});

test(`${EXECUTIONS} webhook executions of Job → Create on ${WORKERS} workers`, async () => {
	const skip = (await dbExecutions(q.cluster, WF.create.id)).length;
	const since = await q.service.lastSeq();
	const urls = Array.from(
		{ length: EXECUTIONS },
		(_, i) => `https://a-${i}.queue.e2e.example.com/`,
	);
	const started = Date.now();
	await pool(urls, 20, (url) =>
		fire(q.cluster, WF.create, { url, email: 'queue-a@e2e.example.com' }),
	);
	const acceptedMs = Date.now() - started;
	const executions = await waitExecutions(q.cluster, WF.create.id, EXECUTIONS, 300_000, skip);
	const wallMs = Date.now() - started;
	assert.deepEqual(
		countBy(executions, (e) => e.status),
		{ success: EXECUTIONS },
		'statuses',
	);
	const jobs = (await q.service.rows('jobs')).filter((j) => j.email === 'queue-a@e2e.example.com');
	assert.deepEqual(
		jobs.map((j) => j.url).sort(),
		urls.sort(),
		'one job per webhook call, none twice',
	);
	const counts = perWorker(executions.map((e) => e.id));
	assert.equal(
		counts.reduce((a: number, b: number) => a + b, 0),
		EXECUTIONS,
		`executions found in worker logs: ${counts}`,
	);
	assert.ok(
		counts.every((c: number) => c > 0),
		`every worker ran some: ${counts}`,
	);
	const tokens = (await q.service.log()).filter((e) => e.seq > since && e.kind === 'token');
	assert.ok(
		tokens.length <= 1 + WORKERS,
		`token requests ${tokens.length} > 1 + ${WORKERS} workers`,
	);
	const memory = q.cluster.memory();
	report(
		`all success, per worker ${counts.join(' / ')}; ${tokens.length} token request(s); accepted in ${seconds(acceptedMs)}, done in ${seconds(wallMs)} (${(EXECUTIONS / (wallMs / 1000)).toFixed(1)} executions/s); VmHWM main ${memory.main} MiB, workers ${memory.workers.map((m: number | null) => `${m} MiB`).join(' / ')}`,
	);
});

test('Job → Create + Wait for Completion + Download Archive on a worker: archive intact', async () => {
	const skip = (await dbExecutions(q.cluster, WF.exportDownload.id)).length;
	await fire(q.cluster, WF.exportDownload, {
		url: 'https://b.queue.e2e.example.com/',
		email: 'queue-b@e2e.example.com',
	});
	const [x] = await waitExecutions(q.cluster, WF.exportDownload.id, 1, 120_000, skip);
	assert.equal(x.status, 'success', `status ${x.status}`);
	const worker = q.cluster.workers.find((w: Json) => w.started().includes(x.id));
	assert.ok(worker, `execution ${x.id} not in any worker's log`);
	const run = (await q.cluster.main.execution(x.id)).data.resultData.runData;
	assert.equal(run['Export Website'][0].data.main[0][0].json.status, 'finished');
	const bin = run['Download Archive'][0].data.main[0][0].binary?.data;
	assert.match(String(bin?.id), /^database:/, `binary id ${bin?.id}`);
	const r = await q.cluster.main.request(
		'GET',
		`/rest/binary-data?id=${encodeURIComponent(bin.id)}&action=download`,
	);
	assert.equal(r.status, 200, `GET /rest/binary-data → ${r.status}`);
	const body = r.bytes;
	assert.equal(body.length, bin.bytes, 'bytes');
	const { entries } = inspectZip(body);
	assert.deepEqual(
		entries.map((e) => [e.name, e.size]),
		[
			['index.html', entries[0].size],
			['payload.bin', (await q.service.settings()).archiveBytes],
		],
	);
	report(
		`execution ${x.id} on worker ${worker.index}; ${bin.fileName} ${body.length} bytes in database mode, read back from main: CRC-32 ok`,
	);
});

test('the trigger on main emits each new download once (executions on workers)', async () => {
	const skip = (await dbExecutions(q.cluster, trigger.id)).length;
	let files = 0;
	const rows = await insertFinishedDownloads(
		q.service,
		Array.from({ length: 20 }, (_, i) => `queue-c-${i}`),
		{ email: 'queue-c@e2e.example.com', nextFiles: () => ++files, jobMs: JOB_MS },
	);
	// n8n's REST API on main, but the list from the database: it holds the workers' executions too.
	const source = {
		executions: async () => (await dbExecutions(q.cluster, trigger.id)).slice(skip),
		execution: (id: string) => q.cluster.main.execution(id) as Promise<Json>,
	};
	const emitted = new Map<string, ReturnType<typeof triggerEmission>>();
	const emittedIds = () => countIds([...emitted.values()].map((x) => x.ids));
	await n8n.waitFor(
		async () => {
			await collectFinishedExecutions(source, trigger.id, emitted, triggerEmission);
			return rows.every((d) => emittedIds().has(d.id));
		},
		{
			timeoutMs: 240_000,
			intervalMs: 2000,
			failure: () => {
				const found = rows.filter((d) => emittedIds().has(d.id)).length;
				return new Error(`after 240 s: ${found} of ${rows.length} downloads emitted`);
			},
		},
	);
	const counts = emittedIds();
	const executions = [...emitted].map(([id, x]) => ({ id, status: x.status }));
	// The jobs of the other scenarios finish too: their downloads are emitted beside these.
	const mine = new Map([...counts].filter(([id]) => rows.some((d) => d.id === id)));
	assert.deepEqual(
		[...counts].filter(([, c]) => c > 1),
		[],
		'downloads emitted more than once',
	);
	assertEachOnce(mine, rows);
	const onWorkers = perWorker(executions.map((e) => e.id));
	assert.equal(
		onWorkers.reduce((a: number, b: number) => a + b, 0),
		executions.length,
		`trigger executions on workers: ${onWorkers}`,
	);
	assert.ok(
		executions.every((e) => e.status === 'success'),
		`statuses ${JSON.stringify(countBy(executions, (e) => e.status))}`,
	);
	report(
		`${rows.length} downloads each emitted once in ${executions.length} trigger execution(s), run on workers ${onWorkers.join(' / ')}`,
	);
});

// Last: the cluster is one worker short after it.
describe('a worker killed mid-run', () => workerKill(q));
