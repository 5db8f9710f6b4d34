#!/usr/bin/env node
/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * The `npm start` stack (stack/start.ts is its command): a local n8n editor with this node pack, a
 * ready credential and the example workflows, talking to the Website Export emulator instead of
 * the paid service. `startStack(options)` starts it (also for the browser check,
 * test/browser/stack.ts) and resolves to a handle with `stop()`.
 *
 * It runs on the machine's Node 20 (under tsx); n8n itself runs on the Node 24 that
 * stack/n8n/provision.sh installs from the npm registry (see stack/n8n/README.md).
 */

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import * as n8n from './n8n/lib';
import * as services from './n8n/services';
import { startServiceProcess } from './service/launch';
import * as queue from './n8n/queue';
import { CREDENTIAL, DEMO_OWNER, StartError, readExamples, saveDemoData } from './demo-data';

const REPO = path.resolve(__dirname, '..');
const PACKAGE_NAME = 'n8n-nodes-website-export';
const NODE_TYPES = [`${PACKAGE_NAME}.websiteExport`, `${PACKAGE_NAME}.websiteExportTrigger`];

export const DEFAULTS = Object.freeze({
	n8nPort: 5678,
	emulatorPort: 54321,
	/** Persistent (gitignored): the database with the owner, credential, workflows and executions. */
	userFolder: path.join(REPO, '.n8n-local'),
	examplesDir: path.join(REPO, 'examples'),
});

export function seconds(ms: number) {
	return ms >= 60000
		? `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`
		: `${(ms / 1000).toFixed(1)} s`;
}

export function rel(p: string) {
	const r = path.relative(process.cwd(), p);
	return r && !r.startsWith('..') ? r : p;
}

/** Throws a StartError unless `port` is free: a listen on every address (IPv4 and IPv6) succeeds. */
async function assertPortFree(port: number, what: string) {
	const free = await new Promise<boolean>((resolve) => {
		const probe = net.createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, () => probe.close(() => resolve(true)));
	});
	if (free) return;
	throw new StartError(
		`Port ${port} (${what}) is already in use. Is another n8n or \`npm start\` still running? ` +
			`Stop it and run \`npm start\` again, or pick other ports (\`npm start -- --help\`; ` +
			`\`ss -ltnp 'sport = :${port}'\` shows which process holds the port).`,
	);
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
function provisionCache() {
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

export type N8nServer = import('./n8n/server').N8nServer;
export type Emulator = import('./service/launch').ServiceProcess;
export type Cluster = Awaited<ReturnType<typeof queue.startCluster>>;
export type Owner = { email: string; password: string; firstName: string; lastName: string };
export type StackOptions = {
	n8nPort: number;
	emulatorPort: number;
	userFolder: string;
	examplesDir: string;
	owner: Owner;
	reimport: boolean;
	queue?: boolean;
	log: (message: string) => void;
	/** Filled in as each part starts: what to stop when interrupted before the stack is ready. */
	parts?: StackParts;
};
export type StackParts = { n8n?: N8nServer; emulator?: Emulator; cluster?: Cluster };
export type Stack = {
	n8n: N8nServer;
	emulator: Emulator;
	cluster?: Cluster;
	userFolder: string;
	owner: Owner;
	credential: { id: string; name: string };
	workflows: { id: string; name: string; file: string }[];
	editorUrl: string;
	banner: () => string;
	stop: () => Promise<void>;
};

/**
 * In parallel: the n8n runtime (saying so when it takes long, as the first install does) and this
 * pack, built and packed. Resolves to the pack once both are done.
 */
async function prepareInParallel(
	cache: ReturnType<typeof provisionCache>,
	log: (message: string) => void,
) {
	log('Preparing (in parallel): the n8n runtime, this node pack');
	const t = Date.now();
	let slow: NodeJS.Timeout | undefined;
	const first = setTimeout(
		() => {
			log(
				`  n8n runtime: not cached yet. The first start installs Node ${cache.nodeVersion} and n8n ${cache.n8nVersion} from the npm registry,\n` +
					`  once (docs/local-service.md says how long it takes), 3 GB in ${cache.root.replace(os.homedir(), '~')}.`,
			);
			slow = setInterval(
				() => log(`  n8n runtime: still installing (${seconds(Date.now() - t)})`),
				60000,
			);
		},
		cache.complete ? 3000 : 0,
	);
	const provisioning = n8n
		.provision()
		.then((p) =>
			log(
				`  n8n runtime: n8n ${p.n8nVersion} on Node ${p.nodeVersion} (${seconds(Date.now() - t)})`,
			),
		)
		.finally(() => {
			clearTimeout(first);
			clearInterval(slow);
		});
	const packing = n8n.packPackage(REPO).then((pack) => {
		log(`  node pack: ${path.basename(pack.tarball)} (${seconds(Date.now() - t)})`);
		return pack;
	});
	const [provisioned, packed] = await Promise.allSettled([provisioning, packing]);
	if (provisioned.status === 'rejected') throw provisioned.reason;
	if (packed.status === 'rejected') throw packed.reason;
	return packed.value;
}

/**
 * n8n itself, a playground where Code nodes run, on localhost: one process, or in queue mode a
 * throwaway Postgres and Redis, the main process and 2 workers. Answers the main process.
 */
async function startEditor(
	o: StackOptions,
	parts: StackParts,
	{ userFolder, n8nVersion }: { userFolder: string; n8nVersion: string },
): Promise<N8nServer> {
	const editorEnv = {
		codeNode: true,
		N8N_HOST: 'localhost',
		N8N_EDITOR_BASE_URL: `http://localhost:${o.n8nPort}/`,
		[n8n.webhookUrlVariable(n8nVersion)]: `http://localhost:${o.n8nPort}/`,
	};
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
		});
		return parts.cluster.main;
	}
	o.log(`Starting n8n on http://localhost:${o.n8nPort} ...`);
	// its log is appended to: keep the previous one when it grows large
	const logFile = path.join(o.userFolder, 'n8n.log');
	if (fs.existsSync(logFile) && fs.statSync(logFile).size > 20 * 1024 * 1024)
		fs.renameSync(logFile, `${logFile}.old`);
	return n8n.startN8n({
		// n8nEnv sets the one fixed N8N_ENCRYPTION_KEY: the folder keeps its first key.
		env: n8n.n8nEnv(userFolder, editorEnv),
		port: o.n8nPort,
		logFile,
		killOnSignal: false, // the caller stops it gracefully (SIGTERM) on Ctrl-C
		timeoutMs: 180000,
		onSpawn: (h) => (parts.n8n = h), // stopped gracefully if interrupted before it is ready
	});
}

/** Log in as the owner (set up on the first start) and check that n8n loaded this pack's nodes. */
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

/** Checks that can fail before anything starts: dependencies, free ports, the examples. */
async function preflight(o: StackOptions) {
	assertDependenciesInstalled();
	await assertPortFree(o.n8nPort, 'n8n editor');
	await assertPortFree(o.emulatorPort, 'Website Export emulator');
	const workflows = readExamples(o.examplesDir);
	const cache = provisionCache();
	if (!cache.complete) assertBuildToolsForProvisioning();
	return { workflows, cache };
}

/** Install the fresh tarball as a community package into the user folder (replaces the previous one). */
async function installPack(o: StackOptions, pack: { tarball: string; dispose: () => void }) {
	const uf = await n8n.makeUserFolder({ dir: o.userFolder, tarball: pack.tarball });
	pack.dispose();
	o.log(
		`  installed ${PACKAGE_NAME}@${uf.installed.version} into ${rel(path.join(uf.n8nDir, 'nodes'))}`,
	);
	return uf;
}

/** Where the stack's emulator writes its output. */
export const emulatorLog = (userFolder: string) => path.join(userFolder, 'emulator.log');

/** The emulator of the stack, recorded in `parts` (so that a failure later stops it) and announced. */
async function startStackEmulator(o: StackOptions, parts: StackParts) {
	const logFile = emulatorLog(o.userFolder);
	let emulator;
	try {
		emulator = await startServiceProcess({ port: o.emulatorPort, logFile });
	} catch (e) {
		throw new StartError((e as Error).message);
	}
	parts.emulator = emulator;
	o.log(`Emulator running on ${emulator.baseUrl}`);
	return emulator;
}

/**
 * Provision (cached), build + pack + install this pack into `userFolder`, start the emulator and
 * n8n, set up (or log in) the owner, then save the credential and the examples over REST. On
 * failure everything already started is stopped again.
 */
export async function startStack(options: Partial<StackOptions> = {}): Promise<Stack> {
	const o: StackOptions = {
		...DEFAULTS,
		owner: DEMO_OWNER,
		reimport: false,
		log: console.log,
		...options,
	};
	const parts = o.parts ?? {};
	const { workflows, cache } = await preflight(o);
	try {
		const pack = await prepareInParallel(cache, o.log);
		const uf = await installPack(o, pack);
		const emulator = await startStackEmulator(o, parts);
		const { userFolder } = uf;
		const server = await startEditor(o, parts, { userFolder, n8nVersion: cache.n8nVersion });
		parts.n8n = server;
		await loginAndCheckNodes(server, o);
		const demo = await saveDemoData(server, {
			emulator,
			workflows,
			stateFile: path.join(uf.n8nDir, 'npm-start-imports.json'),
			force: o.reimport,
		});
		if (demo.saved.length)
			o.log(`  saved ${demo.saved.length} example workflow(s): ${demo.saved.join(', ')}`);
		const stack: Stack = {
			n8n: server,
			emulator,
			cluster: parts.cluster,
			userFolder: o.userFolder,
			owner: o.owner,
			credential: { id: demo.credentialId, name: CREDENTIAL.name },
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

/** Stops n8n (SIGTERM to its process group, then SIGKILL after 15 s) and the emulator, in parallel. */
export async function stopStack(stack: StackParts) {
	await Promise.all([
		n8n.killActiveRuns(), // a command still under way (provision, build)
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
