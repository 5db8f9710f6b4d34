'use strict';
/**
 * Real-n8n helpers for the e2e suite and `npm start`: provision a pinned n8n + Node 24,
 * pack this repo, make throwaway n8n user folders with the package installed as a
 * community package, and drive the n8n CLI / a started instance.
 *
 * Plain CommonJS, node: modules only; runs on Node 20 or 24. n8n itself always runs on the
 * provisioned Node 24 (n8n 2.x refuses Node < 24). See README.md beside this file.
 */

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const SCRIPT_DIR = __dirname;
const PROVISION_SH = path.join(SCRIPT_DIR, 'provision.sh');

/** Fixed, not secret: throwaway user folders only. A folder keeps the key it was created with. */
const DEFAULT_ENCRYPTION_KEY = 'n8n-nodes-website-export-e2e-not-a-secret';
/** n8n's own defaults: never let a test instance take these (5679 = task broker). */
const RESERVED_PORTS = new Set([5678, 5679]);
/** Backend modules that are not needed and/or phone home (mcp-registry calls api.n8n.io). */
const DISABLED_MODULES = [
	'mcp-registry',
	'instance-ai',
	'agents',
	'chat-hub',
	'workflow-builder',
	'insights',
];
const DEFAULT_OWNER = Object.freeze({
	email: 'owner@example.com',
	password: 'Wex-e2e-Passw0rd',
	firstName: 'Wex',
	lastName: 'Owner',
});

// ---------------------------------------------------------------------------------------------
// small utilities

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** run() children still running (provision.sh, npm, n8n CLI calls): process-group id → exit promise. */
const activeRuns = new Map();

/**
 * Stop every command that run() started and that is still running (each is in its own process
 * group, so a terminal's Ctrl-C does not reach it): for a caller that handles SIGINT itself and
 * must not leave, say, a half-done provision.sh behind. Sends `signal` to each group, waits up
 * to `timeoutMs` for them to exit, then SIGKILLs what is left. Resolves to how many there were.
 */
async function killActiveRuns(signal = 'SIGTERM', { timeoutMs = 5000 } = {}) {
	const runs = [...activeRuns.entries()];
	for (const [pid] of runs) killGroup(pid, signal);
	let timer;
	await Promise.race([
		Promise.all(runs.map(([, exited]) => exited)),
		new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
	]);
	clearTimeout(timer);
	for (const [pid] of runs) killGroup(pid, 'SIGKILL'); // stragglers in the groups, if any
	return runs.length;
}

/** Run a command, capture output. Never rejects on a non-zero exit unless `check` is true. */
function run(cmd, args, { cwd, env, timeoutMs = 10 * 60 * 1000, check = false, stdio } = {}) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const child = spawn(cmd, args, {
			cwd,
			env: env || process.env,
			detached: true, // own process group, so a timeout can kill the whole tree
			stdio: stdio || ['ignore', 'pipe', 'pipe'],
		});
		activeRuns.set(child.pid, new Promise((done) => child.once('close', done).once('error', done)));
		let stdout = '';
		let stderr = '';
		if (child.stdout) child.stdout.on('data', (d) => (stdout += d));
		if (child.stderr) child.stderr.on('data', (d) => (stderr += d));
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child.pid, 'SIGKILL');
		}, timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			activeRuns.delete(child.pid);
			reject(err);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			activeRuns.delete(child.pid);
			const result = { code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started };
			if (check && (code !== 0 || timedOut)) {
				const err = new Error(
					`${cmd} ${args.join(' ')} failed (code ${code}${signal ? `, signal ${signal}` : ''}${timedOut ? ', timed out' : ''})\n` +
						tail([stdout.trim(), stderr.trim()].filter(Boolean).join('\n'), 4000),
				);
				err.result = result;
				reject(err);
			} else resolve(result);
		});
	});
}

function tail(text, n) {
	return text.length > n ? '…' + text.slice(-n) : text;
}

function killGroup(pid, signal) {
	if (!pid) return false;
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		try {
			process.kill(pid, signal);
			return true;
		} catch {
			return false;
		}
	}
}

/** A free TCP port on 127.0.0.1 (never 5678/5679). */
async function getFreePort() {
	for (let attempt = 0; attempt < 20; attempt++) {
		const port = await new Promise((resolve, reject) => {
			const srv = net.createServer();
			srv.unref();
			srv.on('error', reject);
			srv.listen(0, '127.0.0.1', () => {
				const { port: p } = srv.address();
				srv.close(() => resolve(p));
			});
		});
		if (!RESERVED_PORTS.has(port)) return port;
	}
	throw new Error('could not find a free port');
}

// ---------------------------------------------------------------------------------------------
// provisioning

let provisioned = null;

/**
 * Install (first time, ~6 min) or reuse (~0.01 s) the pinned n8n + Node 24.
 * Resolves to { nodeBin, n8nBin, nodeDir, prefix, dir, n8nVersion, nodeVersion }.
 * Progress goes to this process's stderr. Set WEX_CACHE_DIR to move the cache.
 * `n8n` (default: env WEX_N8N) selects another n8n: '1' = 1.123.81 beside the 2.x default.
 */
async function provision({ force = false, n8n = process.env.WEX_N8N } = {}) {
	if (provisioned && !force) return provisioned;
	// n8n: '1' (1.123.81), '2' (the default pin) or an exact version; also from WEX_N8N.
	const res = await run('bash', [PROVISION_SH, '--json', ...(n8n ? ['--n8n', String(n8n)] : [])], {
		stdio: ['ignore', 'pipe', 'inherit'],
		timeoutMs: 30 * 60 * 1000,
	});
	if (res.code !== 0) throw new Error(`provision.sh failed with code ${res.code}`);
	const line = res.stdout.trim().split('\n').pop();
	const j = JSON.parse(line);
	provisioned = {
		nodeBin: j.N8N_NODE_BIN,
		n8nBin: j.N8N_BIN,
		nodeDir: j.N8N_NODE_DIR,
		prefix: j.N8N_PREFIX,
		dir: j.N8N_PROVISION_DIR,
		n8nVersion: j.N8N_PINNED_VERSION,
		nodeVersion: j.N8N_NODE_VERSION,
	};
	return provisioned;
}

// ---------------------------------------------------------------------------------------------
// packing and user folders

/**
 * `npm run build` (unless build:false) and `npm pack` of repoDir into a fresh temp dir.
 * Resolves to the absolute .tgz path.
 */
async function packPackage(repoDir, { build = true, outDir } = {}) {
	repoDir = path.resolve(repoDir);
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	if (build) await run(npm, ['run', 'build'], { cwd: repoDir, check: true });
	const dest = outDir || (await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-pack-')));
	await fsp.mkdir(dest, { recursive: true });
	const res = await run(npm, ['pack', '--json', '--pack-destination', dest], {
		cwd: repoDir,
		check: true,
	});
	const info = JSON.parse(res.stdout.slice(res.stdout.indexOf('[')));
	return path.join(dest, info[0].filename);
}

function readTarballPackageJson(tarball) {
	// tar is on every Linux/macOS box; n8n itself shells out to it the same way.
	return run('tar', ['-xzOf', tarball, 'package/package.json'], { check: true }).then((r) =>
		JSON.parse(r.stdout),
	);
}

/**
 * Install a packed community package the way n8n 2.41's own installer does
 * (CommunityPackagesService.downloadPackage): untar into <n8nDir>/nodes/node_modules/<name>,
 * drop dev/peer/optional deps from its package.json, `npm install` its runtime deps (if any)
 * inside the package dir with --ignore-scripts, and record it in nodes/package.json.
 * Never `npm install <tgz>` into nodes/: npm would also install the peer `n8n-workflow`,
 * a second copy that breaks `instanceof` checks inside n8n.
 */
async function installCommunityPackage(n8nDir, tarball) {
	const pkg = await readTarballPackageJson(tarball);
	const nodesDir = path.join(n8nDir, 'nodes');
	const dest = path.join(nodesDir, 'node_modules', ...pkg.name.split('/'));
	await fsp.rm(dest, { recursive: true, force: true });
	await fsp.mkdir(dest, { recursive: true });
	await run('tar', ['-xzf', path.resolve(tarball), '-C', dest, '--strip-components=1'], {
		check: true,
	});
	const pjPath = path.join(dest, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...rest } = JSON.parse(
		await fsp.readFile(pjPath, 'utf8'),
	);
	await fsp.writeFile(pjPath, JSON.stringify(rest, null, 2));
	if (rest.dependencies && Object.keys(rest.dependencies).length) {
		await run(
			'npm',
			[
				'install',
				'--omit=dev',
				'--ignore-scripts',
				'--install-strategy=shallow',
				'--package-lock=false',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
			],
			{ cwd: dest, check: true },
		);
	}
	const ledgerPath = path.join(nodesDir, 'package.json');
	let ledger = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		ledger = JSON.parse(await fsp.readFile(ledgerPath, 'utf8'));
		ledger.dependencies = ledger.dependencies || {};
	} catch {
		/* new ledger */
	}
	ledger.dependencies[pkg.name] = pkg.version;
	await fsp.writeFile(ledgerPath, JSON.stringify(ledger, null, 2));
	return {
		name: pkg.name,
		version: pkg.version,
		dir: dest,
		nodes: (pkg.n8n && pkg.n8n.nodes) || [],
		credentials: (pkg.n8n && pkg.n8n.credentials) || [],
	};
}

/**
 * Make an N8N_USER_FOLDER (n8n keeps everything in <userFolder>/.n8n) with the given
 * tarball(s) installed as community packages.
 *   { tarball?, tarballs?: [], dir?: reuse/create this folder instead of a temp one, root?: temp parent }
 * Resolves to { userFolder, n8nDir, packages: [...], env(extra), cleanup() }.
 */
async function makeUserFolder({ tarball, tarballs = [], dir, root } = {}) {
	const userFolder = dir
		? path.resolve(dir)
		: await fsp.mkdtemp(path.join(root || os.tmpdir(), 'wex-n8n-'));
	const n8nDir = path.join(userFolder, '.n8n');
	await fsp.mkdir(path.join(n8nDir, 'nodes', 'node_modules'), { recursive: true });
	const all = [...(tarball ? [tarball] : []), ...tarballs];
	const packages = [];
	for (const t of all) packages.push(await installCommunityPackage(n8nDir, t));
	return {
		userFolder,
		n8nDir,
		packages,
		env: (extra) => n8nEnv(userFolder, extra),
		cleanup: () => fs.rmSync(userFolder, { recursive: true, force: true }),
	};
}

// ---------------------------------------------------------------------------------------------
// environment

/**
 * The environment for any n8n command against userFolder: hermetic (inherited N8N_*, DB_*,
 * EXECUTIONS_*, QUEUE_* variables are dropped), offline, quiet, loopback only.
 * `extra` is applied last (use it for N8N_PORT, N8N_LOG_LEVEL=debug, …); a value of
 * undefined/null removes the variable.
 * Options in extra (not env vars): { codeNode: true } starts the internal JS task runner so
 * that Code nodes work (off by default: our nodes do not need it).
 */
function n8nEnv(userFolder, extra = {}) {
	const { codeNode, ...vars } = extra || {};
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (
			/^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_ENV$)/.test(
				k,
			)
		)
			continue;
		env[k] = v;
	}
	// n8n puts some files in os.tmpdir() (e.g. /tmp/n8nDataTableUploads): keep them in the folder.
	const tmp = path.join(path.resolve(userFolder), '.tmp');
	fs.mkdirSync(tmp, { recursive: true });
	Object.assign(env, {
		TMPDIR: tmp,
		N8N_USER_FOLDER: path.resolve(userFolder),
		N8N_ENCRYPTION_KEY: DEFAULT_ENCRYPTION_KEY,
		// quiet + offline
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_DISABLED_MODULES: DISABLED_MODULES.join(','),
		// community packages: load what is in nodes/node_modules, never fetch or reinstall
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// task runners: a broker always starts (port chosen per process by runN8n/startN8n);
		// "external" mode = no JS/Python runner child. Code nodes need { codeNode: true }.
		N8N_RUNNERS_MODE: codeNode ? 'internal' : 'external',
		N8N_RUNNERS_AUTH_TOKEN: 'wex-e2e-runner-token',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_TASK_TIMEOUT: '300',
		N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 * 1024 * 1024),
		N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
		// nodes must reach the emulator on 127.0.0.1
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		// server: loopback, http
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		// logs: one JSON object per stdout line; `execute --rawOutput` prints its result at
		// level info, so never raise N8N_LOG_LEVEL above info for `execute`.
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_OUTPUT: 'console',
		NO_COLOR: '1',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		DB_TYPE: 'sqlite',
		NO_PROXY: [process.env.NO_PROXY, '127.0.0.1,localhost'].filter(Boolean).join(','),
	});
	for (const [k, v] of Object.entries(vars)) {
		if (v === undefined || v === null) delete env[k];
		else env[k] = String(v);
	}
	return env;
}

/** The variable this n8n reads its webhook base URL from: 2.x deprecates WEBHOOK_URL for N8N_WEBHOOK_URL, which 1.x does not know. */
function webhookUrlVariable(n8nVersion) {
	return /^1\./.test(n8nVersion) ? 'WEBHOOK_URL' : 'N8N_WEBHOOK_URL';
}

/** env for a spawned n8n: opts.env, or n8nEnv(opts.userFolder, opts.extraEnv); Node 24 first on PATH. */
function envFor(opts, p) {
	let env;
	if (opts.env) env = { ...opts.env };
	else if (opts.userFolder) env = n8nEnv(opts.userFolder, opts.extraEnv);
	else throw new Error('pass { env } (from n8nEnv) or { userFolder }');
	if (opts.codeNode) env.N8N_RUNNERS_MODE = 'internal';
	if (env.N8N_DISABLED_MODULES)
		env.N8N_DISABLED_MODULES = knownModules(p, env.N8N_DISABLED_MODULES);
	// n8n 1.x keeps binary data in memory ("default") unless told; 2.x defaults to filesystem.
	if (/^1\./.test(p.n8nVersion) && !env.N8N_DEFAULT_BINARY_DATA_MODE)
		env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';
	const bin = path.join(p.nodeDir, 'bin');
	const rest = (env.PATH || '').split(path.delimiter).filter((d) => d && d !== bin);
	env.PATH = [bin, ...rest].join(path.delimiter);
	return env;
}

/**
 * Keeps only the module names this n8n knows: n8n refuses to start on an unknown one
 * (`Unknown module "mcp-registry"` in 1.123.81, whose list is shorter than 2.41's).
 */
const moduleNamesCache = new Map();
function knownModules(p, list) {
	if (!moduleNamesCache.has(p.prefix)) {
		let names = null;
		try {
			const text = fs.readFileSync(
				path.join(p.prefix, 'node_modules/@n8n/backend-common/dist/modules/modules.config.js'),
				'utf8',
			);
			const m = /MODULE_NAMES = \[([^\]]*)\]/.exec(text);
			if (m) names = [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
		} catch {
			/* unknown layout: keep the list as it is */
		}
		moduleNamesCache.set(p.prefix, names);
	}
	const names = moduleNamesCache.get(p.prefix);
	return names
		? String(list)
				.split(',')
				.filter((n) => names.includes(n.trim()))
				.join(',')
		: list;
}

// ---------------------------------------------------------------------------------------------
// CLI

/**
 * Parse n8n's stdout (N8N_LOG_FORMAT=json): one {level, message, metadata} per line.
 * Lines that are not JSON are kept as { level: 'raw', message }.
 */
function parseLogLines(text) {
	const out = [];
	for (const line of String(text).split('\n')) {
		if (!line.trim()) continue;
		try {
			const j = JSON.parse(line);
			if (j && typeof j === 'object' && 'level' in j && 'message' in j) {
				out.push(j);
				continue;
			}
		} catch {
			/* not a log line */
		}
		out.push({ level: 'raw', message: line });
	}
	return out;
}

/**
 * Spawn the n8n CLI with Node 24: runN8n(['import:workflow', '--input=x.json'], { env | userFolder }).
 * Resolves (also on non-zero exit) to { code, signal, stdout, stderr, logs, timedOut, durationMs,
 * succeeded, crashedAtExit }. Options: { timeoutMs, check (throw unless succeeded), successLog
 * (RegExp on log messages that proves the work was done even if the process then crashed) }.
 * A task-broker port is picked per call unless env has N8N_RUNNERS_BROKER_PORT.
 */
async function runN8n(args, opts = {}) {
	const p = await provision();
	const env = envFor(opts, p);
	if (!env.N8N_RUNNERS_BROKER_PORT) env.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	const res = await run(p.nodeBin, [p.n8nBin, ...args], {
		cwd: opts.cwd || env.N8N_USER_FOLDER,
		env,
		timeoutMs: opts.timeoutMs || 120 * 1000,
	});
	res.logs = parseLogLines(res.stdout);
	// n8n 2.41 with the default `vm` expression engine (isolated-vm) sometimes dies with SIGSEGV
	// while exiting, after its work is done (measured: 3 of 28 CLI runs at 3-way concurrency,
	// 0 of 16 with N8N_EXPRESSION_ENGINE=legacy). With `successLog`, a run killed by a signal
	// whose log shows the success line counts as done.
	res.crashedAtExit = !!(
		res.signal &&
		!res.timedOut &&
		opts.successLog &&
		res.logs.some((l) => typeof l.message === 'string' && opts.successLog.test(l.message))
	);
	res.succeeded = !res.timedOut && (res.code === 0 || res.crashedAtExit);
	if (opts.check && !res.succeeded) throw cliError(args, res);
	return res;
}

function cliError(args, res) {
	const errs = res.logs
		.filter((l) => l.level === 'error' || l.level === 'raw')
		.map((l) => l.message)
		.join('\n');
	const err = new Error(
		`n8n ${args.join(' ')} failed (code ${res.code}${res.timedOut ? ', timed out' : ''})\n` +
			tail(errs || res.stderr || res.stdout, 6000),
	);
	err.result = res;
	return err;
}

async function withJsonFile(data, fn) {
	if (typeof data === 'string') return fn(path.resolve(data));
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-n8n-in-'));
	const file = path.join(dir, 'input.json');
	try {
		await fsp.writeFile(file, JSON.stringify(Array.isArray(data) ? data : [data], null, 2));
		return await fn(file);
	} finally {
		await fsp.rm(dir, { recursive: true, force: true });
	}
}

/**
 * import:credentials. `credentials`: path to a JSON file, or an array of
 * { id, name, type, data: { …plaintext… } } (plaintext data is encrypted on import with
 * the env's N8N_ENCRYPTION_KEY). Throws on failure.
 */
async function importCredentials(credentials, opts = {}) {
	return withJsonFile(credentials, (file) =>
		runN8n(['import:credentials', `--input=${file}`], {
			...opts,
			check: true,
			successLog: /^Successfully imported \d+ credential/,
		}),
	);
}

/**
 * import:workflow. `workflows`: path to a JSON file, or a workflow object / array of them
 * (each with a stable string `id`, nodes, connections). Imported workflows are inactive;
 * use publishWorkflow() before startN8n() for a live trigger. Throws on failure.
 */
async function importWorkflows(workflows, opts = {}) {
	return withJsonFile(workflows, (file) =>
		runN8n(['import:workflow', `--input=${file}`], {
			...opts,
			check: true,
			successLog: /^Successfully imported \d+ workflow/,
		}),
	);
}

/** publish:workflow --id (2.x name for "activate"); takes effect at the next `n8n start`. */
async function publishWorkflow(id, opts = {}) {
	const p = await provision();
	// n8n 1.x has no publish:workflow: there it is `update:workflow --active=true`.
	if (/^1\./.test(p.n8nVersion)) {
		return runN8n(['update:workflow', `--id=${id}`, '--active=true'], {
			...opts,
			check: true,
			successLog: /^Note: Changes will not take effect/,
		});
	}
	// the "Note: …" line is logged after the DB write
	return runN8n(['publish:workflow', `--id=${id}`], {
		...opts,
		check: true,
		successLog: /^Note: Changes will not take effect/,
	});
}

/**
 * Find the IRun object printed by `execute --rawOutput`. With N8N_LOG_FORMAT=json it is the
 * `message` (a pretty-printed JSON string) of an info log line; with the plain format it is
 * a block of lines from "{" to "}". Returns null if absent.
 */
function extractRun(stdout) {
	const isRun = (o) => o && typeof o === 'object' && o.data && o.data.resultData && 'status' in o;
	for (const l of parseLogLines(stdout).reverse()) {
		if (l.level === 'raw' || typeof l.message !== 'string' || l.message[0] !== '{') continue;
		try {
			const o = JSON.parse(l.message);
			if (isRun(o)) return o;
		} catch {
			/* not it */
		}
	}
	const lines = String(stdout).split('\n');
	for (let i = 0; i < lines.length; i++) {
		if (lines[i] !== '{') continue;
		for (let j = lines.length - 1; j > i; j--) {
			if (lines[j] !== '}') continue;
			try {
				const o = JSON.parse(lines.slice(i, j + 1).join('\n'));
				if (isRun(o)) return o;
			} catch {
				/* keep looking */
			}
		}
	}
	return null;
}

/** Items (json only) that node `nodeName` emitted: nodeItems(run, 'Set') → [{…}, …]. */
function nodeItems(run, nodeName, { runIndex = 0, output = 0, withBinary = false } = {}) {
	const r = run && run.data && run.data.resultData && run.data.resultData.runData[nodeName];
	if (!r || !r[runIndex]) return undefined;
	const main = r[runIndex].data && r[runIndex].data.main;
	const items = (main && main[output]) || [];
	return withBinary ? items : items.map((i) => i.json);
}

/**
 * `n8n execute --id=<id> --rawOutput` and parse its result.
 * Resolves to { ok, status, run, error, lastNode, items(nodeName, opts), code, signal, timedOut,
 * logs, stdout, stderr, durationMs }. `run` is the parsed rawOutput (IRun: { data: { resultData: { runData,
 * lastNodeExecuted, error? } }, status, mode: 'cli', startedAt, stoppedAt, finished }).
 * A failed workflow still has `run` (exit code 1, run.data.resultData.error set); `run` is
 * null only if n8n failed before executing (unknown id, crash) — see `logs`.
 * Manual Trigger is the start node; poll triggers are skipped by `execute`.
 */
async function executeWorkflow(id, opts = {}) {
	const res = await runN8n(['execute', `--id=${id}`, '--rawOutput'], opts);
	const runData = extractRun(res.stdout);
	const error = (runData && runData.data.resultData.error) || null;
	const errorLogs = res.logs.filter((l) => l.level === 'error').map((l) => l.message);
	return {
		// Judged on the printed run, not only the exit code: once (under heavy load) an execute
		// process that had printed a complete successful run ended by a signal (code null).
		ok: !!runData && runData.status === 'success' && !error && !res.timedOut,
		status: runData ? runData.status : 'no-output',
		run: runData,
		error:
			error ||
			(runData ? null : { message: errorLogs.join('\n') || tail(res.stdout + res.stderr, 4000) }),
		lastNode: runData ? runData.data.resultData.lastNodeExecuted : undefined,
		items: (nodeName, o) => nodeItems(runData, nodeName, o),
		code: res.code,
		signal: res.signal, // 'SIGSEGV' after a complete run = isolated-vm crash at exit (see runN8n)
		timedOut: res.timedOut,
		logs: res.logs,
		stdout: res.stdout,
		stderr: res.stderr,
		durationMs: res.durationMs,
	};
}

/**
 * Which node types did n8n load? Runs `n8n export:nodes` (no server needed, ~5 s).
 * Resolves to { nodeTypes: [names], byPackage: { pkg: [names] }, failedPackages: [{ name, message }],
 * descriptions: [full descriptions], logs }.
 * Community node type names are "<package name>.<node name>", e.g. "n8n-nodes-website-export.websiteExport".
 * A package whose code throws at load is skipped by n8n with an error log line
 * 'Failed to load package "<name>"' (exit code stays 0): it is reported in failedPackages.
 */
async function listLoadedNodeTypes(opts = {}) {
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-n8n-nodes-'));
	const file = path.join(dir, 'nodes.json');
	try {
		const res = await runN8n(['export:nodes', `--output=${file}`], {
			...opts,
			check: true,
			successLog: /^Successfully exported \d+ node types/,
		});
		let descriptions = null;
		// export:nodes does not wait for its write stream before exiting: re-read briefly if cut.
		for (let i = 0; i < 20 && !descriptions; i++) {
			try {
				descriptions = JSON.parse(await fsp.readFile(file, 'utf8'));
			} catch {
				await sleep(100);
			}
		}
		if (!descriptions) throw new Error(`export:nodes wrote unreadable JSON to ${file}`);
		return summarizeNodeTypes(descriptions, res.logs);
	} finally {
		await fsp.rm(dir, { recursive: true, force: true });
	}
}

function summarizeNodeTypes(descriptions, logs = []) {
	const nodeTypes = [...new Set(descriptions.map((d) => d.name))];
	const byPackage = {};
	for (const n of nodeTypes) {
		const i = n.lastIndexOf('.');
		const pkg = i > 0 ? n.slice(0, i) : '';
		(byPackage[pkg] = byPackage[pkg] || []).push(n);
	}
	const failedPackages = [];
	for (const l of logs) {
		const m = typeof l.message === 'string' && /^Failed to load package "([^"]+)"/.exec(l.message);
		if (m) {
			const e = l.metadata && l.metadata.error;
			failedPackages.push({ name: m[1], message: (e && (e.message || e)) || l.message });
		}
	}
	return { nodeTypes, byPackage, failedPackages, descriptions, logs };
}

// ---------------------------------------------------------------------------------------------
// server

function httpRequest(method, url, { body, headers = {}, timeoutMs = 15000 } = {}) {
	return new Promise((resolve, reject) => {
		const payload =
			body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
		const req = http.request(
			url,
			{
				method,
				headers: {
					accept: 'application/json',
					...(payload !== undefined
						? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
						: {}),
					...headers,
				},
				timeout: timeoutMs,
			},
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let json;
					try {
						json = JSON.parse(text);
					} catch {
						json = undefined;
					}
					resolve({ status: res.statusCode, headers: res.headers, text, json });
				});
			},
		);
		req.on('timeout', () => req.destroy(new Error(`timeout ${method} ${url}`)));
		req.on('error', reject);
		if (payload !== undefined) req.write(payload);
		req.end();
	});
}

/**
 * Spawn a long-running process (a server) in its own process group, its stdout and stderr
 * appended to `logFile`. Returns { child, pid, exited() (null while it runs, else { code, signal }),
 * whenExited (a promise of that), stop({ timeoutMs = 15000 }) }: stop sends SIGTERM to the group,
 * SIGKILL after timeoutMs, then SIGKILL to anything left in the group; it resolves to exited().
 */
function spawnServer(cmd, args, { cwd, env, logFile, append = true } = {}) {
	const out = fs.openSync(logFile, append ? 'a' : 'w');
	const child = spawn(cmd, args, {
		cwd,
		env: env || process.env,
		detached: true,
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	let exited = null;
	const whenExited = new Promise((resolve) =>
		child.on('exit', (code, signal) => resolve((exited = { code, signal }))),
	);
	return {
		child,
		pid: child.pid,
		exited: () => exited,
		whenExited,
		async stop({ timeoutMs = 15000 } = {}) {
			if (exited) return exited;
			killGroup(child.pid, 'SIGTERM');
			const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), timeoutMs);
			await whenExited;
			clearTimeout(t);
			killGroup(child.pid, 'SIGKILL'); // stragglers in the group, if any
			return exited;
		},
	};
}

const liveServers = new Set();
function killLiveServers({ onSignal = false } = {}) {
	for (const h of liveServers) if (!onSignal || h.killOnSignal) killGroup(h.pid, 'SIGKILL');
}
process.on('exit', () => killLiveServers());
// While a server runs, also kill it if this process is interrupted (Ctrl-C, jest timeout, CI
// cancel): 'exit' does not fire on a fatal signal. The signal is re-raised when nobody else
// listens, so default behaviour (dying) is kept.
const signalHandlers = new Map();
function armSignalCleanup() {
	if (signalHandlers.size) return;
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		const h = () => {
			killLiveServers({ onSignal: true });
			disarmSignalCleanup();
			if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
		};
		signalHandlers.set(sig, h);
		process.on(sig, h);
	}
}
function disarmSignalCleanup() {
	for (const [sig, h] of signalHandlers) process.removeListener(sig, h);
	signalHandlers.clear();
}

/**
 * `n8n start` on 127.0.0.1:<port> (a free one if port is 0/undefined), in its own process
 * group; resolves once GET /healthz/readiness answers 200 (GET /healthz answers 200 several
 * seconds earlier, before the instance is usable and before published workflows are active).
 *   { port?, env | userFolder, timeoutMs = 120000, logFile?, codeNode?, killOnSignal = true, onSpawn? }
 * killOnSignal: false leaves SIGINT/SIGTERM/SIGHUP to the caller (who then stops the server
 * itself, gracefully); the server is still SIGKILLed when this process exits.
 * Handle: { port, baseUrl, pid, logFile, startMs, logs(), request(method, path, opts),
 *   login(owner?), rest(method, path, body), nodeTypes(), credentialTypes(),
 *   executions(filter), waitForExecutions({ workflowId, count, timeoutMs }), stop() }.
 */
async function startN8n(opts = {}) {
	const p = await provision();
	const port = opts.port || (await getFreePort());
	const env = envFor(opts, p);
	env.N8N_PORT = String(port);
	if (!env.N8N_RUNNERS_BROKER_PORT) env.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	if (!env.WEBHOOK_URL && !env.N8N_WEBHOOK_URL)
		env[webhookUrlVariable(p.n8nVersion)] = `http://127.0.0.1:${port}/`;
	const logFile = opts.logFile || path.join(env.N8N_USER_FOLDER, `n8n-start-${port}.log`);
	const started = Date.now();
	const server = spawnServer(p.nodeBin, [p.n8nBin, 'start'], {
		cwd: env.N8N_USER_FOLDER,
		env,
		logFile,
	});
	const child = server.child;
	let exited = null;
	const exitPromise = server.whenExited.then((info) => {
		exited = info;
		liveServers.delete(handle);
		if (![...liveServers].some((h) => h.killOnSignal)) disarmSignalCleanup();
		return info;
	});
	const baseUrl = `http://127.0.0.1:${port}`;
	let cookie = '';
	const handle = {
		port,
		baseUrl,
		pid: child.pid,
		process: child,
		env,
		logFile,
		startMs: 0,
		killOnSignal: opts.killOnSignal !== false,
		logs: () => parseLogLines(fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
		request: (method, p2, o = {}) =>
			httpRequest(method, baseUrl + p2, {
				...o,
				headers: { ...(cookie ? { cookie } : {}), ...(o.headers || {}) },
			}),
		/**
		 * Create the owner (while n8n asks for one) or log in; keeps the auth cookie for
		 * rest()/request(). A setup call on an instance that has its owner is answered 400, which
		 * n8n logs as an error: hence the look at its public settings first.
		 */
		async login(owner = DEFAULT_OWNER) {
			const settings = await httpRequest('GET', `${baseUrl}/rest/settings`);
			// Only a clear "no" skips the setup: settings that cannot be read leave it to be tried.
			const hasOwner = settings.json?.data?.userManagement?.showSetupOnFirstLoad === false;
			let r = hasOwner
				? null
				: await httpRequest('POST', `${baseUrl}/rest/owner/setup`, { body: owner });
			if (!r || r.status !== 200) {
				r = await httpRequest('POST', `${baseUrl}/rest/login`, {
					body: { emailOrLdapLoginId: owner.email, password: owner.password },
				});
			}
			if (r.status !== 200)
				throw new Error(`n8n login failed: ${r.status} ${r.text.slice(0, 500)}`);
			const set = [].concat(r.headers['set-cookie'] || []);
			cookie = set.map((c) => c.split(';')[0]).join('; ');
			return r.json && r.json.data;
		},
		/** JSON REST call with the login cookie; resolves to the `data` field, throws on non-2xx. */
		async rest(method, p2, body) {
			if (!cookie) await handle.login();
			const r = await handle.request(method, p2, { body });
			if (r.status < 200 || r.status >= 300)
				throw new Error(`${method} ${p2} → ${r.status} ${r.text.slice(0, 500)}`);
			return r.json && 'data' in r.json ? r.json.data : r.json;
		},
		/** Node type descriptions the running instance serves to its editor (needs login). */
		async nodeTypes() {
			if (!cookie) await handle.login();
			const r = await handle.request('GET', '/types/nodes.json');
			if (r.status !== 200) throw new Error(`/types/nodes.json → ${r.status}`);
			return summarizeNodeTypes(r.json, handle.logs());
		},
		/** Credential type descriptions the running instance serves (names: d.name). */
		async credentialTypes() {
			if (!cookie) await handle.login();
			const r = await handle.request('GET', '/types/credentials.json');
			if (r.status !== 200) throw new Error(`/types/credentials.json → ${r.status}`);
			return r.json;
		},
		/** Executions list (newest first) — e.g. executions({ workflowId }). */
		async executions(filter = {}) {
			const q = encodeURIComponent(JSON.stringify(filter));
			const d = await handle.rest('GET', `/rest/executions?filter=${q}&limit=100`);
			return (d && d.results) || [];
		},
		/** Wait until the workflow has at least `count` finished executions; resolves to them. */
		async waitForExecutions({ workflowId, count = 1, timeoutMs = 60000, status } = {}) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const all = await handle.executions(workflowId ? { workflowId } : {});
				const done = all.filter((e) =>
					status ? e.status === status : !['new', 'running', 'waiting'].includes(e.status),
				);
				if (done.length >= count) return done;
				if (Date.now() > deadline)
					throw new Error(
						`timed out waiting for ${count} executions of ${workflowId}: have ${done.length}`,
					);
				await sleep(500);
			}
		},
		/** Full execution with run data (IRun-like: { data: { resultData: { runData } }, status … }). */
		async execution(id) {
			const d = await handle.rest('GET', `/rest/executions/${id}`);
			if (d && typeof d.data === 'string') d.data = unflatten(d.data);
			return d;
		},
		/** SIGTERM the process group, wait (default 15 s), then SIGKILL. Resolves to the exit info. */
		async stop({ timeoutMs = 15000 } = {}) {
			if (exited) return exited;
			await server.stop({ timeoutMs }); // also kills stragglers in the group (task runners)
			return exitPromise;
		},
	};
	liveServers.add(handle);
	if (handle.killOnSignal) armSignalCleanup();
	if (opts.onSpawn) opts.onSpawn(handle); // e.g. to stop it gracefully if interrupted before it is ready
	const timeoutMs = opts.timeoutMs || 120000;
	try {
		for (;;) {
			if (exited)
				throw new Error(
					`n8n start exited early (${JSON.stringify(exited)}); log: ${logFile}\n${tailLog(logFile)}`,
				);
			if (Date.now() - started > timeoutMs)
				throw new Error(
					`n8n not ready after ${timeoutMs} ms; log: ${logFile}\n${tailLog(logFile)}`,
				);
			try {
				const r = await httpRequest('GET', `${baseUrl}/healthz/readiness`, { timeoutMs: 2000 });
				// n8n 1.x answers readiness before its REST routes exist (404 until then)
				if (
					r.status === 200 &&
					(await httpRequest('GET', `${baseUrl}/rest/login`, { timeoutMs: 2000 })).status !== 404
				)
					break;
			} catch {
				/* not listening yet */
			}
			await sleep(200);
		}
	} catch (e) {
		await handle.stop({ timeoutMs: 5000 });
		throw e;
	}
	handle.startMs = Date.now() - started;
	return handle;
}

function tailLog(file) {
	try {
		return tail(
			parseLogLines(fs.readFileSync(file, 'utf8'))
				.filter((l) => l.level !== 'info')
				.map(
					(l) =>
						`${l.level}: ${typeof l.message === 'string' ? l.message : JSON.stringify(l.message)}`,
				)
				.join('\n'),
			4000,
		);
	} catch {
		return '';
	}
}

/** n8n stores/serves execution data "flatted"; use n8n's own copy of the flatted package. */
function unflatten(text) {
	const candidates = [];
	if (provisioned) candidates.push(path.join(provisioned.prefix, 'node_modules', 'flatted'));
	for (const c of candidates) {
		try {
			return require(c).parse(text);
		} catch {
			/* next */
		}
	}
	return text;
}

module.exports = {
	DEFAULT_ENCRYPTION_KEY,
	DEFAULT_OWNER,
	DISABLED_MODULES,
	provision,
	packPackage,
	makeUserFolder,
	installCommunityPackage,
	n8nEnv,
	webhookUrlVariable,
	runN8n,
	importCredentials,
	importWorkflows,
	publishWorkflow,
	executeWorkflow,
	extractRun,
	nodeItems,
	listLoadedNodeTypes,
	startN8n,
	parseLogLines,
	getFreePort,
	killActiveRuns,
	spawnServer,
	httpRequest,
	sleep,
};
