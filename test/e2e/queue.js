#!/usr/bin/env node
'use strict';
// Why: proves the pack in n8n's queue mode (Postgres, Redis, main + workers), which run.js's single sqlite process cannot show.
/**
 * The queue-mode end-to-end suite: n8n 2.41.1 with EXECUTIONS_MODE=queue, Postgres (the
 * emulator's embedded one) and Redis (Debian's package), private throwaway instances on loopback
 * (stack/n8n/services.js), one
 * main process and 2 workers (stack/n8n/queue.js), this pack installed in the shared user
 * folder, the Website Export emulator.
 *
 *   npm run test:queue                       # = node test/e2e/queue.js
 *   node test/e2e/queue.js --executions 200 --workers 2 --concurrency 10 --keep
 *
 * (a) N webhook executions that each create one job (Job → Create), spread over the workers:
 *     N jobs in the emulator, none twice; token requests ≤ 1 + workers; executions per worker.
 * (b) Job → Create with Wait for Completion, then Download Archive, on a worker: the archive
 *     (binary data in `database` mode, read back over REST from main) is a valid ZIP (CRC-32).
 * (c) The Website Export Trigger, active on main, emits each new download (those of (a) and
 *     (b)) exactly once while the executions run on the workers.
 * (d) A worker SIGKILLed while it runs Wait-for-Completion executions: no job is created twice;
 *     what n8n reports for the executions it held is printed.
 * Prints the figures (executions, per-worker counts, token requests, wall time, VmHWM of main
 * and workers), one line per check, last line "N passed, N failed". Stops everything it started
 * and removes its temp dirs, also on failure (--keep keeps the user folder with the logs).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const n8n = require('../../stack/n8n/lib');
const queue = require('../../stack/n8n/queue');
const services = require('../../stack/n8n/services');
const { startServiceProcess } = require('../../stack/service/launch');
const { waitForTriggerPoll } = require('./trigger-runs');
const { REPO, check, elapsed, note, report, runSuite, seconds } = require('./suite');
const { inspectZip } = require('./zip');

const PACKAGE = 'n8n-nodes-website-export';
const NODE_TYPE = `${PACKAGE}.websiteExport`;
const JOB_MS = 3000;
const SUITE_TIMEOUT_MS = 20 * 60 * 1000;

/**
 * A numeric command-line option `--name N`.
 * @param {string} name
 * @param {number} dflt
 */
function arg(name, dflt) {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const EXECUTIONS = arg('executions', 200);
const WORKERS = arg('workers', 2);
const CONCURRENCY = arg('concurrency', 10);
const KILL_RUNS = arg('kill-runs', 10);
const KEEP = process.argv.includes('--keep');

/**
 * GET with a cookie, body as a Buffer (lib.httpRequest decodes text).
 * @param {string} url
 * @param {string} cookie
 * @returns {Promise<{ status: number | undefined, headers: import('node:http').IncomingHttpHeaders, body: Buffer }>}
 */
function getBuffer(url, cookie) {
	return new Promise((resolve, reject) => {
		http
			.get(url, { headers: cookie ? { cookie } : {} }, (res) => {
				/** @type {Buffer[]} */
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () =>
					resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
				);
			})
			.on('error', reject);
	});
}

/**
 * Runs fn over items with at most `limit` in flight.
 * @template T, R
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T, index: number) => Promise<R>} fn
 * @returns {Promise<R[]>}
 */
async function pool(items, limit, fn) {
	let next = 0;
	const results = new Array(items.length);
	await Promise.all(
		Array.from({ length: Math.min(limit, items.length) }, async () => {
			while (next < items.length) {
				const i = next++;
				results[i] = await fn(items[i], i);
			}
		}),
	);
	return results;
}

// ---------------------------------------------------------------------------------------------
// workflows

const CREDENTIAL = {
	websiteExportApi: { id: 'website-export-demo', name: 'Website Export (local emulator)' },
};
const webhookNode = (/** @type {string} */ id, /** @type {string} */ pathName) => ({
	parameters: { httpMethod: 'POST', path: pathName, responseMode: 'onReceived', options: {} },
	id: `${id}-0000-4000-8000-000000000001`,
	name: 'Webhook',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	position: [0, 0],
	webhookId: `${id}-0000-4000-8000-0000000000ff`,
});
/** @type {(id: string, name: string, params: Json, position: number[]) => Json} */
const exportNode = (id, name, params, position) => ({
	parameters: params,
	id,
	name,
	type: NODE_TYPE,
	typeVersion: 2,
	position,
	credentials: CREDENTIAL,
});
const chain = (/** @type {string[]} */ ...names) =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((n, i) => [n, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);

const WF = {
	create: {
		id: 'wexQueueCreate01',
		name: 'Queue: webhook → create a job',
		path: 'wex-queue-create',
		nodes: [
			webhookNode('b1f0e001', 'wex-queue-create'),
			exportNode(
				'b1f0e001-0000-4000-8000-000000000002',
				'Create Job',
				{
					resource: 'job',
					operation: 'create',
					url: '={{ $json.body.url }}',
					email: '={{ $json.body.email }}',
				},
				[250, 0],
			),
		],
		connections: chain('Webhook', 'Create Job'),
	},
	exportDownload: {
		id: 'wexQueueExport01',
		name: 'Queue: webhook → export, wait, download the archive',
		path: 'wex-queue-export',
		nodes: [
			webhookNode('b1f0e002', 'wex-queue-export'),
			exportNode(
				'b1f0e002-0000-4000-8000-000000000002',
				'Export Website',
				{
					resource: 'job',
					operation: 'create',
					url: '={{ $json.body.url }}',
					email: '={{ $json.body.email }}',
					optionMode: 'offline',
					waitForCompletion: true,
					timeout: 120,
					pollInterval: 1,
				},
				[250, 0],
			),
			exportNode(
				'b1f0e002-0000-4000-8000-000000000003',
				'Download Archive',
				{
					resource: 'download',
					operation: 'downloadArchive',
					downloadBy: 'id',
					downloadId: { __rl: true, mode: 'id', value: '={{ $json.download.id }}' },
					binaryPropertyName: 'data',
				},
				[500, 0],
			),
		],
		connections: chain('Webhook', 'Export Website', 'Download Archive'),
	},
	kill: {
		id: 'wexQueueKill0001',
		name: 'Queue: webhook → create a job and wait (a worker is killed meanwhile)',
		path: 'wex-queue-kill',
		nodes: [
			webhookNode('b1f0e003', 'wex-queue-kill'),
			exportNode(
				'b1f0e003-0000-4000-8000-000000000002',
				'Create And Wait',
				{
					resource: 'job',
					operation: 'create',
					url: '={{ $json.body.url }}',
					email: '={{ $json.body.email }}',
					waitForCompletion: true,
					timeout: 120,
					pollInterval: 1,
				},
				[250, 0],
			),
		],
		connections: chain('Webhook', 'Create And Wait'),
	},
};

// ---------------------------------------------------------------------------------------------

/** @typedef {import('./types').Json} Json */
/**
 * ctx once the stack is up (startStack): the emulator and the cluster are there.
 * @typedef {Awaited<ReturnType<typeof queue.startCluster>>} Cluster
 * @typedef {{ emu: import('./types').Emulator, cluster: Cluster & { pg: { query(sql: string): Promise<Record<string, unknown>[]> } } }} Started
 *   (the suite lets the cluster start its own Postgres, which answers queries)
 */

/**
 * What the suite started and measured, for the steps and for `finish`.
 * @type {{
 *   emu: import('./types').Emulator | null,
 *   uf: Json,
 *   cluster: Cluster | null,
 *   packDir: string | null,
 *   figures?: Json,
 *   memory?: Json,
 *   kill?: Json,
 *   killTimeout?: string,
 *   bJob?: Json,
 *   triggerCache?: Map<string, Json>,
 * }}
 */
const ctx = { emu: null, uf: null, cluster: null, packDir: null };

/**
 * Executions of a workflow in Postgres: [{ id, status, mode }].
 * @param {string} workflowId
 * @returns {Promise<{ id: string, status: string, mode: string }[]>}
 */
async function dbExecutions(workflowId) {
	const rows = await /** @type {Started} */ (ctx).cluster.pg.query(
		`select id, status, mode from execution_entity where "workflowId" = '${workflowId}' order by id`,
	);
	return rows.map((row) => ({
		id: String(row.id),
		status: String(row.status),
		mode: String(row.mode),
	}));
}
const DONE = new Set(['success', 'error', 'crashed', 'canceled']);
/**
 * Waits until the workflow has `count` executions (finished ones unless `settled` is false).
 * @param {string} workflowId
 * @param {number} count
 * @param {number} timeoutMs
 * @param {{ settled?: boolean }} [options]
 */
async function waitExecutions(workflowId, count, timeoutMs, { settled = true } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const all = await dbExecutions(workflowId);
		const done = all.filter((e) => DONE.has(e.status));
		if ((settled ? done.length : all.length) >= count) return all;
		if (Date.now() > deadline)
			throw new Error(
				`timed out: ${done.length}/${count} executions of ${workflowId} done (${all.length} in all; statuses ${JSON.stringify(countBy(all, (e) => e.status))})`,
			);
		await n8n.sleep(500);
	}
}
/**
 * How many items of the list have each key.
 * @template T
 * @param {T[]} list
 * @param {(item: T) => string} key
 */
function countBy(list, key) {
	/** @type {Record<string, number>} */
	const m = {};
	for (const x of list) m[key(x)] = (m[key(x)] || 0) + 1;
	return m;
}
/**
 * POSTs to a webhook of main; throws unless n8n accepted it (200).
 * @param {string} pathName
 * @param {Json} body
 */
async function fire(pathName, body) {
	const r = await n8n.httpRequest(
		'POST',
		`${/** @type {Started} */ (ctx).cluster.main.baseUrl}/webhook/${pathName}`,
		{
			body,
			timeoutMs: 60000,
		},
	);
	if (r.status !== 200)
		throw new Error(`POST /webhook/${pathName} → ${r.status} ${r.text.slice(0, 300)}`);
	return r;
}
/** How many of the executions each worker started (by its log). */
const perWorker = (/** @type {string[]} */ ids) =>
	/** @type {Started} */ (ctx).cluster.workers.map((w) => {
		const s = new Set(w.started());
		return ids.filter((id) => s.has(id)).length;
	});
const tokenRequests = async () =>
	(await /** @type {Started} */ (ctx).emu.log()).filter((e) => e.kind === 'token');

/**
 * n8n, the package, the emulator, then the queue-mode cluster (Postgres, Redis, main, workers)
 * with the credential and workflows imported; resolves to the trigger workflow.
 * @returns {Promise<Json>}
 */
async function startStack() {
	const [p, tarball] = await Promise.all([n8n.provision(), n8n.packPackage(REPO)]);
	setTimeout(() => {
		report(
			false,
			'suite',
			`still running ${SUITE_TIMEOUT_MS / 60000} min after provisioning: stopped`,
		);
		void end();
	}, SUITE_TIMEOUT_MS).unref();
	ctx.packDir = path.dirname(tarball);
	const svc = await services.ensurePackages();
	ctx.uf = await n8n.makeUserFolder({ tarball });
	ctx.emu = await startServiceProcess({ jobMs: JOB_MS });
	const emu = ctx.emu;
	const trigger = JSON.parse(
		fs.readFileSync(path.join(REPO, 'examples/trigger-download-ready.json'), 'utf8'),
	);
	const [template] = JSON.parse(
		fs.readFileSync(path.join(REPO, 'examples/credentials/website-export-emulator.json'), 'utf8'),
	);
	const login = {
		baseUrl: emu.baseUrl,
		apiKey: emu.apiKey,
		email: emu.demoUser.email,
		password: emu.demoUser.password,
	};

	const t0 = Date.now();
	ctx.cluster = await queue.startCluster({
		userFolder: ctx.uf.userFolder,
		workers: WORKERS,
		concurrency: CONCURRENCY,
		beforeStart: async (env) => {
			await n8n.importCredentials([{ ...template, data: { ...template.data, ...login } }], { env });
			const wfs = [
				...Object.values(WF).map(({ path: _p, ...w }) => ({
					...w,
					active: false,
					settings: { executionOrder: 'v1' },
				})),
				trigger,
			];
			await n8n.importWorkflows(wfs, { env });
			for (const w of wfs) await n8n.publishWorkflow(w.id, { env });
		},
	});
	const { cluster } = /** @type {Started} */ (ctx);
	const [{ server_version: pgVersion }] = await cluster.pg.query('show server_version');
	note(
		`n8n ${p.n8nVersion} queue mode: Postgres ${pgVersion} on :${cluster.pg.port}, Redis on :${cluster.redis.port}${svc.installed.length ? ` (installed ${svc.installed.join(', ')})` : ''}, main :${cluster.main.port} (pid ${cluster.main.pid}, ready in ${seconds(cluster.main.startMs)}), ${WORKERS} workers --concurrency=${CONCURRENCY} (${cluster.workers.map((w) => `pid ${w.pid} ready in ${seconds(w.startMs)}`).join(', ')}); cluster up in ${seconds(Date.now() - t0)} incl. imports (${elapsed()})`,
	);
	return trigger;
}

/**
 * (a) Every webhook execution succeeded, on both workers, each job created once, few token
 * requests; keeps the figures in ctx.figures and returns the details.
 * @param {{ urls: string[], ta: number, acceptedMs: number, tokensBefore: number }} batch
 */
async function webhookExecutions({ urls, ta, acceptedMs, tokensBefore }) {
	const { emu } = /** @type {Started} */ (ctx);
	const execA = await waitExecutions(WF.create.id, EXECUTIONS, 300000);
	const wallMs = Date.now() - ta;
	const statuses = countBy(execA, (e) => e.status);
	assert.equal(execA.length, EXECUTIONS, `executions ${execA.length}`);
	assert.deepEqual(statuses, { success: EXECUTIONS }, 'statuses');
	const jobs = (await emu.rows('jobs')).filter((j) => j.email === 'queue-a@e2e.example.com');
	const byUrl = countBy(jobs, (j) => j.url);
	const twice = Object.entries(byUrl).filter(([, c]) => c > 1);
	assert.deepEqual(twice, [], 'jobs created twice');
	assert.equal(jobs.length, EXECUTIONS, `jobs in the emulator: ${jobs.length}`);
	for (const u of urls) assert.equal(byUrl[u], 1, `job for ${u}`);
	const counts = perWorker(execA.map((e) => e.id));
	assert.equal(
		counts.reduce((a, b) => a + b, 0),
		EXECUTIONS,
		`executions found in worker logs: ${counts}`,
	);
	assert.ok(
		counts.every((c) => c > 0),
		`every worker ran some: ${counts}`,
	);
	const tokens = (await tokenRequests()).slice(tokensBefore);
	ctx.figures = {
		executions: EXECUTIONS,
		perWorker: counts,
		tokens: tokens.length,
		wallMs,
		acceptedMs,
		rate: EXECUTIONS / (wallMs / 1000),
	};
	assert.ok(
		tokens.length <= 1 + WORKERS,
		`token requests ${tokens.length} > 1 + ${WORKERS} workers`,
	);
	return `${EXECUTIONS} executions, all success, per worker ${counts.join(' / ')}; ${jobs.length} jobs in the emulator, none twice; ${tokens.length} token request(s) since the cluster started (statuses ${tokens.map((t) => t.status).join(',')}, incl. the trigger's on main); webhooks accepted in ${seconds(acceptedMs)}, all done in ${seconds(wallMs)} (${(EXECUTIONS / (wallMs / 1000)).toFixed(1)} executions/s)`;
}

/**
 * (b) An export waited for and downloaded on a worker; the archive read back from main is intact.
 */
async function archiveOnWorker() {
	const { emu, cluster } = /** @type {Started} */ (ctx);
	await fire(WF.exportDownload.path, {
		url: 'https://b.queue.e2e.example.com/',
		email: 'queue-b@e2e.example.com',
	});
	const [x] = await waitExecutions(WF.exportDownload.id, 1, 120000);
	assert.equal(x.status, 'success', `status ${x.status}`);
	const worker = cluster.workers.find((w) => w.started().includes(x.id));
	assert.ok(worker, `execution ${x.id} not in any worker's log`);
	const full = await cluster.main.execution(x.id);
	const run = full.data.resultData.runData;
	const job = run['Export Website'][0].data.main[0][0].json;
	assert.equal(job.status, 'finished');
	const item = run['Download Archive'][0].data.main[0][0];
	const bin = item.binary && item.binary.data;
	assert.ok(bin, 'binary "data"');
	assert.match(String(bin.id), /^database:/, `binary id ${bin.id}`);
	await cluster.main.login();
	const cookie = await loginCookie(cluster.main);
	const r = await getBuffer(
		`${cluster.main.baseUrl}/rest/binary-data?id=${encodeURIComponent(bin.id)}&action=download`,
		cookie,
	);
	assert.equal(r.status, 200, `GET /rest/binary-data → ${r.status}`);
	assert.equal(r.body.length, bin.bytes, 'bytes');
	const zip = inspectZip(r.body);
	const settings = await emu.settings();
	assert.deepEqual(
		zip.entries.map((e) => e.name),
		['index.html', 'payload.bin'],
	);
	assert.equal(zip.entries[1].size, settings.archiveBytes, 'payload.bin size');
	ctx.bJob = job;
	return `execution ${x.id} on worker ${worker.index}: job #${job.id} finished, download #${job.download.id}; archive ${bin.fileName} ${r.body.length} bytes in ${String(bin.id).split(':')[0]} mode, read back from main: ${zip.entries.map((e) => `${e.name} (${e.size} B, CRC-32 ok)`).join(', ')}`;
}

/**
 * (c) The trigger on main emitted every new download exactly once, its executions run on workers.
 * @param {Json} trigger the trigger workflow
 * @param {Set<number>} downloadsBefore the downloads there before activation
 */
async function triggerOnceOnWorkers(trigger, downloadsBefore) {
	const { emu, cluster } = /** @type {Started} */ (ctx);
	const jobIds = new Set(
		(await emu.rows('jobs')).filter((j) => /^queue-[ab]@/.test(j.email)).map((j) => j.id),
	);
	const deadline = Date.now() + 240000;
	/** @type {Json[]} */
	let want;
	/** @type {Map<number, number>} */
	let counts;
	/** @type {{ id: string, status: string }[]} */
	let execs;
	const cache = /** @type {Map<string, Json>} */ (ctx.triggerCache);
	for (;;) {
		want = (await emu.rows('downloads')).filter(
			(d) => jobIds.has(d.job_id) && !downloadsBefore.has(d.id),
		);
		execs = (await dbExecutions(trigger.id)).filter((e) => DONE.has(e.status));
		counts = new Map();
		for (const e of execs) {
			const full = cache.get(e.id) || (await cluster.main.execution(e.id));
			cache.set(e.id, full);
			for (const json of n8n.nodeItems(full, 'Website Export Trigger') || [])
				counts.set(json.id, (counts.get(json.id) || 0) + 1);
		}
		if (want.length === jobIds.size && want.every((d) => (counts.get(d.id) ?? 0) >= 1)) break;
		if (Date.now() > deadline)
			throw new Error(
				`after 240 s: ${want.length} downloads for ${jobIds.size} jobs, ${want.filter((d) => counts.has(d.id)).length} emitted, in ${execs.length} trigger executions`,
			);
		await n8n.sleep(2000);
	}
	const twice = [...counts].filter(([, c]) => c > 1);
	assert.deepEqual(twice, [], 'downloads emitted more than once');
	for (const id of downloadsBefore)
		assert.ok(!counts.has(id), `download #${id} (before activation) emitted`);
	const onWorkers = perWorker(execs.map((e) => e.id));
	assert.equal(
		onWorkers.reduce((a, b) => a + b, 0),
		execs.length,
		`trigger executions on workers: ${onWorkers}`,
	);
	assert.ok(
		execs.every((e) => e.status === 'success'),
		`statuses ${JSON.stringify(countBy(execs, (e) => e.status))}`,
	);
	return `${want.length} downloads (${EXECUTIONS} of (a), 1 of (b)) each emitted exactly once, in ${execs.length} trigger execution(s) (${execs.map((e) => (n8n.nodeItems(cache.get(e.id), 'Website Export Trigger') || []).length).join(' + ')} items), run on workers ${onWorkers.join(' / ')}`;
}

/**
 * (d) A worker SIGKILLed while it waits for jobs: no job is created twice.
 */
async function killAWorker() {
	const { emu, cluster } = /** @type {Started} */ (ctx);
	const victim = cluster.workers[cluster.workers.length - 1];
	const before = new Set(victim.started());
	const kurls = Array.from(
		{ length: KILL_RUNS },
		(_, i) => `https://d-${i}.queue.e2e.example.com/`,
	);
	await pool(kurls, KILL_RUNS, (url) =>
		fire(WF.kill.path, { url, email: 'queue-d@e2e.example.com' }),
	);
	const deadline = Date.now() + 30000;
	while (!victim.started().some((id) => !before.has(id))) {
		if (Date.now() > deadline) throw new Error(`worker ${victim.index} started none of the runs`);
		await n8n.sleep(50);
	}
	await n8n.sleep(500); // let it create its jobs, then kill it while they are being waited for
	const held = victim.started().filter((id) => !before.has(id));
	const tk = Date.now();
	victim.kill('SIGKILL');
	await victim.whenExited;
	const all = await waitExecutions(WF.kill.id, KILL_RUNS, 120000).catch(
		(e) => ((ctx.killTimeout = e.message), dbExecutions(WF.kill.id)),
	);
	const settledMs = Date.now() - tk;
	await n8n.sleep(JOB_MS + 1000);
	const jobs = (await emu.rows('jobs')).filter((j) => j.email === 'queue-d@e2e.example.com');
	const byUrl = countBy(jobs, (j) => j.url);
	const twice = Object.entries(byUrl).filter(([, c]) => c > 1);
	const heldStatus = countBy(
		all.filter((e) => held.includes(e.id)),
		(e) => e.status,
	);
	const otherStatus = countBy(
		all.filter((e) => !held.includes(e.id)),
		(e) => e.status,
	);
	const mainLines = mainLogAbout(cluster, held);
	ctx.kill = {
		held: held.length,
		heldStatus,
		otherStatus,
		jobs: jobs.length,
		settledMs,
		mainLines: [...new Set(mainLines)].slice(0, 6),
	};
	assert.deepEqual(twice, [], 'jobs created twice');
	assert.ok(jobs.length <= KILL_RUNS, `jobs ${jobs.length}`);
	assert.ok(!ctx.killTimeout, ctx.killTimeout);
	return `worker ${victim.index} held ${held.length} execution(s) when killed (${held.join(', ')}): n8n reports ${JSON.stringify(heldStatus)} ${seconds(settledMs)} after the kill; the other ${all.length - held.length}: ${JSON.stringify(otherStatus)}; ${jobs.length} jobs for ${KILL_RUNS} runs, none twice; main log: ${ctx.kill.mainLines.join(' | ') || '(nothing about it)'}`;
}

/**
 * Main's log lines about the killed worker's executions, or about stalled, crashed or lost jobs.
 * @param {Cluster} cluster
 * @param {string[]} held the executions the worker held
 * @returns {string[]}
 */
function mainLogAbout(cluster, held) {
	return cluster.main
		.logs()
		.filter(
			(l) =>
				held.some(
					(id) => JSON.stringify(l).includes(`"${id}"`) || String(l.message).includes(` ${id} `),
				) || /stalled|crash|lost/i.test(String(l.message)),
		)
		.filter((l) => !/license/i.test(String(l.message)))
		.map((l) => `${l.level}: ${String(l.message).split('\n')[0]}`);
}

/**
 * Main and every worker run in queue mode; returns the details.
 * @param {Cluster} cluster
 */
function queueModeOn(cluster) {
	const mainLog = cluster.main
		.logs()
		.map((l) => l.message)
		.join('\n');
	for (const w of cluster.workers)
		assert.ok(
			w.logs().some((l) => /n8n worker is now ready/.test(String(l.message))),
			`worker ${w.index} log says "n8n worker is now ready"`,
		);
	assert.equal(cluster.env.EXECUTIONS_MODE, 'queue');
	return `EXECUTIONS_MODE=queue, DB_TYPE=postgresdb, N8N_DEFAULT_BINARY_DATA_MODE=database; main log ${mainLog.length} chars`;
}

/** (a) Fires the webhook of one job per URL, 20 at a time; resolves when n8n accepted them all. */
async function fireWebhooks() {
	const ta = Date.now();
	const urls = Array.from(
		{ length: EXECUTIONS },
		(_, i) => `https://a-${i}.queue.e2e.example.com/`,
	);
	await pool(urls, 20, (url) => fire(WF.create.path, { url, email: 'queue-a@e2e.example.com' }));
	const acceptedMs = Date.now() - ta;
	return { urls, ta, acceptedMs };
}

async function main() {
	const trigger = await startStack();
	const { emu, cluster } = /** @type {Started} */ (ctx);

	await check('queue mode is on (main + workers, binary data in database mode)', () =>
		queueModeOn(cluster),
	);

	// (c) the trigger's activation poll (the baseline) must have happened before we create anything.
	const firstPoll = await waitForTriggerPoll(
		emu,
		0,
		60000,
		'the trigger did not poll within 60 s of main being ready',
	);
	note(`trigger active on main: baseline poll at emulator seq ${firstPoll.seq}`);
	const downloadsBefore = new Set((await emu.rows('downloads')).map((d) => d.id));

	// (a) N webhook executions, one job each. Token requests are counted from the start: the
	// trigger's activation poll on main took the first token, the workers read it from the DB.
	const tokensBefore = 0;
	const { urls, ta, acceptedMs } = await fireWebhooks();
	await check(`(a) ${EXECUTIONS} webhook executions of Job → Create on ${WORKERS} workers`, () =>
		webhookExecutions({ urls, ta, acceptedMs, tokensBefore }),
	);
	if (!ctx.figures) {
		const tokens = (await tokenRequests()).slice(tokensBefore);
		const created = await dbExecutions(WF.create.id);
		note(
			`(a) figures: ${tokens.length} token requests; per worker ${perWorker(created.map((e) => e.id)).join(' / ')}`,
		);
	}

	// (b) export, wait, download the archive on a worker
	await check(
		'(b) Job → Create + Wait for Completion + Download Archive on a worker: archive intact',
		() => archiveOnWorker(),
	);

	// (c) every download of (a) and (b) emitted exactly once by the trigger
	await check('(c) trigger on main emits each new download once (executions on workers)', () =>
		triggerOnceOnWorkers(trigger, downloadsBefore),
	);

	const memory = cluster.memory();
	ctx.memory = memory;

	// (d) kill a worker mid-run
	await check(
		`(d) worker SIGKILLed during ${KILL_RUNS} Wait-for-Completion runs: no job doubled`,
		() => killAWorker(),
	);

	const f = ctx.figures;
	if (f)
		note(
			`figures: ${f.executions} executions in ${seconds(f.wallMs)} (${f.rate.toFixed(1)}/s, webhooks accepted in ${seconds(f.acceptedMs)}), per worker ${f.perWorker.join(' / ')}, ${f.tokens} token request(s); VmHWM main ${memory.main} MiB, workers ${memory.workers.map((m) => `${m} MiB`).join(' / ')}`,
		);
}

/**
 * The owner's session cookie on main.
 * @param {{ baseUrl: string }} main
 */
async function loginCookie(main) {
	const r = await n8n.httpRequest('POST', `${main.baseUrl}/rest/login`, {
		body: { emailOrLdapLoginId: n8n.DEFAULT_OWNER.email, password: n8n.DEFAULT_OWNER.password },
	});
	return /** @type {string[]} */ ([])
		.concat(r.headers['set-cookie'] || [])
		.map((c) => c.split(';')[0])
		.join('; ');
}
ctx.triggerCache = new Map();

async function finish() {
	await n8n.killActiveRuns('SIGTERM').catch(() => {});
	if (ctx.cluster) await ctx.cluster.stop().catch(() => {});
	await services.stopAll().catch(() => {});
	if (ctx.emu) await ctx.emu.stop().catch(() => {});
	if (ctx.packDir) fs.rmSync(ctx.packDir, { recursive: true, force: true });
	if (ctx.uf) {
		if (KEEP)
			note(`kept the n8n user folder (logs: n8n-main.log, n8n-worker-*.log): ${ctx.uf.userFolder}`);
		else ctx.uf.cleanup();
	}
}

const end = runSuite(main, { finish, summary: () => [`queue e2e finished in ${elapsed()}`] });
