'use strict';
/** The n8n command line driven from the tooling: import, publish, execute, list the loaded node types. */

const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { run, tail, getFreePort, sleep } = require('./process');
const { provision, isN8n1 } = require('./provision');
const { envFor } = require('./env');
const { parseLogLines } = require('./logs');

/**
 * @typedef {import('./logs').LogLine} LogLine
 * @typedef {import('./process').RunResult & { logs: LogLine[], succeeded: boolean,
 *   crashedAtExit: boolean }} CliResult
 * @typedef {import('./env').EnvSource & { cwd?: string, timeoutMs?: number, check?: boolean,
 *   successLog?: RegExp }} CliOptions
 * @typedef {{ runIndex?: number, output?: number, withBinary?: boolean }} NodeItemsOptions
 * @typedef {{ name: string } & Record<string, any>} NodeTypeDescription untyped JSON from n8n, read by the suites
 */

/**
 * The IRun that `execute --rawOutput` prints: n8n's untyped JSON, narrowed by isRun.
 * @typedef {{ status: string, data: { resultData: { runData: Record<string, any[]>,
 *   lastNodeExecuted?: string, error?: any } } } & Record<string, any>} N8nRun
 */

/**
 * Spawn the n8n CLI with Node 24: runN8n(['import:workflow', '--input=x.json'], { env | userFolder }).
 * Resolves (also on non-zero exit) to the run's result with its parsed `logs`, `succeeded` and
 * `crashedAtExit`. Options: { timeoutMs, check (throw unless succeeded), successLog (RegExp on
 * log messages that proves the work was done even if the process then crashed) }.
 * A task-broker port is picked per call unless env has N8N_RUNNERS_BROKER_PORT.
 * @param {string[]} args
 * @param {CliOptions} [opts]
 * @returns {Promise<CliResult>}
 */
async function runN8n(args, opts = {}) {
	const p = await provision();
	const env = envFor(opts, p);
	if (!env.N8N_RUNNERS_BROKER_PORT) env.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	const ran = await run(p.nodeBin, [p.n8nBin, ...args], {
		cwd: opts.cwd || env.N8N_USER_FOLDER,
		env,
		timeoutMs: opts.timeoutMs || 120 * 1000,
	});
	const logs = parseLogLines(ran.stdout);
	const { successLog } = opts;
	// n8n 2.41 with the default `vm` expression engine (isolated-vm) sometimes dies with SIGSEGV
	// while exiting, after its work is done (measured: 3 of 28 CLI runs at 3-way concurrency,
	// 0 of 16 with N8N_EXPRESSION_ENGINE=legacy). With `successLog`, a run killed by a signal
	// whose log shows the success line counts as done.
	const crashedAtExit = !!(
		ran.signal &&
		!ran.timedOut &&
		successLog &&
		logs.some((l) => typeof l.message === 'string' && successLog.test(l.message))
	);
	const succeeded = !ran.timedOut && (ran.code === 0 || crashedAtExit);
	const res = { ...ran, logs, crashedAtExit, succeeded };
	if (opts.check && !res.succeeded) throw cliError(args, res);
	return res;
}

/**
 * @param {string[]} args
 * @param {CliResult} res
 */
function cliError(args, res) {
	const errs = res.logs
		.filter((l) => l.level === 'error' || l.level === 'raw')
		.map((l) => l.message)
		.join('\n');
	/** @type {import('./process').ResultError} */
	const err = new Error(
		`n8n ${args.join(' ')} failed (code ${res.code}${res.timedOut ? ', timed out' : ''})\n` +
			tail(errs || res.stderr || res.stdout, 6000),
	);
	err.result = res;
	return err;
}

/**
 * `fn` given a JSON file: `data` itself when it is a path, else a temporary file holding it.
 * @template T
 * @param {string | object} data
 * @param {(file: string) => Promise<T>} fn
 * @returns {Promise<T>}
 */
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
 * `n8n import:<kind> --input=<file>` of `data` (a path, or objects written to a temporary file).
 * @param {'credentials' | 'workflow'} kind
 * @param {RegExp} successLog
 * @param {string | object} data
 * @param {CliOptions} opts
 */
function importJson(kind, successLog, data, opts) {
	return withJsonFile(data, (file) =>
		runN8n([`import:${kind}`, `--input=${file}`], { ...opts, check: true, successLog }),
	);
}

/**
 * import:credentials. `credentials`: path to a JSON file, or an array of
 * { id, name, type, data: { …plaintext… } } (plaintext data is encrypted on import with
 * the env's N8N_ENCRYPTION_KEY). Throws on failure.
 * @param {string | object} credentials
 * @param {CliOptions} [opts]
 */
async function importCredentials(credentials, opts = {}) {
	return importJson('credentials', /^Successfully imported \d+ credential/, credentials, opts);
}

/**
 * import:workflow. `workflows`: path to a JSON file, or a workflow object / array of them
 * (each with a stable string `id`, nodes, connections). Imported workflows are inactive;
 * use publishWorkflow() before startN8n() for a live trigger. Throws on failure.
 * @param {string | object} workflows
 * @param {CliOptions} [opts]
 */
async function importWorkflows(workflows, opts = {}) {
	return importJson('workflow', /^Successfully imported \d+ workflow/, workflows, opts);
}

/**
 * publish:workflow --id (2.x name for "activate"); takes effect at the next `n8n start`.
 * @param {string} id
 * @param {CliOptions} [opts]
 */
async function publishWorkflow(id, opts = {}) {
	const p = await provision();
	// n8n 1.x has no publish:workflow: there it is `update:workflow --active=true`.
	const args = isN8n1(p.n8nVersion)
		? ['update:workflow', `--id=${id}`, '--active=true']
		: ['publish:workflow', `--id=${id}`];
	// the "Note: …" line is logged after the DB write
	return runN8n(args, { ...opts, check: true, successLog: /^Note: Changes will not take effect/ });
}

/**
 * @param {any} o untyped JSON
 * @returns {o is N8nRun}
 */
function isRun(o) {
	return !!(o && typeof o === 'object' && o.data && o.data.resultData && 'status' in o);
}

/**
 * The run in `text` if it is one, else null.
 * @param {string} text
 */
function runIn(text) {
	try {
		const o = JSON.parse(text);
		return isRun(o) ? o : null;
	} catch {
		return null;
	}
}

/**
 * Find the IRun object printed by `execute --rawOutput`. With N8N_LOG_FORMAT=json it is the
 * `message` (a pretty-printed JSON string) of an info log line; with the plain format it is
 * a block of lines from "{" to "}". Returns null if absent.
 * @param {string} stdout
 * @returns {N8nRun | null}
 */
function extractRun(stdout) {
	for (const l of parseLogLines(stdout).reverse()) {
		if (l.level === 'raw' || typeof l.message !== 'string' || l.message[0] !== '{') continue;
		const found = runIn(l.message);
		if (found) return found;
	}
	const lines = String(stdout).split('\n');
	for (let i = 0; i < lines.length; i++) {
		if (lines[i] !== '{') continue;
		for (let j = lines.length - 1; j > i; j--) {
			if (lines[j] !== '}') continue;
			const found = runIn(lines.slice(i, j + 1).join('\n'));
			if (found) return found;
		}
	}
	return null;
}

/**
 * Items (json only) that node `nodeName` emitted: nodeItems(run, 'Set') → [{…}, …].
 * @param {N8nRun | null | undefined} run
 * @param {string} nodeName
 * @param {NodeItemsOptions} [options]
 * @returns {any[] | undefined}
 */
function nodeItems(run, nodeName, { runIndex = 0, output = 0, withBinary = false } = {}) {
	const r = run && run.data && run.data.resultData && run.data.resultData.runData[nodeName];
	if (!r || !r[runIndex]) return undefined;
	const main = r[runIndex].data && r[runIndex].data.main;
	/** @type {{ json: unknown }[]} */
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
 * @param {string} id
 * @param {CliOptions} [opts]
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
		/** @param {string} nodeName @param {NodeItemsOptions} [o] */
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
 * The JSON file export:nodes wrote; it does not wait for its write stream before exiting, so
 * a cut file is re-read briefly.
 * @param {string} file
 * @returns {Promise<NodeTypeDescription[]>}
 */
async function readExportedNodes(file) {
	for (let i = 0; i < 20; i++) {
		try {
			return JSON.parse(await fsp.readFile(file, 'utf8'));
		} catch {
			await sleep(100);
		}
	}
	throw new Error(`export:nodes wrote unreadable JSON to ${file}`);
}

/**
 * Which node types did n8n load? Runs `n8n export:nodes` (no server needed, ~5 s).
 * Resolves to { nodeTypes: [names], byPackage: { pkg: [names] }, failedPackages: [{ name, message }],
 * descriptions: [full descriptions], logs }.
 * Community node type names are "<package name>.<node name>", e.g. "n8n-nodes-website-export.websiteExport".
 * A package whose code throws at load is skipped by n8n with an error log line
 * 'Failed to load package "<name>"' (exit code stays 0): it is reported in failedPackages.
 * @param {CliOptions} [opts]
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
		return summarizeNodeTypes(await readExportedNodes(file), res.logs);
	} finally {
		await fsp.rm(dir, { recursive: true, force: true });
	}
}

/**
 * @param {NodeTypeDescription[]} descriptions
 * @param {LogLine[]} [logs]
 */
function summarizeNodeTypes(descriptions, logs = []) {
	const nodeTypes = [...new Set(descriptions.map((d) => d.name))];
	/** @type {Record<string, string[]>} */
	const byPackage = {};
	for (const n of nodeTypes) {
		const i = n.lastIndexOf('.');
		const pkg = i > 0 ? n.slice(0, i) : '';
		(byPackage[pkg] = byPackage[pkg] || []).push(n);
	}
	/** @type {{ name: string, message: unknown }[]} */
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

module.exports = {
	runN8n,
	importCredentials,
	importWorkflows,
	publishWorkflow,
	executeWorkflow,
	extractRun,
	nodeItems,
	listLoadedNodeTypes,
	summarizeNodeTypes,
};
