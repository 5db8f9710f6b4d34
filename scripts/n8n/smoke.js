#!/usr/bin/env node
'use strict';
/**
 * End-to-end smoke test of the real-n8n pipeline, independent of this repo's nodes:
 *   provision → user folder → import credentials/workflows → `execute --rawOutput` (success
 *   and failure) → [community package loaded?] → publish a schedule workflow → `n8n start`
 *   → readiness → login → REST checks → trigger execution seen → stop.
 *
 *   node scripts/n8n/smoke.js                        # built-in nodes only
 *   node scripts/n8n/smoke.js --tarball x.tgz        # also: x.tgz installed and its node types loaded
 *       [--expect-types pkg.nodeA,pkg.nodeB]         #   exact community node types to require
 *   node scripts/n8n/smoke.js --pack .               # npm run build + npm pack <dir>, then as --tarball
 *   node scripts/n8n/smoke.js --no-start             # skip the `n8n start` part
 *   node scripts/n8n/smoke.js --keep                 # keep the throwaway user folder
 *
 * Exit code 0 when every check passed; the last line is "smoke: N passed, N failed".
 */

const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

function parseArgs(argv) {
	const a = { tarball: null, pack: null, expectTypes: null, start: true, keep: false };
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i];
		const val = () => {
			const v = argv[++i];
			if (v === undefined) throw new Error(`${k} needs a value`);
			return v;
		};
		if (k === '--tarball') a.tarball = path.resolve(val());
		else if (k === '--pack') a.pack = path.resolve(val());
		else if (k === '--expect-types') a.expectTypes = val().split(',').filter(Boolean);
		else if (k === '--no-start') a.start = false;
		else if (k === '--keep') a.keep = true;
		else if (k === '-h' || k === '--help') {
			console.log(fs.readFileSync(__filename, 'utf8').split('*/')[0]);
			process.exit(0);
		} else throw new Error(`unknown argument ${k}`);
	}
	return a;
}

const timings = {};
async function timed(name, fn) {
	const t0 = Date.now();
	try {
		return await fn();
	} finally {
		timings[name] = Date.now() - t0;
		console.log(`  [${(timings[name] / 1000).toFixed(2)} s] ${name}`);
	}
}

let passed = 0;
let failed = 0;
function check(name, cond, detail) {
	if (cond) {
		passed++;
		console.log(`ok - ${name}`);
	} else {
		failed++;
		console.log(
			`not ok - ${name}${detail ? `\n    ${String(detail).split('\n').join('\n    ')}` : ''}`,
		);
	}
	return !!cond;
}

const WF_SET = {
	id: 'wexSmokeSet0001',
	name: 'wex smoke: manual → set',
	nodes: [
		{
			id: 'n1',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'n2',
			name: 'Set',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [
						{ id: 'a1', name: 'greeting', value: 'hello', type: 'string' },
						{ id: 'a2', name: 'answer', value: '={{ 40 + 2 }}', type: 'number' },
						{ id: 'a3', name: 'cred', value: 'none', type: 'string' },
					],
				},
				options: {},
			},
		},
	],
	connections: { Start: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
};

const WF_FAIL = {
	id: 'wexSmokeFail001',
	name: 'wex smoke: manual → stop and error',
	nodes: [
		{
			id: 'f1',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'f2',
			name: 'Boom',
			type: 'n8n-nodes-base.stopAndError',
			typeVersion: 1,
			position: [220, 0],
			parameters: { errorMessage: 'boom from smoke' },
		},
	],
	connections: { Start: { main: [[{ node: 'Boom', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
};

const WF_SCHEDULE = {
	id: 'wexSmokeSched01',
	name: 'wex smoke: schedule every 2 s → set',
	nodes: [
		{
			id: 's1',
			name: 'Every 2s',
			type: 'n8n-nodes-base.scheduleTrigger',
			typeVersion: 1.2,
			position: [0, 0],
			parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 2 }] } },
		},
		{
			id: 's2',
			name: 'Set',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: {
				mode: 'manual',
				assignments: { assignments: [{ id: 'b1', name: 'tick', value: 'yes', type: 'string' }] },
				options: {},
			},
		},
	],
	connections: { 'Every 2s': { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
};

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const tStart = Date.now();

	const p = await timed('provision', () => lib.provision());
	console.log(`n8n ${p.n8nVersion} on node ${p.nodeVersion}: ${p.n8nBin}`);

	if (args.pack) args.tarball = await timed('build + npm pack', () => lib.packPackage(args.pack));

	const uf = await timed('make user folder', () =>
		lib.makeUserFolder({ tarball: args.tarball || undefined }),
	);
	console.log(`user folder: ${uf.userFolder}`);
	const pkg = uf.packages[0];
	const env = lib.n8nEnv(uf.userFolder);
	let server = null;
	try {
		await timed('import:credentials', () =>
			lib.importCredentials(
				[
					{
						id: 'wexSmokeCred001',
						name: 'smoke basic auth',
						type: 'httpBasicAuth',
						data: { user: 'u', password: 'p' },
					},
				],
				{ env },
			),
		);
		await timed('import:workflow', () =>
			lib.importWorkflows([WF_SET, WF_FAIL, WF_SCHEDULE], { env }),
		);

		const ok = await timed('execute (success)', () => lib.executeWorkflow(WF_SET.id, { env }));
		check('execute --rawOutput parsed', ok.run !== null, ok.stdout.slice(-2000));
		check('execute status success', ok.ok && ok.status === 'success', JSON.stringify(ok.error));
		if (ok.signal)
			console.log(
				`  (note: execute printed its run, then died with ${ok.signal} at exit — see README gotcha 2)`,
			);
		const items = ok.items('Set') || [];
		check(
			'Set node produced { greeting: "hello", answer: 42 }',
			items.length === 1 && items[0].greeting === 'hello' && items[0].answer === 42,
			JSON.stringify(items),
		);
		check('lastNodeExecuted is Set', ok.lastNode === 'Set', ok.lastNode);

		const bad = await timed('execute (failing workflow)', () =>
			lib.executeWorkflow(WF_FAIL.id, { env }),
		);
		check(
			'failing workflow: ok=false, exit code 1 (or SIGSEGV at exit), error message kept',
			!bad.ok &&
				(bad.code === 1 || bad.signal === 'SIGSEGV') &&
				bad.status === 'error' &&
				bad.error &&
				/boom from smoke/.test(bad.error.message),
			JSON.stringify({
				code: bad.code,
				signal: bad.signal,
				status: bad.status,
				error: bad.error && bad.error.message,
			}),
		);

		if (pkg) {
			const types = await timed('export:nodes (loaded node types)', () =>
				lib.listLoadedNodeTypes({ env }),
			);
			const mine = types.byPackage[pkg.name] || [];
			console.log(`package ${pkg.name}@${pkg.version}: n8n loaded ${JSON.stringify(mine)}`);
			check(
				`n8n did not fail to load ${pkg.name}`,
				!types.failedPackages.some((f) => f.name === pkg.name),
				JSON.stringify(types.failedPackages),
			);
			check(
				`n8n loaded ${pkg.nodes.length} node type(s) from ${pkg.name}`,
				mine.length === pkg.nodes.length && mine.length > 0,
				`package.json n8n.nodes: ${JSON.stringify(pkg.nodes)}`,
			);
			if (args.expectTypes) {
				const missing = args.expectTypes.filter((t) => !mine.includes(t));
				check(
					`expected node types loaded: ${args.expectTypes.join(', ')}`,
					missing.length === 0,
					`missing: ${missing.join(', ')}`,
				);
			}
		}

		if (args.start) {
			await timed('publish:workflow (schedule)', () =>
				lib.publishWorkflow(WF_SCHEDULE.id, { env }),
			);
			server = await timed('n8n start → /healthz/readiness 200', () => lib.startN8n({ env }));
			console.log(`n8n listening on ${server.baseUrl} (log ${server.logFile})`);
			const health = await server.request('GET', '/healthz');
			check(
				'/healthz answers {"status":"ok"}',
				health.status === 200 && health.json && health.json.status === 'ok',
				health.text,
			);
			await timed('owner setup + login', () => server.login());
			const rtypes = await timed('GET /types/nodes.json', () => server.nodeTypes());
			check(
				'REST node types include n8n-nodes-base.set',
				rtypes.nodeTypes.includes('n8n-nodes-base.set'),
			);
			if (pkg) {
				const mine = rtypes.byPackage[pkg.name] || [];
				check(
					`running n8n serves ${pkg.name} node types`,
					mine.length === pkg.nodes.length && mine.length > 0,
					JSON.stringify(mine),
				);
				const ctypes = await server.credentialTypes();
				const credFiles = pkg.credentials.length;
				const names = ctypes.map((c) => c.name);
				const fromPkg = ctypes.filter((c) =>
					(c.supportedNodes || []).some((n) => n.startsWith(`${pkg.name}.`)),
				);
				console.log(
					`credential types serving ${pkg.name} nodes: ${JSON.stringify(fromPkg.map((c) => c.name))} (${names.length} types total)`,
				);
				if (credFiles)
					check(
						`credential types for ${pkg.name} are served`,
						fromPkg.length >= 1,
						`${credFiles} declared`,
					);
			}
			const execs = await timed('schedule trigger fired (published workflow)', () =>
				server.waitForExecutions({ workflowId: WF_SCHEDULE.id, count: 1, timeoutMs: 30000 }),
			);
			check(
				'published schedule workflow ran in trigger mode',
				execs[0].mode === 'trigger' && execs[0].status === 'success',
				JSON.stringify(execs[0]),
			);
			const full = await server.execution(execs[0].id);
			const tick = lib.nodeItems(full, 'Set');
			check(
				'execution data readable over REST',
				Array.isArray(tick) && tick[0] && tick[0].tick === 'yes',
				JSON.stringify(tick),
			);
			const problems = server
				.logs()
				.filter((l) => l.level === 'error')
				.map((l) => l.message);
			check(
				'n8n start logged no errors (offline: nothing phoned home)',
				problems.length === 0,
				problems.join('\n').slice(0, 3000),
			);
			await timed('stop (SIGTERM process group)', () => server.stop());
			server = null;
		}
	} finally {
		if (server) await server.stop();
		if (args.keep) console.log(`kept ${uf.userFolder}`);
		else uf.cleanup();
	}
	const total = Date.now() - tStart;
	console.log(`\ntimings (ms): ${JSON.stringify({ ...timings, total })}`);
	console.log(`smoke: ${passed} passed, ${failed} failed`);
	process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
	console.error(err && err.stack ? err.stack : err);
	console.log(`smoke: ${passed} passed, ${failed + 1} failed`);
	process.exitCode = 1;
});
