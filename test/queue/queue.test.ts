/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the pack in n8n's queue mode (Postgres, Redis, main + 2 workers), which the e2e run's single
// sqlite process cannot show: webhook executions spread over workers, an archive in database
// mode, the trigger on main, a worker killed mid-run (early, then replaced: the tests after it
// run on the whole cluster, so none depends on their order). One fresh service for the file: the
// scenarios tell their rows apart by email (a trigger running across a reset would meet reused ids).
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import * as queue from '../../stack/n8n/queue';
import * as services from '../../stack/n8n/services';
import { startServiceProcess, type ServiceProcess } from '../../stack/service/launch';
import { chainedWorkflow, type ChainedNode } from '../e2e/built-workflows';
import {
	assertEachOnce,
	collectFinishedExecutions,
	countIds,
	insertFinishedDownloads,
	triggerEmission,
	waitForTriggerPoll,
} from '../e2e/trigger-runs';
import {
	REPO,
	saveActiveWithCredential,
	credentialsFor,
	inspectZip,
	report,
	seconds,
	workflowFile,
	type Json,
} from '../e2e/suite';

const EXECUTIONS = 200;
const WORKERS = 2;
const CONCURRENCY = 10;
const KILL_RUNS = 10;
const JOB_MS = 3000;
const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

/** Webhook (POST /webhook/<path>) → Website Export nodes, one after another. */
function webhookWorkflow(id: string, name: string, path: string, chained: ChainedNode[]): Json {
	const webhook = {
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		id: `${id}-webhook`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 300],
		webhookId: `${id}-0000-4000-8000-0000000000ff`.slice(-36),
	};
	return chainedWorkflow(id, name, [webhook], chained);
}
const create = {
	resource: 'job',
	operation: 'create',
	url: '={{ $json.body.url }}',
	email: '={{ $json.body.email }}',
};
const wait = { waitForCompletion: true, timeout: 120, pollInterval: 1 };
const WF = {
	create: webhookWorkflow('wexQueueCreate01', 'Queue: webhook → create a job', 'wex-queue-create', [
		{ name: 'Create Job', parameters: create },
	]),
	exportDownload: webhookWorkflow(
		'wexQueueExport01',
		'Queue: webhook → export, wait, download the archive',
		'wex-queue-export',
		[
			{ name: 'Export Website', parameters: { ...create, ...wait, optionMode: 'offline' } },
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
	kill: webhookWorkflow(
		'wexQueueKill0001',
		'Queue: webhook → create a job and wait (a worker is killed meanwhile)',
		'wex-queue-kill',
		[{ name: 'Create And Wait', parameters: { ...create, ...wait } }],
	),
};
const trigger: Json = workflowFile('trigger-download-ready');

type Cluster = Awaited<ReturnType<typeof queue.startCluster>> & {
	pg: { query(sql: string): Promise<Array<Record<string, unknown>>> };
};
let service: ServiceProcess;
let cluster: Cluster;
const cleanup: Array<() => unknown> = [];

const workflows = [...Object.values(WF), trigger];

beforeAll(async () => {
	const [, pack] = await Promise.all([n8n.provision(), n8n.packPackage(REPO)]);
	cleanup.push(pack.dispose);
	await services.ensurePackages();
	// Whatever of Postgres and Redis started, also when the cluster did not.
	cleanup.push(() => services.stopAll());
	const uf = await n8n.makeUserFolder({ tarball: pack.tarball });
	cleanup.push(uf.cleanup);
	service = await startServiceProcess({ jobMs: JOB_MS });
	cleanup.push(() => service.stop());
	cluster = (await queue.startCluster({
		userFolder: uf.userFolder,
		workers: WORKERS,
		concurrency: CONCURRENCY,
	})) as Cluster;
	cleanup.push(() => cluster.stop());
	await saveOnMain();
	// The trigger's activation poll (its baseline) comes before anything is created.
	await waitForTriggerPoll(
		service,
		0,
		60_000,
		'the trigger did not poll within 60 s of main being ready',
	);
}, 15 * 60_000);
afterAll(async () => {
	await n8n.killActiveRuns().catch(() => undefined);
	for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
});

/**
 * The credential and the workflows saved and activated on main as the editor does (no boot of
 * n8n's command line): each workflow takes the ids n8n gives it and its credential.
 */
async function saveOnMain(): Promise<void> {
	const [{ name, type, data }] = credentialsFor(service);
	const saved = await saveActiveWithCredential(cluster.main, { name, type, data }, workflows);
	saved.forEach((created, index) => (workflows[index].id = created.id));
}

/** Executions of a workflow in Postgres. */
async function dbExecutions(workflowId: string) {
	const rows = await cluster.pg.query(
		`select id, status, mode from execution_entity where "workflowId" = '${workflowId}' order by id`,
	);
	return rows.map((row) => ({
		id: String(row.id),
		status: String(row.status),
		mode: String(row.mode),
	}));
}
function countBy<T>(list: T[], key: (item: T) => string): Record<string, number> {
	const m: Record<string, number> = {};
	for (const x of list) m[key(x)] = (m[key(x)] ?? 0) + 1;
	return m;
}
/** Waits until the workflow has `count` finished executions (after `skip` older ones). */
async function waitExecutions(workflowId: string, count: number, timeoutMs: number, skip = 0) {
	let all: Array<{ id: string; status: string }> = [];
	return n8n.waitFor(
		async () => {
			all = (await dbExecutions(workflowId)).slice(skip);
			return all.filter((e) => DONE.has(e.status)).length >= count && all;
		},
		{
			timeoutMs,
			intervalMs: 500,
			failure: () =>
				new Error(
					`timed out: ${JSON.stringify(countBy(all, (e) => e.status))} executions of ${workflowId}, ${count} wanted`,
				),
		},
	);
}
/** POSTs to a webhook of main; throws unless n8n accepted it. */
async function fire(workflow: Json, body: Json): Promise<void> {
	const pathName = workflow.nodes[0].parameters.path;
	const r = await n8n.httpRequest('POST', `${cluster.main.baseUrl}/webhook/${pathName}`, { body });
	if (r.status !== 200)
		throw new Error(`POST /webhook/${pathName} → ${r.status} ${r.text.slice(0, 300)}`);
}
/** Runs fn over items with at most `limit` in flight. */
async function pool<T>(
	items: T[],
	limit: number,
	fn: (item: T) => Promise<unknown>,
): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(limit, items.length) }, async () => {
			while (next < items.length) await fn(items[next++]);
		}),
	);
}
/** How many of the executions each worker started (by its log). */
const perWorker = (ids: string[]) =>
	cluster.workers.map((w: Json) => ids.filter((id) => w.started().includes(id)).length);

test('queue mode is on (main + workers, binary data in database mode)', async () => {
	for (const w of cluster.workers)
		assert.ok(
			w.logs().some((l: Json) => /n8n worker is now ready/.test(String(l.message))),
			`worker ${w.index} log says "n8n worker is now ready"`,
		);
	assert.deepEqual(
		[cluster.env.EXECUTIONS_MODE, cluster.env.DB_TYPE, cluster.env.N8N_DEFAULT_BINARY_DATA_MODE],
		['queue', 'postgresdb', 'database'],
	);
	const [{ server_version: pg }] = await cluster.pg.query('show server_version');
	report(
		`Postgres ${pg}, Redis :${cluster.redis.port}, main ready in ${seconds(cluster.main.startMs)}, ${WORKERS} workers --concurrency=${CONCURRENCY}`,
	);
});

test(`a worker SIGKILLed during ${KILL_RUNS} Wait-for-Completion runs: no job doubled`, async () => {
	const skip = (await dbExecutions(WF.kill.id)).length;
	const victim = cluster.workers[cluster.workers.length - 1];
	const before = new Set(victim.started());
	const startedEarlier = new Set(cluster.workers.flatMap((w: Json) => w.started()));
	const jobsOfRuns = async () =>
		(await service.rows('jobs')).filter((j) => j.email === 'queue-d@e2e.example.com');
	const urls = Array.from({ length: KILL_RUNS }, (_, i) => `https://d-${i}.queue.e2e.example.com/`);
	await pool(urls, KILL_RUNS, (url) => fire(WF.kill, { url, email: 'queue-d@e2e.example.com' }));
	await n8n.waitFor(() => victim.started().some((id: string) => !before.has(id)), {
		timeoutMs: 30_000,
		intervalMs: 50,
		failure: () => new Error(`worker ${victim.index} started none of the runs`),
	});
	// Each run creates its job first: once every run started so far has one, kill the worker while
	// its runs wait for their jobs to finish (JOB_MS).
	await n8n.waitFor(
		async () => {
			const runs = cluster.workers
				.flatMap((w: Json) => w.started())
				.filter((id: string) => !startedEarlier.has(id));
			return (await jobsOfRuns()).length >= runs.length;
		},
		{ timeoutMs: 30_000, intervalMs: 50, failure: () => new Error('the runs created no jobs') },
	);
	const held: string[] = victim.started().filter((id: string) => !before.has(id));
	const killedAt = Date.now();
	victim.kill('SIGKILL');
	await victim.whenExited;
	const all = await waitExecutions(WF.kill.id, KILL_RUNS, 120_000, skip);
	const settledMs = Date.now() - killedAt;
	// A quiet time for a negative (no create arrives late), not a wait for an event.
	await n8n.sleep(JOB_MS + 1000);
	const jobs = await jobsOfRuns();
	assert.deepEqual(
		Object.entries(countBy(jobs, (j) => j.url)).filter(([, c]) => c > 1),
		[],
		'jobs created twice',
	);
	assert.ok(jobs.length <= KILL_RUNS, `jobs ${jobs.length}`);
	const status = (mine: boolean) =>
		JSON.stringify(
			countBy(
				all.filter((e) => held.includes(e.id) === mine),
				(e) => e.status,
			),
		);
	report(
		`worker ${victim.index} held ${held.length} execution(s) when killed: n8n reports ${status(true)} ${seconds(settledMs)} after the kill; the others ${status(false)}; ${jobs.length} jobs for ${KILL_RUNS} runs, none twice`,
	);
	// The cluster as the other tests know it, whichever runs after this one: a worker in its place.
	cluster.workers[cluster.workers.indexOf(victim)] = await queue.startWorker({
		env: cluster.env,
		index: victim.index,
		concurrency: CONCURRENCY,
		logFile: `${victim.logFile}.restarted`,
	});
});

test(`${EXECUTIONS} webhook executions of Job → Create on ${WORKERS} workers`, async () => {
	const skip = (await dbExecutions(WF.create.id)).length;
	const since = await service.lastSeq();
	const urls = Array.from(
		{ length: EXECUTIONS },
		(_, i) => `https://a-${i}.queue.e2e.example.com/`,
	);
	const started = Date.now();
	await pool(urls, 20, (url) => fire(WF.create, { url, email: 'queue-a@e2e.example.com' }));
	const acceptedMs = Date.now() - started;
	const executions = await waitExecutions(WF.create.id, EXECUTIONS, 300_000, skip);
	const wallMs = Date.now() - started;
	assert.deepEqual(
		countBy(executions, (e) => e.status),
		{ success: EXECUTIONS },
		'statuses',
	);
	const jobs = (await service.rows('jobs')).filter((j) => j.email === 'queue-a@e2e.example.com');
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
	const tokens = (await service.log()).filter((e) => e.seq > since && e.kind === 'token');
	assert.ok(
		tokens.length <= 1 + WORKERS,
		`token requests ${tokens.length} > 1 + ${WORKERS} workers`,
	);
	const memory = cluster.memory();
	report(
		`all success, per worker ${counts.join(' / ')}; ${tokens.length} token request(s); accepted in ${seconds(acceptedMs)}, done in ${seconds(wallMs)} (${(EXECUTIONS / (wallMs / 1000)).toFixed(1)} executions/s); VmHWM main ${memory.main} MiB, workers ${memory.workers.map((m: number | null) => `${m} MiB`).join(' / ')}`,
	);
});

test('Job → Create + Wait for Completion + Download Archive on a worker: archive intact', async () => {
	const skip = (await dbExecutions(WF.exportDownload.id)).length;
	await fire(WF.exportDownload, {
		url: 'https://b.queue.e2e.example.com/',
		email: 'queue-b@e2e.example.com',
	});
	const [x] = await waitExecutions(WF.exportDownload.id, 1, 120_000, skip);
	assert.equal(x.status, 'success', `status ${x.status}`);
	const worker = cluster.workers.find((w: Json) => w.started().includes(x.id));
	assert.ok(worker, `execution ${x.id} not in any worker's log`);
	const run = (await cluster.main.execution(x.id)).data.resultData.runData;
	assert.equal(run['Export Website'][0].data.main[0][0].json.status, 'finished');
	const bin = run['Download Archive'][0].data.main[0][0].binary?.data;
	assert.match(String(bin?.id), /^database:/, `binary id ${bin?.id}`);
	const r = await cluster.main.request(
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
			['payload.bin', (await service.settings()).archiveBytes],
		],
	);
	report(
		`execution ${x.id} on worker ${worker.index}; ${bin.fileName} ${body.length} bytes in database mode, read back from main: CRC-32 ok`,
	);
});

test('the trigger on main emits each new download once (executions on workers)', async () => {
	const skip = (await dbExecutions(trigger.id)).length;
	let files = 0;
	const rows = await insertFinishedDownloads(
		service,
		Array.from({ length: 20 }, (_, i) => `queue-c-${i}`),
		{ email: 'queue-c@e2e.example.com', nextFiles: () => ++files, jobMs: JOB_MS },
	);
	// n8n's REST API on main, but the list from the database: it holds the workers' executions too.
	const source = {
		executions: async () => (await dbExecutions(trigger.id)).slice(skip),
		execution: (id: string) => cluster.main.execution(id) as Promise<Json>,
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
