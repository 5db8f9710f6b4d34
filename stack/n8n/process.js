'use strict';
/** Child processes for the tooling, one way, on execa: run a command, spawn a server in its own process group, wait for its health, stop its group. */

const net = require('node:net');

/** execa is an ES module: imported (stack/service/launch.ts says why). */
const execaModule = () => import('execa');

/** n8n's own defaults: never let a test instance take these (5679 = task broker). */
const RESERVED_PORTS = new Set([5678, 5679]);

/**
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null }} ExitInfo
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string,
 *   timedOut: boolean, durationMs: number }} RunResult
 * @typedef {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, check?: boolean,
 *   stdio?: import('node:child_process').StdioOptions }} RunOptions
 * @typedef {Error & { result?: object }} ResultError
 * @typedef {{ pid: number,
 *   exited: () => ExitInfo | null, whenExited: Promise<ExitInfo>,
 *   stop: (options?: { timeoutMs?: number }) => Promise<ExitInfo | null> }} ServerProcess
 */

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The last `n` characters of `text`, marked as cut.
 * @param {string} text
 * @param {number} n
 */
function tail(text, n) {
	return text.length > n ? '…' + text.slice(-n) : text;
}

/**
 * Signal a whole process group (the process alone if it leads none); false when it is gone.
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} signal
 */
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

/** run() children still running (provision.sh, npm, n8n CLI calls): process-group id → the run. */
/** @type {Map<number, PromiseLike<unknown>>} */
const activeRuns = new Map();

/**
 * Stop every command that run() started and that is still running (each is in its own process
 * group, so a terminal's Ctrl-C does not reach it): for a caller that handles SIGINT itself and
 * must not leave, say, a half-done provision.sh behind. Sends `signal` to each group, waits up
 * to `timeoutMs` for them to exit, then SIGKILLs what is left. Resolves to how many there were.
 * @param {NodeJS.Signals} [signal]
 * @param {{ timeoutMs?: number }} [options]
 */
async function killActiveRuns(signal = 'SIGTERM', { timeoutMs = 5000 } = {}) {
	const runs = [...activeRuns.entries()];
	for (const [pid] of runs) killGroup(pid, signal);
	/** @type {NodeJS.Timeout | undefined} */
	let timer;
	await Promise.race([
		Promise.all(runs.map(([, exited]) => exited)),
		new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
	]);
	clearTimeout(timer);
	for (const [pid] of runs) killGroup(pid, 'SIGKILL'); // stragglers in the groups, if any
	return runs.length;
}

/**
 * The error a checked run() fails with: the command, how it ended and the end of its output.
 * @param {string} command
 * @param {RunResult} result
 * @returns {ResultError}
 */
function runError(command, result) {
	const { code, signal, timedOut, stdout, stderr } = result;
	/** @type {ResultError} */
	const err = new Error(
		`${command} failed (code ${code}${signal ? `, signal ${signal}` : ''}${timedOut ? ', timed out' : ''})\n` +
			tail([stdout.trim(), stderr.trim()].filter(Boolean).join('\n'), 4000),
	);
	err.result = result;
	return err;
}

/**
 * Run a command in its own process group, capture output. Never rejects on a non-zero exit
 * unless `check` is true.
 * @param {string} cmd
 * @param {string[]} args
 * @param {RunOptions} [options]
 * @returns {Promise<RunResult>}
 */
async function run(cmd, args, { cwd, env, timeoutMs = 10 * 60 * 1000, check = false, stdio } = {}) {
	const { execa } = await execaModule();
	const child = execa(cmd, args, {
		cwd,
		env: env || process.env,
		extendEnv: false,
		detached: true, // own process group, so a timeout can kill the whole tree
		...(stdio ? { stdio: /** @type {any} */ (stdio) } : { stdin: 'ignore' }),
		timeout: timeoutMs,
		reject: false,
	});
	const pid = /** @type {number} */ (child.pid);
	activeRuns.set(pid, child);
	const ended = await child;
	activeRuns.delete(pid);
	if (ended.timedOut) killGroup(pid, 'SIGKILL');
	if (ended.failed && ended.exitCode === undefined && !ended.signal && !ended.timedOut) throw ended;
	/** @type {RunResult} */
	const result = {
		code: ended.exitCode ?? null,
		signal: /** @type {NodeJS.Signals | null} */ (ended.signal ?? null),
		stdout: String(ended.stdout ?? ''),
		stderr: String(ended.stderr ?? ''),
		timedOut: ended.timedOut,
		durationMs: Math.round(ended.durationMs),
	};
	if (check && (result.code !== 0 || result.timedOut))
		throw runError(`${cmd} ${args.join(' ')}`, result);
	return result;
}

/**
 * A free TCP port on 127.0.0.1 (never 5678/5679).
 * @returns {Promise<number>}
 */
async function getFreePort() {
	for (let attempt = 0; attempt < 20; attempt++) {
		const port = await new Promise((resolve, reject) => {
			const srv = net.createServer();
			srv.unref();
			srv.on('error', reject);
			srv.listen(0, '127.0.0.1', () => {
				const { port: p } = /** @type {net.AddressInfo} */ (srv.address());
				srv.close(() => resolve(p));
			});
		});
		if (!RESERVED_PORTS.has(port)) return port;
	}
	throw new Error('could not find a free port');
}

/**
 * Spawn a long-running process (a server) in its own process group, its stdout and stderr
 * appended to `logFile`. Resolves to { pid, exited() (null while it runs, else { code,
 * signal }), whenExited (a promise of that), stop({ timeoutMs = 15000 }) }: stop sends SIGTERM
 * to the group, SIGKILL after timeoutMs, then SIGKILL to anything left in the group; it resolves
 * to exited().
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, logFile: string }} options
 * @returns {Promise<ServerProcess>}
 */
async function spawnServer(cmd, args, { cwd, env, logFile }) {
	const { execa } = await execaModule();
	const output = { file: logFile, append: true };
	const child = execa(cmd, args, {
		cwd,
		env: env || process.env,
		extendEnv: false,
		detached: true,
		stdin: 'ignore',
		stdout: output,
		stderr: output,
		reject: false,
	});
	const pid = /** @type {number} */ (child.pid);
	/** @type {ExitInfo | null} */
	let exited = null;
	const whenExited = child.then(
		(ended) =>
			(exited = {
				code: ended.exitCode ?? null,
				signal: /** @type {NodeJS.Signals | null} */ (ended.signal ?? null),
			}),
	);
	return {
		pid,
		exited: () => exited,
		whenExited,
		async stop({ timeoutMs = 15000 } = {}) {
			if (exited) return exited;
			killGroup(pid, 'SIGTERM');
			const t = setTimeout(() => killGroup(pid, 'SIGKILL'), timeoutMs);
			await whenExited;
			clearTimeout(t);
			killGroup(pid, 'SIGKILL'); // stragglers in the group, if any
			return exited;
		},
	};
}

/**
 * Poll `probe` until it answers something other than undefined (a probe that throws = not
 * listening yet); resolves to that answer. If the server exits first or `timeoutMs` passes, throws
 * the error `failure` makes (given the exit info, or null on the timeout); stopping it is the caller's.
 * @template T
 * @param {ServerProcess} server
 * @param {{ probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs: number,
 *   failure: (exited: ExitInfo | null) => Error }} options
 * @returns {Promise<T>}
 */
async function waitForHealth(server, { probe, timeoutMs, intervalMs, failure }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const exited = server.exited();
		if (exited) throw failure(exited);
		try {
			const answer = await probe();
			if (answer !== undefined) return answer;
		} catch {
			/* not listening yet */
		}
		if (Date.now() > deadline) throw failure(null);
		await sleep(intervalMs);
	}
}

module.exports = {
	sleep,
	tail,
	killGroup,
	killActiveRuns,
	run,
	getFreePort,
	spawnServer,
	waitForHealth,
};
