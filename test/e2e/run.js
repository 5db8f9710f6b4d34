#!/usr/bin/env node
'use strict';
/**
 * The end-to-end suite: this pack inside a real n8n (2.41.1 on Node 24, see stack/n8n/),
 * against the Website Export emulator.
 *
 *   npm run test:e2e            # = node test/e2e/run.js
 *   node test/e2e/run.js --keep # keep the throwaway n8n user folder (it is also kept on failure)
 *
 * 1. Provision n8n (cached), `npm run build` + `npm pack`, install the tarball as a community
 *    package into a throwaway N8N_USER_FOLDER, check that n8n loaded both node types.
 * 2. Start the emulator (child process), seed a few rows, import the credential (plaintext,
 *    encrypted on import) and the workflows of examples/ and test/e2e/workflows/.
 * 3. `n8n execute` each workflow and check its output items: all 13 operations, Wait for
 *    Completion, the archive as binary data (and the stored file as a valid ZIP), error items
 *    under On Error: Continue, the readable reason of a wrong password.
 * 4. Meanwhile, the trigger live: the trigger example is published, `n8n start` runs, downloads
 *    are inserted into the emulator over three poll cycles; every one must appear in exactly one
 *    execution, and one inserted before activation in none.
 * 5. Token caching from the outside: the emulator's request log holds one token request for
 *    all of it (each `n8n execute` is its own process; n8n keeps the token in the credential).
 *
 * Prints one line per check ("ok  name: details" / "FAIL name: details") and, last, exactly
 * "N passed, N failed". Exits 1 on any failure. `n8n execute` is never retried: a run has
 * side effects on the emulator, even when n8n crashes while exiting (stack/n8n/README.md).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const n8n = require('../../stack/n8n/lib');
const { startServiceProcess } = require('../../stack/service/launch');
const {
	collectFinishedExecutions,
	countIds,
	insertFinishedDownloads,
	isTriggerPoll,
	iso,
	waitForTriggerPoll,
} = require('./trigger-runs');
const {
	REPO,
	check,
	counts,
	elapsed,
	isN8n1,
	note,
	report,
	runSuite,
	seconds,
	started,
} = require('./suite');
const { inspectZip } = require('./zip');
const adverse = require('./adverse');
const { bulkBesideHttpRequest } = require('./bulk');
const mcp = require('./mcp');
const { runTriggerModes } = require('./trigger-modes');

/** @typedef {import('./types').Json} Json */
/** @typedef {import('./types').Emulator} Emulator */
/** @typedef {import('./types').RunResult} RunResult */
/** @typedef {import('./types').Item} Item */

const PACKAGE = 'n8n-nodes-website-export';
const NODE_TYPE = `${PACKAGE}.websiteExport`;
const TRIGGER_TYPE = `${PACKAGE}.websiteExportTrigger`;
/** n8n derives an AI-agent tool variant from every node with `usableAsTool: true`. */
const TOOL_TYPE = `${PACKAGE}.websiteExportTool`;
const CREDENTIAL_TYPE = 'websiteExportApi';
const DAY_MS = 24 * 60 * 60 * 1000;
const JOB_MS = 2000; // emulated export duration: Wait for Completion sees the job finish in ~2 s
const SUITE_TIMEOUT_MS = 30 * 60 * 1000; // a guard against hangs, counted after provisioning (a run takes about 15 min)
const TRIGGER_CYCLE_TIMEOUT_MS = 150 * 1000; // n8n polls every minute at most: one cycle ≤ 60 s plus the run
const WRONG_PASSWORD = 'wrong-password-e2e-7Qx';

const KEEP = process.argv.includes('--keep');
// --n8n 1 (or WEX_N8N=1): run against n8n 1.123.81 (stack/n8n/provision.sh --n8n 1) instead of 2.41.1.
const N8N_FLAG = process.argv.indexOf('--n8n');
if (N8N_FLAG > 0) process.env.WEX_N8N = process.argv[N8N_FLAG + 1];
// ---------------------------------------------------------------------------------------------
// helpers

/** ms of a Postgres timestamp (`…47.487179+00:00`); JS dates hold milliseconds only. */
const ms = (/** @type {unknown} */ ts) => Date.parse(String(ts).replace(/(\.\d{3})\d+/, '$1'));

/**
 * @param {string} file
 * @returns {Json}
 */
function readJson(file) {
	return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A download as every output carries it: expiry fields right, link an archive link. */
/**
 * @param {Json} d a download row as the node answered it
 * @param {{ expired?: boolean, what?: string }} [options]
 */
function assertDownload(d, { expired = false, what = 'download' } = {}) {
	assert.ok(Number.isInteger(d.id) && d.id > 0, `${what}: id ${d.id}`);
	assert.equal(
		ms(d.expires_at),
		ms(d.created_at) + DAY_MS,
		`${what} #${d.id}: expires_at ${d.expires_at} is not created_at ${d.created_at} + 24 h`,
	);
	assert.equal(
		d.is_expired,
		expired,
		`${what} #${d.id}: is_expired ${d.is_expired}, expected ${expired}`,
	);
	assert.match(
		String(d.download_link),
		/^http:\/\/127\.0\.0\.1:\d+\/storage\/v1\/object\/public\/exports\/[^/]+\.zip$/,
		`${what} #${d.id}: download_link ${d.download_link}`,
	);
}

/**
 * @param {Item[]} items
 * @param {string} what
 */
function assertPaired(items, what) {
	items.forEach((item, index) =>
		assert.deepEqual(
			item.pairedItem,
			{ item: index },
			`${what}: item ${index} pairedItem ${JSON.stringify(item.pairedItem)}`,
		),
	);
}

/** Items (with binary and pairedItem) a node emitted; throws with the run's error if it did not run. */
/**
 * @param {RunResult} r
 * @param {string} nodeName
 * @returns {Item[]}
 */
function outputOf(r, nodeName) {
	const items = r.items(nodeName, { withBinary: true });
	if (!items)
		throw new assert.AssertionError({
			message: `node "${nodeName}" did not run${r.error ? `: ${r.error.message}` : ''}`,
		});
	return items;
}

const jsonOf = (/** @type {Item[]} */ items) => items.map((i) => i.json);

// ---------------------------------------------------------------------------------------------
// the suite

/**
 * What the suite started and found, for the steps and for `finish`. The steps run once main has
 * set what they read; `finish` tests each field, as the suite may end before it was set.
 * @typedef {{
 *   emu: Emulator,
 *   uf: { userFolder: string, n8nDir: string, cleanup(): void },
 *   env: NodeJS.ProcessEnv,
 *   packDir: string,
 *   server: { stop(): Promise<unknown> } | null,
 *   runs: { workflow: string, durationMs: number }[],
 *   seeds: { expiredSeed: Json, validSeed: Json, seedOption: Json },
 *   credentials: Json[],
 *   mcp: boolean,
 *   credentialTestSeqs?: { from: number, to: number },
 * }} SuiteContext
 */
const ctx = /** @type {SuiteContext} */ ({
	server: null,
	/** workflow runs with the good credential, in order: [{ workflow, durationMs }] */
	runs: /** @type {SuiteContext['runs']} */ ([]),
});

/**
 * n8n and the package: side by side; then the user folder with the package
 * installed. Resolves to the provisioned n8n.
 */
async function prepare() {
	// n8n and the package: side by side. Provisioning may be a cold install,
	// or wait for the one .ci/run started in the background (provision.sh's lock).
	let provisionMs = 0;
	const [p, tarball] = await Promise.all([
		n8n.provision().then((result) => ((provisionMs = Date.now() - started), result)),
		n8n.packPackage(REPO),
	]);
	// The time limit counts from here: a cold provision (README, Getting started) is not the suite's own time.
	const suiteTimer = setTimeout(() => {
		report(
			false,
			'suite',
			`still running ${SUITE_TIMEOUT_MS / 60000} min after provisioning: stopped`,
		);
		void end();
	}, SUITE_TIMEOUT_MS);
	suiteTimer.unref();
	ctx.packDir = path.dirname(tarball);
	ctx.uf = await n8n.makeUserFolder({ tarball });
	ctx.env = n8n.n8nEnv(ctx.uf.userFolder);
	note(
		`n8n ${p.n8nVersion} on Node ${p.nodeVersion} (provisioned in ${seconds(provisionMs)}); ${path.basename(tarball)} built, packed and installed in ${ctx.uf.userFolder} (${elapsed()})`,
	);
	return p;
}

/**
 * The export:nodes check: our three node types, their operations and credential; returns the details.
 * @param {Json} loaded what stack/n8n/lib.js's listLoadedNodeTypes resolved to
 */
function packageLoaded(loaded) {
	assert.deepEqual(loaded.failedPackages, [], 'n8n failed to load a package');
	const ours = (loaded.byPackage[PACKAGE] || []).sort();
	assert.deepEqual(ours, [NODE_TYPE, TOOL_TYPE, TRIGGER_TYPE], `node types of ${PACKAGE}`);
	const node = loaded.descriptions.find((/** @type {Json} */ d) => d.name === NODE_TYPE);
	// n8n adds its own "Custom API Call" entry (__CUSTOM_API_CALL__) to every operation list.
	const ops = Object.fromEntries(
		['option', 'job', 'download'].map((resource) => [
			resource,
			node.properties
				.find(
					(/** @type {Json} */ prop) =>
						prop.name === 'operation' && prop.displayOptions.show.resource[0] === resource,
				)
				.options.map((/** @type {Json} */ o) => o.value)
				.filter((/** @type {string} */ value) => value !== '__CUSTOM_API_CALL__'),
		]),
	);
	const crud = ['create', 'delete', 'get', 'getAll', 'update'];
	assert.deepEqual(
		ops,
		{ option: crud, job: crud, download: ['downloadArchive', 'get', 'getAll'] },
		'operations per resource',
	);
	assert.deepEqual(
		node.credentials.map((/** @type {Json} */ c) => c.name),
		[CREDENTIAL_TYPE],
	);
	const count = Object.values(ops).flat().length;
	return `${ours.join(', ')} (the tool variant n8n derives for AI agents); no failed packages; ${count} operations (option ${ops.option.length}, job ${ops.job.length}, download ${ops.download.length}); credential ${CREDENTIAL_TYPE}`;
}

/**
 * Seed rows: an expired and a valid download (with their jobs) and an option, in ctx.seeds.
 * @param {Emulator} emu
 */
async function seedRows(emu) {
	const now = await emu.now();
	await emu.insert('jobs', [
		{
			id: 900,
			url: 'https://expired.seed.e2e.example.com/',
			email: 'seed@e2e.example.com',
			status: 'finished',
			files: 3,
			created_at: iso(now - DAY_MS - 3_600_000),
		},
		{
			id: 901,
			url: 'https://valid.seed.e2e.example.com/',
			email: 'seed@e2e.example.com',
			status: 'finished',
			files: 5,
			created_at: iso(now - 2 * 3_600_000),
		},
	]);
	const [expiredSeed, validSeed] = await emu.insert('downloads', [
		{ id: 900, job_id: 900, created_at: iso(now - DAY_MS - 60_000) },
		{ id: 901, job_id: 901, created_at: iso(now - 3_600_000) },
	]);
	const [seedOption] = await emu.insert('options', [
		{ mode: 'absolute', replace_url: 'https://seed-mirror.e2e.example.com' },
	]);
	ctx.seeds = { expiredSeed, validSeed, seedOption };
}

/**
 * Imports the credentials (good, wrong password, no Business plan) and every workflow, publishes
 * the trigger (and the MCP server workflows where n8n has them); resolves to the workflows by name.
 * @param {Emulator} emu
 * @param {string} n8nVersion
 * @returns {Promise<Record<string, Json>>}
 */
async function importEverything(emu, n8nVersion) {
	const [template] = readJson(path.join(REPO, 'examples/credentials/website-export-emulator.json'));
	const login = {
		baseUrl: emu.baseUrl,
		apiKey: emu.apiKey,
		email: emu.demoUser.email,
		password: emu.demoUser.password,
	};
	// The good login, a wrong password, an account without the Business plan (for the credential test).
	ctx.credentials = [
		{ ...template, data: { ...template.data, ...login } },
		{
			id: 'website-export-bad-password',
			name: 'Website Export (wrong password)',
			type: CREDENTIAL_TYPE,
			data: { ...login, password: WRONG_PASSWORD },
		},
		{
			id: 'website-export-free-plan',
			name: 'Website Export (no Business plan)',
			type: CREDENTIAL_TYPE,
			data: { ...login, ...emu.freeUser },
		},
	];
	await n8n.importCredentials(ctx.credentials, { env: ctx.env });
	/** @type {Record<string, Json>} */
	const workflows = {};
	for (const dir of ['examples', 'test/e2e/workflows']) {
		for (const file of fs
			.readdirSync(path.join(REPO, dir))
			.filter((f) => f.endsWith('.json'))
			.sort()) {
			workflows[file.replace(/\.json$/, '')] = readJson(path.join(REPO, dir, file));
		}
	}
	await n8n.importWorkflows([...Object.values(workflows), ...adverse.workflows()], {
		env: ctx.env,
	});
	await n8n.publishWorkflow(workflows['trigger-download-ready'].id, { env: ctx.env });
	ctx.mcp = await mcp.mcpSupported();
	if (ctx.mcp) await mcp.publishMcpWorkflows(ctx.env);
	note(
		`emulator ${emu.baseUrl} (jobs take ${JOB_MS} ms); imported ${ctx.credentials.length} credentials and ${Object.keys(workflows).length} workflows (${Object.keys(workflows).join(', ')}); trigger published${ctx.mcp ? ', MCP server workflows published' : `; n8n ${n8nVersion} has no MCP Server Trigger: no MCP checks`} (${elapsed()})`,
	);
	return workflows;
}

/**
 * `execute(name)` runs a workflow by its file name; `runGood(name)` also counts the run in
 * ctx.runs and resolves to null (after a FAIL line) when the run failed.
 * @param {Record<string, Json>} workflows
 */
function workflowRunners(workflows) {
	/** @param {string} name */
	const execute = async (name) => {
		const r = await n8n.executeWorkflow(workflows[name].id, { env: ctx.env });
		if (r.signal)
			note(
				`${name}: n8n exited with ${r.signal} after ${r.run ? 'printing the run' : 'printing no run'} (not retried: stack/n8n/README.md gotcha 2)`,
			);
		return r;
	};
	/**
	 * Runs a workflow with the good credential; null (after a FAIL line) when the run failed.
	 * @param {string} name
	 */
	const runGood = async (name) => {
		const r = await execute(name);
		ctx.runs.push({ workflow: name, durationMs: r.durationMs });
		if (!r.ok) {
			report(
				false,
				name,
				`run ${r.status} after ${seconds(r.durationMs)}: ${r.error ? r.error.message : 'no error'} (last node ${r.lastNode})`,
			);
			return null;
		}
		return r;
	};

	return { execute, runGood };
}

/**
 * The trigger live and the other workflows side by side.
 * @param {Record<string, Json>} workflows
 * @param {ReturnType<typeof workflowRunners>} runners
 */
async function triggerBesideWorkflows(workflows, { execute, runGood }) {
	// 3b/4. The trigger (about 3 minutes: n8n polls at most once a minute) and the other
	// workflows side by side. The baseline download goes in before n8n starts.
	// Older than a poll without state looks back (one poll interval + 10 min): the baseline.
	const [baseline] = await insertTriggerDownloads(['baseline'], 30 * 60_000);
	const seqBefore = await ctx.emu.lastSeq();
	const workflowsDone = (async () => {
		await optionManage(await runGood('option-manage'));
		await jobManage(await runGood('job-manage'));
		await downloadGet(await runGood('download-get'));
		await continueOnFail(await runGood('continue-on-fail'));
		await badCredential(await execute('bad-credential'));
	})().catch((error) => report(false, 'workflows', error.stack || String(error)));
	await Promise.all([
		triggerLive(workflows['trigger-download-ready'], baseline, seqBefore, workflowsDone).catch(
			(error) => report(false, 'trigger', error.stack || String(error)),
		),
		workflowsDone,
	]);
}

/**
 * Last, because they move the emulator's clock and change its settings: issue 9's cases; then
 * bulk beside n8n's own HTTP Request node, at 50 ms per answer, both times printed.
 * @param {Emulator} emu
 * @param {(name: string) => Promise<RunResult>} execute
 */
async function adverseAndBulk(emu, execute) {
	await adverse.runAdverse({
		emu,
		execute: (id, env = {}) => n8n.executeWorkflow(id, { env: { ...ctx.env, ...env } }),
		check,
		outputOf,
		listValid: () => execute('download-list-valid'),
	});
	await check("200 creates and 200 gets beside n8n's HTTP Request node (bulk, job)", () =>
		bulkBesideHttpRequest(
			{
				emu,
				importWorkflows: (list) => n8n.importWorkflows(list, { env: ctx.env }),
				execute: (id) => n8n.executeWorkflow(id, { env: ctx.env }),
			},
			emu.baseUrl,
		),
	);
}

async function main() {
	// 1. n8n and the package
	const p = await prepare();

	const [loaded, emu] = await Promise.all([
		n8n.listLoadedNodeTypes({ env: ctx.env }),
		startServiceProcess({ jobMs: JOB_MS }),
	]);
	ctx.emu = emu;
	// n8n 1.x's export:nodes does not load community packages (its BaseCommand loads them only
	// for start/execute/worker/webhook): there the check is done by "n8n start serves the pack".
	if (isN8n1(p.n8nVersion))
		note(
			'n8n 1.x: export:nodes does not load community packages; skipped the export:nodes check (the server check below covers loading)',
		);
	else await check('package loaded by n8n (export:nodes)', () => packageLoaded(loaded));

	// 2. seed rows, import credentials and workflows, publish the trigger
	await seedRows(emu);
	const workflows = await importEverything(emu, p.n8nVersion);

	const { execute, runGood } = workflowRunners(workflows);

	// 3a. Before the server: these two read the whole downloads table, which the trigger part fills.
	const settings = await emu.settings();
	await jobExportAndDownload(await runGood('job-export-and-download'), settings);
	await downloadListValid(await runGood('download-list-valid'));

	await triggerBesideWorkflows(workflows, { execute, runGood });

	await tokenCaching();

	await adverseAndBulk(emu, execute);

	// 6. The trigger in n8n's other modes and across a restart (issue 10), a scenario at a time.
	// The task scheduler and durable poll cursors are n8n 2.41's; 1.x has neither (nor unpublish).
	if (isN8n1(p.n8nVersion)) {
		note(
			`n8n ${p.n8nVersion}: no task scheduler or durable poll cursors; the trigger's mode scenarios run on 2.x only`,
		);
		return;
	}
	await runTriggerModes({
		emu,
		env: ctx.env,
		check,
		note,
		template: workflows['trigger-download-ready'],
		triggerWorkflowId: workflows['trigger-download-ready'].id,
	});
}

// ---------------------------------------------------------------------------------------------
// workflow checks

/**
 * The archive n8n stored (filesystem mode) is the ZIP the service served; returns the details.
 * @param {Json} binary the item's binary property
 * @param {Json} settings the emulator's settings
 */
function storedZip(binary, settings) {
	const file = binaryFile(binary.id);
	const buf = fs.readFileSync(file);
	assert.equal(buf.length, bytesOf(binary), `size of ${file}`);
	const zip = inspectZip(buf);
	const names = zip.entries.map((e) => e.name);
	assert.deepEqual(names, ['index.html', 'payload.bin'], 'entries');
	assert.equal(zip.entries[1].size, settings.archiveBytes, 'payload.bin size');
	return `${path.relative(/** @type {NonNullable<typeof ctx.uf>} */ (ctx.uf).n8nDir, file)}: ${buf.length} bytes, PK signature, EOCD + central directory with ${zip.entries
		.map((e) => `${e.name} (${e.size} B, CRC-32 ok)`)
		.join(', ')}`;
}

/**
 * @param {RunResult | null} r
 * @param {Json} settings the emulator's settings
 */
async function jobExportAndDownload(r, settings) {
	if (!r) return;
	const { emu } = ctx;
	/** @type {Json} */ let job;
	await check('job.create + Wait for Completion (job-export-and-download)', async () => {
		const items = outputOf(r, 'Export Website');
		assert.equal(items.length, 1, 'items');
		assertPaired(items, 'Export Website');
		job = items[0].json;
		assert.equal(job.status, 'finished', 'status after waiting');
		assert.equal(job.url, 'https://example.com');
		assert.equal(job.email, 'you@example.com');
		assert.ok(job.files > 0, `files ${job.files}`);
		assert.equal(job.option.mode, 'offline', 'option.mode');
		assert.equal(job.option.job_id, job.id, 'option.job_id');
		assertDownload(job.download, { what: 'job.download' });
		assert.equal(job.download.job_id, job.id, 'download.job_id');
		const stored = (await emu.rows('options')).find((o) => o.id === job.option.id);
		assert.equal(stored && stored.job_id, job.id, 'the option is stored with the job id');
		return `1 item, job #${job.id} status finished (files ${job.files}), option #${job.option.id} offline for job #${job.id}, download #${job.download.id} expires_at ${job.download.expires_at} = created_at + 24 h, is_expired false`;
	});
	/** @type {Json} */ let binary;
	await check('download.downloadArchive by ID (job-export-and-download)', () => {
		const items = outputOf(r, 'Download Archive');
		assert.equal(items.length, 1, 'items');
		assertPaired(items, 'Download Archive');
		const { json } = items[0];
		binary = items[0].binary && items[0].binary.data;
		assert.ok(binary, 'binary property "data"');
		assert.equal(json.id, job.download.id, 'the download of the job');
		assert.equal(binary.mimeType, 'application/zip', 'mimeType');
		assert.equal(binary.fileExtension, 'zip', 'fileExtension');
		assert.equal(
			binary.fileName,
			json.download_link.split('/').pop(),
			'fileName = last segment of the link',
		);
		assert.equal(json.fileName, binary.fileName, 'json.fileName');
		assert.equal(json.fileSize, bytesOf(binary), 'json.fileSize = binary bytes');
		assert.ok(
			bytesOf(binary) > settings.archiveBytes,
			`bytes ${bytesOf(binary)} > payload ${settings.archiveBytes}`,
		);
		assert.match(
			String(binary.id),
			/^filesystem(-v2)?:/,
			`stored in filesystem mode (${binary.id})`,
		);
		return `1 item, binary "data": ${binary.mimeType}, ${binary.fileName}, ${bytesOf(binary)} bytes (${binary.fileSize}), json.fileSize ${json.fileSize}, ${binary.id.split(':')[0]}`;
	});
	if (!binary) return;
	await check('archive stored by n8n is a valid ZIP', () => storedZip(binary, settings));
}

/** Size of a binary: 2.x metadata has `bytes`; 1.x only a human-readable fileSize, so the stored file's size. */
/** @param {Json} b a binary property */
function bytesOf(b) {
	if (typeof b.bytes === 'number') return b.bytes;
	return fs.statSync(binaryFile(b.id)).size;
}

/** Where n8n's filesystem binary data mode keeps a file: <N8N_USER_FOLDER>/.n8n/storage/<id path>. */
/** @param {string} id */
function binaryFile(id) {
	const rel = String(id).replace(/^filesystem(-v2)?:/, '');
	for (const root of ['storage', 'binaryData']) {
		const file = path.join(ctx.uf.n8nDir, root, rel);
		if (fs.existsSync(file)) return file;
	}
	throw new assert.AssertionError({
		message: `binary file ${rel} not found under ${ctx.uf.n8nDir}/storage`,
	});
}

/** @param {RunResult | null} r */
async function downloadListValid(r) {
	if (!r) return;
	const now = await ctx.emu.now();
	/** @type {Json} */ let listed;
	await check('download.getAll, Only Valid Links (download-list-valid)', async () => {
		const items = outputOf(r, 'Get Valid Download Links');
		listed = jsonOf(items);
		const expected = (await ctx.emu.rows('downloads'))
			.filter((d) => ms(d.created_at) > now - DAY_MS)
			.sort((a, b) => ms(b.created_at) - ms(a.created_at) || b.id - a.id)
			.slice(0, 10)
			.map((d) => d.id);
		assert.deepEqual(
			listed.map((/** @type {Json} */ d) => d.id),
			expected,
			'the valid downloads, newest first',
		);
		assert.ok(!expected.includes(ctx.seeds.expiredSeed.id), 'the expired download is left out');
		for (const d of listed) assertDownload(d, { what: 'listed download' });
		items.forEach((i) =>
			assert.deepEqual(i.pairedItem, { item: 0 }, 'pairedItem of a Get Many item'),
		);
		return `${listed.length} items: downloads ${listed.map((/** @type {Json} */ d) => `#${d.id}`).join(', ')} (newest first), all is_expired false with expires_at = created_at + 24 h; expired #${ctx.seeds.expiredSeed.id} left out`;
	});
	if (!listed) return;
	await check('download.downloadArchive by Link (download-list-valid)', () => {
		const items = outputOf(r, 'Download Each Archive');
		assert.equal(items.length, listed.length, 'one archive per listed download');
		assertPaired(items, 'Download Each Archive');
		items.forEach((item, i) => {
			const b = item.binary && item.binary.data;
			assert.ok(b, `item ${i}: binary "data"`);
			assert.equal(item.json.download_link, listed[i].download_link, `item ${i}: link`);
			assert.equal(b.mimeType, 'application/zip', `item ${i}: mimeType`);
			assert.equal(b.fileName, listed[i].download_link.split('/').pop(), `item ${i}: fileName`);
			assert.equal(item.json.fileSize, bytesOf(b), `item ${i}: fileSize`);
			inspectZip(fs.readFileSync(binaryFile(b.id)));
		});
		return `${items.length} items in input order, each a valid ZIP in binary "data" (${items.map((i) => `${bytesOf(i.binary.data)} B`).join(', ')})`;
	});
}

/** @param {RunResult | null} r */
async function optionManage(r) {
	if (!r) return;
	/** @type {Json} */ let created;
	await check('option.create (option-manage)', () => {
		const items = outputOf(r, 'Create Option');
		assert.equal(items.length, 1, 'items');
		assertPaired(items, 'Create Option');
		created = items[0].json;
		assert.ok(Number.isInteger(created.id), 'id');
		assert.equal(created.mode, 'relative');
		assert.equal(created.relative_path, '/docs/');
		assert.equal(created.job_id, null);
		return `1 item, option #${created.id} mode relative, relative_path /docs/, job_id null`;
	});
	if (!created) return;
	await check('option.get (option-manage)', () => {
		const items = jsonOf(outputOf(r, 'Get Option'));
		assert.deepEqual(items, [created], 'the created option');
		return `1 item, option #${created.id} as created`;
	});
	await check('option.update (option-manage)', () => {
		const items = jsonOf(outputOf(r, 'Update Option'));
		assert.equal(items.length, 1, 'items');
		assert.deepEqual(items[0], {
			...created,
			mode: 'absolute',
			replace_url: 'https://mirror.example.com',
		});
		return `1 item, option #${created.id} mode absolute, replace_url https://mirror.example.com (relative_path kept)`;
	});
	await check('option.delete (option-manage)', async () => {
		const items = jsonOf(outputOf(r, 'Delete Option'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].deleted, true, 'deleted');
		assert.equal(items[0].id, created.id, 'id');
		const left = (await ctx.emu.rows('options')).map((o) => o.id);
		assert.ok(!left.includes(created.id), 'the option is gone from the service');
		return `1 item { deleted: true, id: ${created.id} }; the service no longer has it`;
	});
	await check('option.getAll, filter Mode (option-manage)', async () => {
		const items = jsonOf(outputOf(r, 'List Absolute Options'));
		const expected = (await ctx.emu.rows('options'))
			.filter((o) => o.mode === 'absolute')
			.map((o) => o.id);
		assert.deepEqual(
			items.map((o) => o.id),
			expected,
			'every absolute option, in id order',
		);
		assert.ok(
			items.every((o) => o.mode === 'absolute'),
			'only absolute ones',
		);
		assert.ok(
			expected.includes(ctx.seeds.seedOption.id) && !expected.includes(created.id),
			'seeded one in, deleted one out',
		);
		return `${items.length} item(s): ${items.map((o) => `#${o.id}`).join(', ')}, all mode absolute; deleted #${created.id} not listed`;
	});
}

/** @param {RunResult | null} r */
async function jobManage(r) {
	if (!r) return;
	/** @type {Json} */ let job;
	await check('job.create without waiting (job-manage)', () => {
		const items = jsonOf(outputOf(r, 'Create Job'));
		assert.equal(items.length, 1, 'items');
		job = items[0];
		assert.equal(job.status, 'queued', 'status');
		assert.equal(job.url, 'https://job-manage.e2e.example.com/');
		assert.ok(!('download' in job), 'no download without waiting');
		return `1 item, job #${job.id} status queued`;
	});
	if (!job) return;
	await check('job.get (job-manage)', () => {
		const items = jsonOf(outputOf(r, 'Get Job'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].id, job.id);
		assert.equal(items[0].email, job.email);
		assert.ok(
			['queued', 'running', 'finished'].includes(items[0].status),
			`status ${items[0].status}`,
		);
		return `1 item, job #${job.id} (${items[0].status})`;
	});
	await check('job.update (job-manage)', () => {
		const items = jsonOf(outputOf(r, 'Update Job'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].id, job.id);
		assert.equal(items[0].email, 'job-manage-updated@e2e.example.com');
		assert.equal(items[0].url, 'https://job-manage.e2e.example.com/updated');
		return `1 item, job #${job.id} with the new email and URL`;
	});
	await check('job.getAll, filter Email (job-manage)', () => {
		const items = jsonOf(outputOf(r, 'Get Many Jobs'));
		assert.deepEqual(
			items.map((j) => j.id),
			[job.id],
			'exactly the updated job',
		);
		return `1 item: job #${job.id}`;
	});
	await check('job.delete, Select By URL (job-manage)', async () => {
		const items = jsonOf(outputOf(r, 'Delete Job'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].deleted, true);
		assert.equal(items[0].id, job.id);
		assert.ok(
			!(await ctx.emu.rows('jobs')).some((j) => j.id === job.id),
			'the job is gone from the service',
		);
		return `1 item { deleted: true, id: ${job.id} }; the service no longer has it`;
	});
}

/** @param {RunResult | null} r */
async function downloadGet(r) {
	if (!r) return;
	const { validSeed, expiredSeed } = ctx.seeds;
	await check('download.get by ID (download-get)', () => {
		const items = jsonOf(outputOf(r, 'Get Valid Download'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].id, validSeed.id);
		assert.equal(items[0].job_id, validSeed.job_id);
		assertDownload(items[0]);
		return `1 item, download #${validSeed.id} is_expired false, expires_at ${items[0].expires_at}`;
	});
	await check('download.get, Select By Job ID (download-get)', () => {
		const items = jsonOf(outputOf(r, 'Get Expired Download'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].id, expiredSeed.id);
		assertDownload(items[0], { expired: true });
		return `1 item, download #${expiredSeed.id} of job #${expiredSeed.job_id}: is_expired true, expires_at ${items[0].expires_at}`;
	});
}

/** @param {RunResult | null} r */
async function continueOnFail(r) {
	if (!r) return;
	await check('On Error: Continue, download.get of 3 items (continue-on-fail)', () => {
		const items = outputOf(r, 'Get Downloads');
		assert.equal(items.length, 3, 'one output item per input item');
		assertPaired(items, 'Get Downloads');
		const [good, invalid, missing] = jsonOf(items);
		assert.equal(good.id, ctx.seeds.validSeed.id, 'item 0 is the download');
		assert.equal(
			invalid.error,
			'Invalid input: Download ID must be a whole number greater than 0',
			'item 1 error',
		);
		assert.match(
			String(invalid.details),
			/\[item 1\]/,
			`item 1 details name the item: "${invalid.details}"`,
		);
		assert.equal(missing.error, 'No download with ID 999999 was found', 'item 2 error');
		return `3 items paired 0,1,2: download #${good.id}; error "${invalid.error}"; error "${missing.error}"`;
	});
	await check('On Error: Continue, downloadArchive of an expired link (continue-on-fail)', () => {
		const items = outputOf(r, 'Download Expired Archive');
		assert.equal(items.length, 1, 'items');
		assert.ok(!items[0].binary, 'no binary data');
		const { error, details } = items[0].json;
		assert.match(
			error,
			/^The download link of download 900 expired on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
			`error: "${error}"`,
		);
		assert.match(String(details), /24 hours/, `details: "${details}"`);
		return `1 error item: "${error}" (${details})`;
	});
}

/** n8n's own credential test (what Test / Save in the credential dialog calls) for a good login, a wrong password and an account without the plan. */
/** @param {Json} srv the running n8n (stack/n8n/lib.js startN8n) */
async function credentialTest(srv) {
	await check(
		'credential test in n8n tells a good login, a wrong password and no Business plan apart',
		async () => {
			const before = await ctx.emu.lastSeq();
			// What the dialog sends: the credential's id (n8n checks access to it) and the form's data.
			const test = async (/** @type {Json} */ { id, name, type, data }) =>
				srv.rest('POST', '/rest/credentials/test', { credentials: { id, name, type, data } });
			const results = [];
			for (const credential of ctx.credentials) results.push(await test(credential)); // one at a time, as a user would
			const [good, wrongPassword, noPlan] = results;
			assert.deepEqual(good, { status: 'OK', message: 'Connection successful!' }, 'good login');
			assert.equal(wrongPassword.status, 'Error');
			assert.match(
				wrongPassword.message,
				/^Login failed \(Invalid login credentials\): check the email and password/,
				'wrong password',
			);
			assert.equal(noPlan.status, 'Error');
			assert.match(noPlan.message, /no active Business plan subscription/, 'no Business plan');
			for (const secret of [WRONG_PASSWORD, ctx.emu.freeUser.password, ctx.emu.apiKey])
				assert.ok(
					!JSON.stringify([wrongPassword, noPlan]).includes(secret),
					'a secret in a message',
				);
			// The test logs in with the form's data each time (it must not reuse a stored token): token caching leaves these out.
			ctx.credentialTestSeqs = { from: before + 1, to: await ctx.emu.lastSeq() };
			return `OK; "${wrongPassword.message}"; "${noPlan.message}"`;
		},
	);
}

/** Issue 18: the MCP client against the published MCP workflows, once the rows are settled; resolves to the tools made to fail. */
/**
 * @param {Json} srv the running n8n (stack/n8n/lib.js startN8n)
 * @returns {Promise<string[]>}
 */
async function mcpChecks(srv) {
	if (!ctx.mcp) return [];
	return mcp
		.runMcp({ srv, emu: ctx.emu, check, note, expiredDownloadId: ctx.seeds.expiredSeed.id })
		.catch((error) => (report(false, 'MCP', error.stack || String(error)), []));
}

/** @param {RunResult} r */
async function badCredential(r) {
	await check('wrong password gives a readable reason (bad-credential)', () => {
		assert.equal(r.ok, false, 'the run must fail');
		assert.equal(r.status, 'error', 'run status');
		const message = String(r.error && r.error.message);
		assert.match(
			message,
			/^Login failed \(Invalid login credentials\)/,
			`error message: "${message}"`,
		);
		assert.match(
			message,
			/check the email and password/,
			`error message says what to fix: "${message}"`,
		);
		assert.equal(r.lastNode, 'List Jobs', 'failing node');
		assert.ok(
			!`${r.stdout}${r.stderr}`.includes(WRONG_PASSWORD),
			'the password never appears in the output',
		);
		const description = String(r.error?.description || '');
		assert.match(description, /credential/, `description: "${description}"`);
		return `run status error at "List Jobs": "${message}" (${description}); the password appears nowhere in n8n's output`;
	});
}

async function tokenCaching() {
	await check('token caching across n8n processes (emulator request log)', async () => {
		const log = await ctx.emu.log();
		const seqs = ctx.credentialTestSeqs;
		const byCredentialTest = (/** @type {import('./types').LogEntry} */ e) =>
			seqs !== undefined && e.seq >= seqs.from && e.seq <= seqs.to;
		const tokens = log.filter((e) => e.kind === 'token' && !byCredentialTest(e));
		const testLogins = log.filter((e) => e.kind === 'token' && byCredentialTest(e)).length;
		const granted = tokens.filter((e) => e.status === 200);
		const refused = tokens.filter((e) => e.status !== 200);
		const polls = log.filter(isTriggerPoll).length;
		const rest = log.filter((e) => e.kind === 'rest').length;
		assert.equal(
			granted.length,
			1,
			`token requests answered 200: ${granted.length} (at seq ${granted.map((e) => e.seq).join(', ')})`,
		);
		assert.equal(granted[0].seq, 1, 'the token request is the first request of the suite');
		assert.ok(
			refused.length >= 1 && refused.every((e) => e.status === 400),
			`refused token requests (wrong password): ${refused.map((e) => e.status).join(', ')}`,
		);
		return `1 token request (200) for ${ctx.runs.length} workflow runs in ${ctx.runs.length} separate \`n8n execute\` processes and ${polls} trigger polls in \`n8n start\` (${rest} REST requests in all); the wrong-password run: ${refused.length} refused (400); left out: the credential test's own ${testLogins} logins`;
	});
}

// ---------------------------------------------------------------------------------------------
// the trigger, live

let triggerSerial = 0;
/** One finished job and its download per label, created now by the emulator's clock, in one statement. */
/** `ageMs`: how long before now (by the emulator's clock) the jobs finished. */
/**
 * @param {string[]} labels
 * @param {number} [ageMs]
 */
function insertTriggerDownloads(labels, ageMs = 0) {
	return insertFinishedDownloads(ctx.emu, labels, {
		email: 'trigger@e2e.example.com',
		nextFiles: () => 1 + ++triggerSerial,
		ageMs,
		jobMs: JOB_MS,
	});
}

/**
 * One execution of the live trigger as the suite reads it.
 * @typedef {{ id: string, mode: string, status: string, error: Json, items: Json[], notification: Json[] }} TriggerExecution
 */

/**
 * The executions that emitted download `id`.
 * @param {Map<string, TriggerExecution>} executions
 * @param {number} id
 */
const containing = (executions, id) =>
	[...executions.values()].filter((x) => x.items.some((d) => d.id === id));

/**
 * Waits until the trigger emitted every row of the batch, asserts that one successful execution,
 * later than the previous cycle's, holds them all, and resolves to it.
 * @param {{
 *   rows: Json[],
 *   labels: string[],
 *   insertedAt: number,
 *   executions: Map<string, TriggerExecution>,
 *   collect: () => Promise<void>,
 *   previous: TriggerExecution | null,
 * }} cycle
 * @returns {Promise<TriggerExecution>}
 */
async function pollCycle({ rows, labels, insertedAt, executions, collect, previous }) {
	const until = insertedAt + TRIGGER_CYCLE_TIMEOUT_MS;
	while (!rows.every((d) => containing(executions, d.id).length > 0)) {
		if (Date.now() > until)
			throw new Error(
				`downloads ${rows.map((d) => `#${d.id}`).join(', ')} not emitted within ${TRIGGER_CYCLE_TIMEOUT_MS / 1000} s; executions so far: ${JSON.stringify([...executions.values()].map((x) => ({ id: x.id, status: x.status, ids: x.items.map((d) => d.id) })))}`,
			);
		await n8n.sleep(1000);
		await collect();
	}
	const execs = [...new Set(rows.flatMap((d) => containing(executions, d.id)))];
	assert.equal(
		execs.length,
		1,
		`one execution holds the whole batch (inserted in one statement): ${execs.map((x) => x.id)}`,
	);
	const [x] = execs;
	assert.equal(x.mode, 'trigger', 'execution mode');
	assert.equal(x.status, 'success', `execution status (${x.error && x.error.message})`);
	if (previous) assert.notEqual(x.id, previous.id, 'a later poll than the previous cycle');
	assertEmittedRows(x, rows, labels);
	return x;
}

/**
 * Each row as the trigger emitted it (with its job) and as Prepare Notification mapped it.
 * @param {TriggerExecution} x
 * @param {Json[]} rows
 * @param {string[]} labels
 */
function assertEmittedRows(x, rows, labels) {
	for (const row of rows) {
		const item = x.items.find((d) => d.id === row.id);
		assertDownload(item, { what: 'emitted download' });
		assert.equal(item.job_id, row.job_id, 'job_id');
		assert.equal(
			item.job.url,
			`https://${labels[rows.indexOf(row)]}.trigger.e2e.example.com/`,
			'job.url (Include Job)',
		);
		assert.equal(item.job.status, 'finished', 'job.status');
		const n = x.notification[x.items.indexOf(item)];
		assert.deepEqual(
			n,
			{
				site: item.job.url,
				recipient: item.job.email,
				downloadLink: item.download_link,
				expiresAt: item.expires_at,
				files: item.job.files,
			},
			'Prepare Notification item',
		);
	}
}

/**
 * The details of a poll cycle that passed.
 * @param {TriggerExecution} x
 * @param {Json[]} rows
 * @param {number} insertedAt
 */
function describeCycle(x, rows, insertedAt) {
	const others = x.items.length - rows.length;
	return `execution ${x.id} (mode trigger, success) ${seconds(Date.now() - insertedAt)} after the insert: ${rows.map((d) => `download #${d.id} (job ${d.job_id})`).join(', ')}${others ? ` + ${others} other new download(s) from the workflows running meanwhile` : ''}; each with job.url, expires_at = created_at + 24 h, is_expired false; Prepare Notification mapped ${x.notification.length} item(s)`;
}

/**
 * The node and credential types n8n start serves over REST; returns the details.
 * @param {Json} srv the running n8n (stack/n8n/lib.js startN8n)
 * @param {number} readyMs
 */
async function servesThePack(srv, readyMs) {
	const nodeTypes = await srv.nodeTypes();
	assert.deepEqual(
		(nodeTypes.byPackage[PACKAGE] || []).sort(),
		[NODE_TYPE, TOOL_TYPE, TRIGGER_TYPE],
		'node types',
	);
	const cred = (await srv.credentialTypes()).find(
		(/** @type {Json} */ c) => c.name === CREDENTIAL_TYPE,
	);
	assert.ok(cred, `credential type ${CREDENTIAL_TYPE}`);
	for (const type of [NODE_TYPE, TRIGGER_TYPE])
		assert.ok(
			cred.supportedNodes.includes(type),
			`supportedNodes ${cred.supportedNodes} lacks ${type}`,
		);
	return `ready in ${seconds(readyMs)}; /types/nodes.json has the 3 node types, /types/credentials.json has ${CREDENTIAL_TYPE} ("${cred.displayName}") for ${cred.supportedNodes.join(', ')}`;
}

/**
 * Every download the suite inserted was emitted exactly once, nothing older at all, over at least
 * three executions, and every poll answered; returns the details.
 * @param {{ executions: Map<string, TriggerExecution>, inserted: Json[], baseline: Json, seqBefore: number }} run
 */
async function exactlyOnceAcrossCycles({ executions, inserted, baseline, seqBefore }) {
	const emu = /** @type {Emulator} */ (ctx.emu);
	const seeds = /** @type {NonNullable<typeof ctx.seeds>} */ (ctx.seeds);
	const all = [...executions.values()];
	const counts = countIds(all.map((x) => x.items.map((d) => d.id)));
	const twice = [...counts].filter(([, c]) => c > 1);
	assert.deepEqual(twice, [], 'downloads emitted more than once');
	for (const d of inserted)
		assert.equal(
			counts.get(d.id),
			1,
			`inserted download #${d.id} emitted ${counts.get(d.id) || 0} times`,
		);
	assert.ok(
		!counts.has(baseline.id),
		`baseline download #${baseline.id} (inserted before activation) was emitted`,
	);
	for (const seed of [seeds.validSeed, seeds.expiredSeed])
		assert.ok(!counts.has(seed.id), `pre-existing download #${seed.id} was emitted`);
	const withInserted = all.filter((x) => x.items.some((d) => inserted.some((i) => i.id === d.id)));
	assert.ok(
		withInserted.length >= 3,
		`inserted downloads spread over ${withInserted.length} executions`,
	);
	const polls = (await emu.log()).filter((e) => e.seq > seqBefore && isTriggerPoll(e));
	assert.ok(
		polls.every((e) => e.status === 200 || e.status === 206),
		`poll statuses ${polls.map((e) => e.status)}`,
	);
	return `${inserted.length} inserted downloads in ${withInserted.length} executions, each exactly once; ${counts.size} distinct downloads emitted in ${all.length} executions, none twice; baseline #${baseline.id} and older ones not emitted; ${polls.length} polls (activation + ${polls.length - 1} scheduled, one a minute)`;
}

/**
 * The server logged no error but one per tool call the MCP checks made fail; returns the details.
 * @param {Json} srv the running n8n (stack/n8n/lib.js startN8n)
 * @param {string[]} failedTools
 */
function serverLogClean(srv, failedTools) {
	// n8n logs each tool call that failed at level error: the MCP checks made these fail on purpose.
	const expected = failedTools.map((name) => `Error while executing Tool ${name}: `);
	const errorLines = srv.logs().filter((/** @type {Json} */ l) => l.level === 'error');
	const errors = errorLines.filter(
		(/** @type {Json} */ l) => !expected.some((start) => String(l.message).startsWith(start)),
	);
	assert.deepEqual(
		errors.map((/** @type {Json} */ l) => l.message),
		[],
		'error lines',
	);
	assert.equal(errorLines.length, failedTools.length, 'one error line per tool call made to fail');
	return `${srv.logs().length} log lines, none at level error${failedTools.length ? ` but the ${failedTools.length} tool calls the MCP checks made fail` : ''}`;
}

/**
 * The trigger live in `n8n start`: the pack served, three poll cycles, each download once; then,
 * with the workflows done, the credential test, the MCP checks and the server log.
 * @param {Json} workflow
 * @param {Json} baseline the download inserted before n8n started
 * @param {number} seqBefore the emulator's last request before n8n started
 * @param {Promise<unknown>} workflowsDone
 */
async function triggerLive(workflow, baseline, seqBefore, workflowsDone) {
	const { emu } = ctx;
	const t0 = Date.now();
	const srv = await n8n.startN8n({ env: ctx.env, timeoutMs: 180_000 });
	ctx.server = srv;
	const readyMs = Date.now() - t0;
	await check('n8n start serves the pack (types over REST)', () => servesThePack(srv, readyMs));

	// Activation polls once (the baseline): only after it may new downloads go in.
	const firstPoll = await waitForTriggerPoll(
		emu,
		seqBefore,
		60_000,
		`no poll of the trigger reached the emulator within 60 s of n8n being ready; server log: ${srv.logFile}`,
	);
	note(
		`trigger active: baseline poll ${seconds(firstPoll.at - t0)} after n8n start (status ${firstPoll.status}); baseline download #${baseline.id} inserted before activation`,
	);

	const executions = new Map(); // id → { id, mode, status, startedAt, items, notification }
	const collect = () =>
		collectFinishedExecutions(srv, workflow.id, executions, (full, id) => ({
			id,
			mode: full.mode,
			status: full.status,
			error: full.data && full.data.resultData && full.data.resultData.error,
			items: n8n.nodeItems(full, 'Website Export Trigger') || [],
			notification: n8n.nodeItems(full, 'Prepare Notification') || [],
		}));
	const batches = [['cycle-1'], ['cycle-2a', 'cycle-2b'], ['cycle-3']];
	const inserted = /** @type {Json[]} */ ([]);
	let previous = /** @type {TriggerExecution | null} */ (null);
	for (const [index, labels] of batches.entries()) {
		const rows = await insertTriggerDownloads(labels);
		inserted.push(...rows);
		const insertedAt = Date.now();
		const ok = await check(`trigger poll cycle ${index + 1} (trigger-download-ready, live)`, () =>
			pollCycle({ rows, labels, insertedAt, executions, collect, previous }).then((x) => {
				previous = x;
				return describeCycle(x, rows, insertedAt);
			}),
		);
		if (!ok) break;
	}

	await collect();
	await check('trigger exactly once across poll cycles (trigger-download-ready, live)', () =>
		exactlyOnceAcrossCycles({ executions, inserted, baseline, seqBefore }),
	);

	// Alone, once the workflows are done: no `n8n execute` logs in meanwhile, so the token check
	// can leave exactly this window out (trigger polls use the stored token).
	await workflowsDone;
	await credentialTest(srv);
	const failedTools = await mcpChecks(srv);

	await check('n8n server log has no errors', () => serverLogClean(srv, failedTools));
	await srv.stop();
	ctx.server = null;
}

// ---------------------------------------------------------------------------------------------

async function finish() {
	// n8n CLI calls, npm and provision.sh run in process groups of their own: a Ctrl-C or the
	// suite's timeout does not reach them by itself.
	if (typeof n8n.killActiveRuns === 'function') await n8n.killActiveRuns('SIGTERM').catch(() => {});
	if (ctx.server) await ctx.server.stop().catch(() => {});
	if (ctx.emu) await ctx.emu.stop().catch(() => {});
	if (ctx.packDir) fs.rmSync(ctx.packDir, { recursive: true, force: true });
	if (ctx.uf) {
		if (KEEP || counts.failed > 0) note(`kept the n8n user folder: ${ctx.uf.userFolder}`);
		else ctx.uf.cleanup();
	}
}

const end = runSuite(main, {
	finish,
	summary: () => {
		const runs = ctx.runs.map((x) => x.durationMs);
		return [
			...(runs.length
				? [
						`${runs.length} n8n execute runs, ${seconds(Math.min(...runs))}–${seconds(Math.max(...runs))} each`,
					]
				: []),
			`e2e finished in ${elapsed()}`,
		];
	},
});
