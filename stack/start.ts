#!/usr/bin/env node
/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, @typescript-eslint/no-explicit-any, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * `npm start`: a local n8n editor with this node pack, a ready credential and the example
 * workflows, talking to the Website Export emulator instead of the paid service.
 *
 *   npm start                 http://localhost:5678 (n8n) + http://127.0.0.1:54321 (emulator)
 *   npm start -- --reimport   import the example workflows and the credential again (replaces edits)
 *   npm start -- --fresh      delete .n8n-local/ first: new database, owner, examples
 *   npm start -- --queue      queue mode: Postgres, Redis, n8n main + 2 workers (watch executions spread)
 *
 * As a module: `startStack(options)` starts the same stack (used by the browser check, test/browser/stack.ts)
 * and resolves to a handle with `stop()`.
 *
 * It runs on the machine's Node 20 (under tsx); n8n itself runs on the Node 24 that
 * stack/n8n/provision.sh installs from the npm registry (see stack/n8n/README.md).
 */

import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs as parseCommandLine } from 'node:util';

import * as n8n from './n8n/lib';
import * as services from './n8n/services';
import { startServiceProcess } from './service/launch';
import * as queue from './n8n/queue';

const REPO = path.resolve(__dirname, '..');
const PACKAGE_NAME = 'n8n-nodes-website-export';
const NODE_TYPES = [`${PACKAGE_NAME}.websiteExport`, `${PACKAGE_NAME}.websiteExportTrigger`];
const CREDENTIAL_TYPE = 'websiteExportApi';

export const DEFAULTS = Object.freeze({
	n8nPort: 5678,
	emulatorPort: 54321,
	/** Persistent (gitignored): the database with the owner, credential, workflows and executions. */
	userFolder: path.join(REPO, '.n8n-local'),
	examplesDir: path.join(REPO, 'examples'),
});

/** The editor login printed for the newcomer (n8n wants 8+ characters, a digit and an uppercase letter). */
export const DEMO_OWNER = Object.freeze({
	email: 'demo@example.com',
	password: 'Demo-Passw0rd',
	firstName: 'Demo',
	lastName: 'User',
});

/** The credential the examples use; its id is the one the example workflows reference. */
export const CREDENTIAL = Object.freeze({
	id: 'website-export-demo',
	name: 'Website Export (local emulator)',
});

/** What a newcomer can fix: printed without a stack trace. */
export class StartError extends Error {}

// ---------------------------------------------------------------------------------------------
// small helpers

function seconds(ms: number) {
	return ms >= 60000
		? `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`
		: `${(ms / 1000).toFixed(1)} s`;
}

function hash(value: unknown) {
	return crypto.createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

function rel(p: string) {
	const r = path.relative(process.cwd(), p);
	return r && !r.startsWith('..') ? r : p;
}

/** Throws a StartError unless nothing listens on `port` (on 127.0.0.1, nor on ::1 where a browser may look first). */
async function assertPortFree(port: number, what: string) {
	const busy = (err?: NodeJS.ErrnoException) =>
		new StartError(
			`Port ${port} (${what}) is already in use${err ? ` (${err.code})` : ''}. ` +
				`Is another n8n or \`npm start\` still running? Stop it and run \`npm start\` again ` +
				`(\`ss -ltnp 'sport = :${port}'\` shows which process holds the port).`,
		);
	await new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.once('error', (err: NodeJS.ErrnoException) =>
			reject(err.code === 'EADDRINUSE' || err.code === 'EACCES' ? busy(err) : err),
		);
		srv.listen(port, '127.0.0.1', () => srv.close(resolve));
	});
	const takenOnV6 = await new Promise((resolve) => {
		const sock = net.connect({ host: '::1', port });
		sock.setTimeout(1000);
		sock.once('connect', () => (sock.destroy(), resolve(true)));
		sock.once('error', () => resolve(false));
		sock.once('timeout', () => (sock.destroy(), resolve(false)));
	});
	if (takenOnV6) throw busy();
}

function assertDependenciesInstalled() {
	const needed = ['typescript', 'gulp', 'n8n-workflow'];
	const missing = needed.filter(
		(m) => !fs.existsSync(path.join(REPO, 'node_modules', m, 'package.json')),
	);
	if (missing.length) {
		throw new StartError(
			`This checkout's dependencies are not installed (missing: ${missing.join(', ')}).\n` +
				`Run this first, in ${REPO}:\n\n    npm ci\n\nthen \`npm start\` again.`,
		);
	}
}

/** Where provision.sh keeps (or will keep) the pinned n8n + Node 24, and whether it is complete. */
export function provisionCache() {
	const sh = fs.readFileSync(path.join(__dirname, 'n8n', 'provision.sh'), 'utf8');
	const pin = (name: string) => (new RegExp(`^${name}=(\\S+)`, 'm').exec(sh) || [])[1];
	const n8nVersion = process.env.WEX_N8N_VERSION || pin('_wex_n8n_version_default');
	const nodeVersion = process.env.WEX_NODE_VERSION || pin('_wex_node_version_default');
	const root =
		process.env.WEX_CACHE_DIR || path.join(os.homedir(), '.cache', 'n8n-nodes-website-export');
	const dir = path.join(root, `n8n-${n8nVersion}-node-${nodeVersion}`);
	return {
		root,
		dir,
		n8nVersion,
		nodeVersion,
		complete: fs.existsSync(path.join(dir, '.complete')),
	};
}

/** The first provisioning compiles sqlite3 for Node 24 (node-gyp): say so before a 5-minute install fails. */
function assertBuildToolsForProvisioning() {
	const missing = ['python3', 'make', 'g++'].filter((tool) => !services.which(tool));
	if (missing.length) {
		throw new StartError(
			`The first start compiles sqlite3 for Node 24 and needs ${missing.join(', ')}, which this machine lacks.\n` +
				'On Debian/Ubuntu:\n\n    sudo apt-get install -y python3 make g++\n',
		);
	}
}

// ---------------------------------------------------------------------------------------------
// examples and the credential

/** The workflows in examples/*.json (a file may hold one workflow or an array), sorted by name. */
export function readExamples(
	dir: string,
): (Record<string, any> & { id: string; name: string; file: string; nodes: any[] })[] {
	if (!fs.existsSync(dir)) return [];
	const workflows = [];
	for (const f of fs
		.readdirSync(dir)
		.filter((x) => x.endsWith('.json'))
		.sort()) {
		const data = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
		for (const wf of Array.isArray(data) ? data : [data]) {
			if (!wf || typeof wf !== 'object' || !Array.isArray(wf.nodes)) continue;
			if (!wf.id)
				throw new StartError(
					`${path.join(dir, f)}: a workflow without an "id" cannot be imported idempotently`,
				);
			workflows.push({ ...wf, file: f });
		}
	}
	return workflows.sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** The credential id the examples use most (they are written against one fixed id). */
function credentialIdOf(workflows: ReturnType<typeof readExamples>) {
	const count: Map<string, number> = new Map();
	for (const wf of workflows)
		for (const node of wf.nodes) {
			const ref = node.credentials && node.credentials[CREDENTIAL_TYPE];
			if (ref && ref.id) count.set(ref.id, (count.get(ref.id) || 0) + 1);
		}
	const [best] = [...count.entries()].sort((a, b) => b[1] - a[1]);
	return best ? best[0] : CREDENTIAL.id;
}

/** Which workflow / credential ids already exist in the folder's database (Node 24 has node:sqlite). */
async function existingIds(
	nodeBin: string,
	dbFile: string,
): Promise<{ workflows: string[]; credentials: string[] } | null> {
	if (!fs.existsSync(dbFile)) return { workflows: [], credentials: [] };
	const script = `
		const { DatabaseSync } = require('node:sqlite');
		const db = new DatabaseSync(process.argv[1], { readOnly: true });
		const ids = (t) => { try { return db.prepare('SELECT id FROM ' + t).all().map((r) => r.id); } catch { return []; } };
		console.log(JSON.stringify({ workflows: ids('workflow_entity'), credentials: ids('credentials_entity') }));`;
	const r = await n8n.run(nodeBin, ['--no-warnings', '-e', script, dbFile], { timeoutMs: 30000 });
	if (r.code !== 0) return null; // unknown: import everything
	return JSON.parse(r.stdout.trim().split('\n').pop() || '');
}

/**
 * Imports the credential and the example workflows that are missing from the database or
 * changed since the last start (or all of them with `force`). Workflows a user edited in the
 * editor are left alone until their example file changes.
 */
async function importDemoData({
	env,
	nodeBin,
	userFolder,
	credential,
	workflows,
	force,
	log,
}: {
	env: NodeJS.ProcessEnv;
	nodeBin: string;
	userFolder: string;
	credential: DemoCredential;
	workflows: ReturnType<typeof readExamples>;
	force: boolean;
	log: (message: string) => void;
}) {
	const stateFile = path.join(userFolder, '.n8n', 'npm-start-imports.json');
	let state: Record<string, string> = {};
	try {
		state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
	} catch {
		/* first start */
	}
	const existing = await existingIds(nodeBin, path.join(userFolder, '.n8n', 'database.sqlite'));
	const stale = (kind: 'workflows' | 'credentials', id: string, h: string) =>
		force || !existing || !existing[kind].includes(id) || state[`${kind}:${id}`] !== h;

	const credHash = hash(credential);
	const wfs = workflows.map((workflow) => {
		const wf: Partial<typeof workflow> = { ...workflow };
		delete wf.file; // where it came from, not part of the workflow
		return { wf: wf as typeof workflow, h: hash(wf) };
	});
	const todoWfs = wfs.filter(({ wf, h }) => stale('workflows', wf.id, h));
	if (stale('credentials', credential.id, credHash)) {
		const t = Date.now();
		await n8n.importCredentials([credential], { env });
		state[`credentials:${credential.id}`] = credHash;
		log(`  imported the credential "${credential.name}" (${seconds(Date.now() - t)})`);
	}
	if (todoWfs.length) {
		const t = Date.now();
		await n8n.importWorkflows(
			todoWfs.map((x) => x.wf),
			{ env },
		);
		for (const { wf, h } of todoWfs) state[`workflows:${wf.id}`] = h;
		log(
			`  imported ${todoWfs.length} example workflow(s): ${todoWfs.map((x) => x.wf.name).join(', ')} (${seconds(Date.now() - t)})`,
		);
	}
	fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
}

// ---------------------------------------------------------------------------------------------
// the stack

export type N8nServer = import('./n8n/server').N8nServer;
export type Emulator = import('./service/launch').ServiceProcess;
export type Cluster = Awaited<ReturnType<typeof queue.startCluster>>;
export type Provisioned = import('./n8n/provision').Provisioned;
export type Owner = { email: string; password: string; firstName: string; lastName: string };
export type DemoCredential = {
	id: string;
	name: string;
	type: string;
	data: Record<string, string>;
};
export type StackOptions = {
	n8nPort: number;
	emulatorPort: number;
	userFolder: string;
	examplesDir: string;
	owner: Owner;
	reimport: boolean;
	queue?: boolean;
	log: (message: string) => void;
	onStarted?: (what: 'emulator' | 'cluster' | 'n8n', handle: any) => void;
};
export type StackParts = { n8n?: N8nServer | null; emulator?: Emulator | null; cluster?: Cluster };
export type Stack = {
	n8n: N8nServer;
	emulator: Emulator;
	cluster?: Cluster;
	userFolder: string;
	owner: Owner;
	timings: Record<string, number>;
	credential: { id: string; name: string };
	workflows: { id: string; name: string; file: string }[];
	editorUrl: string;
	banner: () => string;
	stop: () => Promise<void>;
};

/**
 * `fn`'s answer, its duration recorded in `timings[key]`.
 */
async function timed<T>(timings: Record<string, number>, key: string, fn: () => Promise<T>) {
	const t = Date.now();
	const answer = await fn();
	timings[key] = Date.now() - t;
	return answer;
}

/**
 * provision(), saying so when it takes long (the first install does).
 */
async function provisionWithProgress(
	cache: ReturnType<typeof provisionCache>,
	timings: Record<string, number>,
	log: (message: string) => void,
) {
	const t = Date.now();
	let slow: NodeJS.Timeout | undefined;
	const first = setTimeout(
		() => {
			log(
				`  n8n runtime: not cached yet. The first start installs Node ${cache.nodeVersion} and n8n ${cache.n8nVersion} from the npm registry,\n` +
					`  once (the README's Getting started says how long it takes), 3 GB in ${cache.root.replace(os.homedir(), '~')}.`,
			);
			slow = setInterval(
				() => log(`  n8n runtime: still installing (${seconds(Date.now() - t)})`),
				60000,
			);
		},
		cache.complete ? 3000 : 0,
	);
	try {
		const p = await n8n.provision();
		timings.provisionMs = Date.now() - t;
		log(
			`  n8n runtime: n8n ${p.n8nVersion} on Node ${p.nodeVersion} (${seconds(timings.provisionMs)})`,
		);
		return p;
	} finally {
		clearTimeout(first);
		clearInterval(slow);
	}
}

/**
 * In parallel: the n8n runtime, this pack (built and packed).
 */
async function prepareInParallel(
	cache: ReturnType<typeof provisionCache>,
	timings: Record<string, number>,
	log: (message: string) => void,
) {
	log('Preparing (in parallel): the n8n runtime, this node pack');
	const packing = timed(timings, 'packMs', () => n8n.packPackage(REPO)).then((pack) => {
		log(`  node pack: ${path.basename(pack.tarball)} (${seconds(timings.packMs)})`);
		return pack;
	});
	const [p, pack] = await Promise.allSettled([provisionWithProgress(cache, timings, log), packing]);
	if (p.status === 'rejected') throw p.reason;
	if (pack.status === 'rejected') throw pack.reason;
	return { p: p.value, pack: pack.value };
}

/**
 * The credential the examples use, pointing at the running emulator.
 */
function demoCredential(
	emulator: Emulator,
	workflows: ReturnType<typeof readExamples>,
): DemoCredential {
	return {
		id: credentialIdOf(workflows),
		name: CREDENTIAL.name,
		type: CREDENTIAL_TYPE,
		data: {
			baseUrl: emulator.baseUrl,
			apiKey: emulator.apiKey,
			email: emulator.demoUser.email,
			password: emulator.demoUser.password,
		},
	};
}

/**
 * n8n itself: one process, or in queue mode a throwaway Postgres and Redis, the main process and
 * 2 workers (the demo data goes into that Postgres before main starts). Answers the main process.
 */
async function startEditor(
	o: StackOptions,
	parts: StackParts,
	{
		env,
		editorEnv,
		userFolder,
		importInto,
	}: {
		env: NodeJS.ProcessEnv;
		editorEnv: import('./n8n/env').N8nEnvExtra;
		userFolder: string;
		importInto: (env: NodeJS.ProcessEnv) => Promise<void>;
	},
): Promise<N8nServer> {
	if (o.queue) {
		o.log(
			`Starting Postgres, Redis, n8n main on http://localhost:${o.n8nPort} and 2 workers (queue mode) ...`,
		);
		parts.cluster = await queue.startCluster({
			userFolder,
			workers: 2,
			port: o.n8nPort,
			killOnSignal: false,
			extraEnv: editorEnv,
			beforeStart: importInto,
		});
		if (o.onStarted) o.onStarted('cluster', parts.cluster);
		return parts.cluster.main;
	}
	o.log(`Starting n8n on http://localhost:${o.n8nPort} ...`);
	// its log is appended to: keep the previous one when it grows large
	const logFile = path.join(o.userFolder, 'n8n.log');
	if (fs.existsSync(logFile) && fs.statSync(logFile).size > 20 * 1024 * 1024)
		fs.renameSync(logFile, `${logFile}.old`);
	return n8n.startN8n({
		env,
		port: o.n8nPort,
		logFile,
		killOnSignal: false, // the caller stops it gracefully (SIGTERM) on Ctrl-C
		timeoutMs: 180000,
		onSpawn: (h) => o.onStarted && o.onStarted('n8n', h),
	});
}

/**
 * Log in as the owner (set up on the first start) and check that n8n loaded this pack's nodes.
 */
async function loginAndCheckNodes(server: N8nServer, o: StackOptions) {
	try {
		await server.login(o.owner);
	} catch (e) {
		throw new StartError(
			`Could not log in to n8n as ${o.owner.email}: ${e.message}\n` +
				`The folder ${rel(o.userFolder)} has an owner with another password. Log in with yours, ` +
				'or start over with `npm start -- --fresh` (deletes that folder: workflows and executions too).',
		);
	}
	const types = await server.nodeTypes();
	const loaded = types.byPackage[PACKAGE_NAME] || [];
	const missing = NODE_TYPES.filter((t) => !loaded.includes(t));
	if (missing.length) {
		const why = types.failedPackages
			.filter((f) => f.name === PACKAGE_NAME)
			.map((f) => f.message)
			.join('; ');
		throw new StartError(
			`n8n did not load ${missing.join(', ')}${why ? `: ${why}` : ''} (log: ${server.logFile})`,
		);
	}
}

/**
 * Checks that can fail before anything starts: dependencies, free ports, the examples.
 */
async function preflight(o: StackOptions) {
	assertDependenciesInstalled();
	await assertPortFree(o.n8nPort, 'n8n editor');
	await assertPortFree(o.emulatorPort, 'Website Export emulator');
	const workflows = readExamples(o.examplesDir);
	const cache = provisionCache();
	if (!cache.complete) assertBuildToolsForProvisioning();
	return { workflows, cache };
}

/**
 * Install the fresh tarball as a community package into the user folder (replaces the previous one).
 */
async function installPack(o: StackOptions, pack: { tarball: string; dispose: () => void }) {
	const uf = await n8n.makeUserFolder({ dir: o.userFolder, tarball: pack.tarball });
	pack.dispose();
	o.log(
		`  installed ${PACKAGE_NAME}@${uf.packages[0].version} into ${rel(path.join(uf.n8nDir, 'nodes'))}`,
	);
	return uf;
}

/**
 * The editor's variables (both modes: a playground where Code nodes run, on localhost) and the
 * whole environment of its n8n commands.
 */
function editorEnvironment(o: StackOptions, n8nVersion: string, userFolder: string) {
	const editorEnv = {
		codeNode: true,
		N8N_HOST: 'localhost',
		N8N_EDITOR_BASE_URL: `http://localhost:${o.n8nPort}/`,
		[n8n.webhookUrlVariable(n8nVersion)]: `http://localhost:${o.n8nPort}/`,
	};
	// n8nEnv sets the one fixed N8N_ENCRYPTION_KEY: the folder keeps its first key.
	const env = n8n.n8nEnv(userFolder, editorEnv);
	return { editorEnv, env };
}

/** Where the stack's emulator writes its output. */
const emulatorLog = (userFolder: string) => path.join(userFolder, 'emulator.log');

/**
 * The emulator of the stack, recorded in `parts` (so that a failure later stops it) and announced.
 */
async function startStackEmulator(o: StackOptions, parts: StackParts) {
	const logFile = emulatorLog(o.userFolder);
	let emulator;
	try {
		emulator = await startServiceProcess({ port: o.emulatorPort, logFile });
	} catch (e) {
		throw new StartError((e as Error).message);
	}
	parts.emulator = emulator;
	if (o.onStarted) o.onStarted('emulator', emulator);
	o.log(`Emulator running on ${emulator.baseUrl}`);
	return emulator;
}

/**
 * Provision (cached), build + pack + install this pack into `userFolder`, start the emulator,
 * import the credential + examples, start n8n and set up (or log in) the owner.
 *
 * Options: { n8nPort = 5678, emulatorPort = 54321, userFolder = .n8n-local, examplesDir,
 *   owner = DEMO_OWNER, reimport = false, log = console.log, onStarted(component) }.
 * Resolves to { n8n (lib handle), emulator, userFolder, owner, credential, workflows, editorUrl,
 *   timings, banner(), stop() }. On failure everything already started is stopped again.
 */
export async function startStack(options: Partial<StackOptions> = {}): Promise<Stack> {
	const o: StackOptions = {
		...DEFAULTS,
		owner: DEMO_OWNER,
		reimport: false,
		log: console.log,
		...options,
	};
	const t0 = Date.now();
	const timings: Record<string, number> = {};
	const parts: StackParts = {};
	const { workflows, cache } = await preflight(o);
	try {
		const { p, pack } = await prepareInParallel(cache, timings, o.log);
		const uf = await installPack(o, pack);
		const emulator = await startStackEmulator(o, parts);
		const { editorEnv, env } = editorEnvironment(o, cache.n8nVersion, uf.userFolder);
		const credential = demoCredential(emulator, workflows);
		const importInto = (importEnv: NodeJS.ProcessEnv, force: boolean) =>
			importDemoData({
				env: importEnv,
				nodeBin: p.nodeBin,
				userFolder: uf.userFolder,
				credential,
				workflows,
				force,
				log: o.log,
			});
		if (!o.queue) await timed(timings, 'importMs', () => importInto(env, o.reimport));
		else timings.importMs = 0;
		const server = await timed(timings, 'n8nStartMs', () =>
			startEditor(o, parts, {
				env,
				editorEnv,
				userFolder: uf.userFolder,
				importInto: (queueEnv) => importInto(queueEnv, true),
			}),
		);
		parts.n8n = server;
		await loginAndCheckNodes(server, o);
		timings.totalMs = Date.now() - t0;
		const stack: Stack = {
			n8n: server,
			emulator,
			cluster: parts.cluster,
			userFolder: o.userFolder,
			owner: o.owner,
			timings,
			credential: { id: credential.id, name: credential.name },
			workflows: workflows.map((wf) => ({ id: wf.id, name: wf.name, file: wf.file })),
			editorUrl: `http://localhost:${o.n8nPort}`,
			banner: () => banner(stack),
			stop: () => stopStack(parts),
		};
		return stack;
	} catch (e) {
		await stopStack(parts);
		throw e;
	}
}

/**
 * Stops n8n (SIGTERM to its process group, then SIGKILL after 15 s) and the emulator, in parallel.
 */
export async function stopStack(stack: StackParts) {
	await Promise.all([
		n8n.killActiveRuns('SIGTERM'), // a command still under way (provision, build, import)
		// Queue mode: workers, main, then Redis and Postgres.
		stack.cluster ? stack.cluster.stop() : stack.n8n && stack.n8n.stop({ timeoutMs: 15000 }),
		stack.emulator && stack.emulator.stop(),
	]);
}

function banner(stack: Stack) {
	const url = stack.editorUrl;
	const emu = stack.emulator.baseUrl;
	const rule = '─'.repeat(78);
	const wfs = stack.workflows.length
		? stack.workflows.flatMap((w) => [`   • ${w.name}`, `       ${url}/workflow/${w.id}`])
		: ['    (none yet: examples/ has no workflows)'];
	return [
		rule,
		stack.cluster
			? ` n8n is running in queue mode with the Website Export nodes: main + ${stack.cluster.workers.length} workers (logs: ${rel(path.join(stack.userFolder, 'n8n-main.log'))}, n8n-worker-*.log)`
			: ' n8n is running with the Website Export nodes',
		'',
		`   Open     ${url}`,
		`   Log in   ${stack.owner.email}  /  ${stack.owner.password}`,
		'',
		' Example workflows: open one, then click "Execute workflow" at the bottom of the canvas',
		...wfs,
		` They use the credential "${stack.credential.name}" (already set up).`,
		'',
		` Emulator (a local stand-in for the Website Export service)   ${emu}`,
		'   Jobs finish 3 s after they are created. Its data lives in a throwaway Postgres: it is empty again after a restart.',
		`   Reset:        curl -X POST ${emu}/__emulator/reset`,
		`   Skip 1 hour:  curl -X POST ${emu}/__emulator/clock -H 'content-type: application/json' -d '{"advanceMs":3600000}'`,
		`   Request log:  curl ${emu}/__emulator/log           (more: stack/service/README.md)`,
		'',
		` Logs: ${rel(stack.n8n.logFile)}, ${rel(emulatorLog(stack.userFolder))}`,
		' Press Ctrl-C to stop n8n and the emulator.',
		rule,
	].join('\n');
}

/**
 * Calls `onGone` once if this process's parent exits. `npm start` does not pass a SIGTERM on
 * to its script (it just exits), which would leave us and our children running. npm runs a
 * script as `sh -c "<script>"` (package.json says `exec node …` so that the shell becomes us, but
 * not every caller does): the shell waits for us and outlives npm, so when our parent is such a
 * shell, its parent is watched too.
 */
export function whenParentExits(onGone: () => void) {
	const parent = process.ppid;
	const ancestors = [parent, ...shellParent(parent)].filter((pid) => pid > 1);
	const timer = setInterval(() => {
		if (process.ppid !== parent || !ancestors.every(isAlive)) {
			clearInterval(timer);
			onGone();
		}
	}, 500);
	timer.unref();
	return () => clearInterval(timer);
}

/** [the shell's parent] when `pid` is a shell (Linux /proc), else []. */
function shellParent(pid: number): number[] {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
		if (!/^(sh|dash|bash|zsh)$/.test(comm)) return [];
		return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])];
	} catch {
		return [];
	}
}

function isAlive(pid: number) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

// ---------------------------------------------------------------------------------------------
// CLI

/** The flags (node:util's parseArgs): --fresh, --reimport, --queue, --help. */
function parseArgs(argv: string[]) {
	const flag = { type: 'boolean', default: false } as const;
	const options = { fresh: flag, reimport: flag, queue: flag, help: { ...flag, short: 'h' } };
	try {
		return parseCommandLine({ args: argv, options }).values;
	} catch (error) {
		throw new StartError(
			`${(error as Error).message} (known: --fresh, --reimport, --queue, --help)`,
		);
	}
}

/** The usage lines at the top of this file. */
function printHelp() {
	console.log(
		fs
			.readFileSync(__filename, 'utf8')
			.split('\n')
			.slice(3, 11)
			.map((l) => l.replace(/^ \* ?/, ''))
			.join('\n'),
	);
}

/**
 * Ctrl-C, SIGTERM, SIGHUP stop the stack; a second press a moment later forces the stop.
 */
function stopOnSignals(
	shutdown: (reason: string, code: number) => Promise<void>,
	stopping: () => boolean,
) {
	let firstSignalAt = 0;
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]) {
		process.on(sig, () => {
			// `npm start` forwards the terminal's Ctrl-C, so one press can arrive twice: only a
			// second press a moment later forces the stop.
			if (stopping() && Date.now() - firstSignalAt > 1000) {
				console.log('Forced stop.');
				process.exit(130); // the exit handlers SIGKILL what is left
			}
			if (!stopping()) firstSignalAt = Date.now();
			shutdown(sig, 0);
		});
	}
}

/**
 * If either process dies on its own, say so and stop the other one.
 */
function stopWhenEitherDies(
	stack: Stack,
	shutdown: (reason: string, code: number) => Promise<void>,
) {
	stack.emulator.exited.then(() =>
		shutdown(`The emulator stopped unexpectedly (see ${rel(emulatorLog(stack.userFolder))})`, 1),
	);
	stack.n8n.exited.then(({ code, signal }) =>
		shutdown(
			`n8n stopped unexpectedly (code ${code}, signal ${signal}; see ${rel(stack.n8n.logFile)})`,
			1,
		),
	);
}

async function main(argv: string[]) {
	const flags = parseArgs(argv);
	if (flags.help) return printHelp();
	const started = Date.now();
	let stack: Stack | null = null;
	const partial: StackParts & Record<string, unknown> = { n8n: null, emulator: null };
	let stopping: Promise<void> | null = null;

	const shutdown = (reason: string, code: number) => {
		if (stopping) return stopping;
		const t = Date.now();
		console.log(`\n${reason}: stopping n8n and the emulator ...`);
		stopping = stopStack(stack || partial).then(
			() => {
				console.log(`Stopped (${seconds(Date.now() - t)}).`);
				process.exit(code);
			},
			(e) => {
				console.error(e);
				process.exit(1);
			},
		);
		return stopping;
	};
	stopOnSignals(shutdown, () => stopping !== null);
	whenParentExits(() => shutdown('The parent process exited', 0));

	if (flags.fresh && fs.existsSync(DEFAULTS.userFolder)) {
		console.log(`--fresh: deleting ${rel(DEFAULTS.userFolder)}`);
		await fsp.rm(DEFAULTS.userFolder, { recursive: true, force: true });
	}
	try {
		stack = await startStack({
			reimport: flags.reimport,
			queue: flags.queue,
			onStarted: (what, handle) => (partial[what] = handle),
		});
	} catch (e) {
		if (stopping) return; // interrupted while starting: shutdown() exits
		console.error(`\nnpm start failed: ${e instanceof StartError ? e.message : e.stack || e}`);
		process.exit(1);
	}
	if (stopping) return;
	console.log(`Ready in ${seconds(Date.now() - started)}.\n`);
	console.log(stack.banner());
	stopWhenEitherDies(stack, shutdown);
}

if (require.main === module) {
	main(process.argv.slice(2)).catch((e) => {
		console.error(e instanceof StartError ? e.message : e.stack || e);
		process.exit(1);
	});
}
