/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, @typescript-eslint/no-explicit-any -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** Child processes for the tooling, one way, on execa: run a command, spawn a server in its own process group, wait for its health, stop its group, read what it writes once whole. */

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { loadExeca as execaModule, loadGetPort } from '../execa';

/** n8n's own defaults: never let a test instance take these (5679 = task broker). */
const RESERVED_PORTS = new Set([5678, 5679]);

export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null };
export type RunResult = ExitInfo & {
	stdout: string;
	stderr: string;
	timedOut: boolean;
	durationMs: number;
};
export type RunOptions = {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	check?: boolean;
	stdio?: import('node:child_process').StdioOptions;
};
export type ResultError = Error & { result?: object };
export type ServerProcess = {
	pid: number;
	exited: () => ExitInfo | null;
	whenExited: Promise<ExitInfo>;
	stop: (options?: { timeoutMs?: number }) => Promise<ExitInfo | null>;
};

/**
 * Asks `probe` every `intervalMs` until it answers something other than undefined or false, and
 * resolves to that answer; after `timeoutMs` throws the error `failure` makes (it can say what was seen).
 * Any other answer counts, 0 and '' too: a probe of what another process writes reads it with
 * readWhole (and positiveInt), which answers undefined, not 0 or '', for a value caught half-written.
 */
export async function waitFor<T>(
	probe: () => Promise<T | undefined | false> | T | undefined | false,
	{
		timeoutMs,
		intervalMs,
		failure,
	}: { timeoutMs: number; intervalMs: number; failure: () => Error },
): Promise<T> {
	for (const deadline = Date.now() + timeoutMs; ; await sleep(intervalMs)) {
		const answer = await probe();
		if (answer !== undefined && answer !== false) return answer;
		if (Date.now() > deadline) throw failure();
	}
}

/**
 * Of `text` that another process may still be writing (a file, a stdout), what is whole: up to
 * its last newline, '' while it has none. Its writer ends every value with one (`echo`, a log
 * line), so the '' or '12' of a '1234' being written is never taken for a whole value.
 */
export function wholeLines(text: string): string {
	return text.slice(0, text.lastIndexOf('\n') + 1);
}

/**
 * `file`, which another process may be writing, read as far as it is whole (wholeLines) and given
 * to `parse`: undefined while the file is missing or holds no whole line, else `parse`'s answer.
 */
export function readWhole<T>(file: string, parse: (whole: string) => T | undefined): T | undefined {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw error;
	}
	const whole = wholeLines(text);
	return whole ? parse(whole) : undefined;
}

/** `text` as a pid or port: a positive whole number alone (blanks aside), else undefined, never the 0 of Number('') nor NaN. */
export function positiveInt(text: string): number | undefined {
	const digits = text.trim();
	if (!/^[1-9]\d*$/.test(digits)) return undefined;
	const value = Number(digits);
	return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Writes `text` to `file` whole: into a file beside it, then renamed over it (a rename is atomic),
 * so that no reader, and no later run after a writer killed midway, finds it half-written.
 */
export function writeWhole(file: string, text: string): void {
	const partial = `${file}.${process.pid}.partial`;
	writeFileSync(partial, text);
	renameSync(partial, file);
}

/** The last `n` characters of `text`, marked as cut. */
export function tail(text: string, n: number) {
	return text.length > n ? '…' + text.slice(-n) : text;
}

/** Signal a whole process group (the process alone if it leads none); false when it is gone. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
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

/** Whether process `pid` still runs (signal 0 reaches it). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** What to stop if this process is interrupted; see onInterrupt(). */
const interruptCleanups: Set<() => void> = new Set();
const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
function interrupted(signal: NodeJS.Signals) {
	const cleanups = [...interruptCleanups];
	interruptCleanups.clear();
	for (const s of INTERRUPTS) process.removeListener(s, interrupted);
	for (const cleanup of cleanups) cleanup();
	// Dies of the signal as it would have, unless someone else handles it (npm start stops gracefully).
	if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/**
 * Runs `cleanup` (synchronous) if this process is interrupted (Ctrl-C, a closed terminal, a
 * cancelled CI job, jest killed), before the signal ends it: what runs in a process group of its
 * own (run(), servers) never sees that signal, and 'exit' does not fire on it. Returns the disarm.
 */
export function onInterrupt(cleanup: () => void): () => void {
	if (!interruptCleanups.size) for (const s of INTERRUPTS) process.on(s, interrupted);
	interruptCleanups.add(cleanup);
	return () => {
		interruptCleanups.delete(cleanup);
		if (!interruptCleanups.size) for (const s of INTERRUPTS) process.removeListener(s, interrupted);
	};
}

/** run() children still running (provision.sh, npm, n8n CLI calls): process-group id → the run. */
const activeRuns: Map<number, PromiseLike<unknown>> = new Map();

/**
 * Stop every command that run() started and that is still running (each is in its own process
 * group, so a terminal's Ctrl-C does not reach it): for a caller that handles SIGINT itself and
 * must not leave, say, a half-done provision.sh behind. Sends SIGTERM to each group, waits up
 * to 5 s for them to exit, then SIGKILLs what is left. Resolves to how many there were.
 */
export async function killActiveRuns() {
	const runs = [...activeRuns.entries()];
	for (const [pid] of runs) killGroup(pid, 'SIGTERM');
	let timer: NodeJS.Timeout | undefined;
	await Promise.race([
		Promise.all(runs.map(([, exited]) => exited)),
		new Promise((resolve) => (timer = setTimeout(resolve, 5000))),
	]);
	clearTimeout(timer);
	for (const [pid] of runs) killGroup(pid, 'SIGKILL'); // stragglers in the groups, if any
	return runs.length;
}

/** The error a checked run() fails with: the command, how it ended and the end of its output. */
function runError(command: string, result: RunResult): ResultError {
	const { code, signal, timedOut, stdout, stderr } = result;
	const err: ResultError = new Error(
		`${command} failed (code ${code}${signal ? `, signal ${signal}` : ''}${timedOut ? ', timed out' : ''})\n` +
			tail([stdout.trim(), stderr.trim()].filter(Boolean).join('\n'), 4000),
	);
	err.result = result;
	return err;
}

/** Run a command in its own process group, capture output; a non-zero exit rejects only with `check`. */
export async function run(
	cmd: string,
	args: string[],
	{ cwd, env, timeoutMs = 10 * 60 * 1000, check = false, stdio }: RunOptions = {},
): Promise<RunResult> {
	const { execa } = await execaModule();
	// Armed before the spawn: execa's set-up after it can take a second on a loaded machine, and a
	// signal then would find no handler and end this process at once, leaving the command behind.
	const spawned: { pid?: number } = {};
	const disarm = onInterrupt(() => killGroup(spawned.pid, 'SIGTERM'));
	const child = execa(cmd, args, {
		cwd,
		env: env || process.env,
		extendEnv: false,
		detached: true, // own process group, so a timeout can kill the whole tree
		...(stdio ? { stdio: stdio as any } : { stdin: 'ignore' }),
		timeout: timeoutMs,
		reject: false,
	});
	const pid = (spawned.pid = child.pid as number);
	activeRuns.set(pid, child);
	const ended = await child;
	disarm();
	activeRuns.delete(pid);
	if (ended.timedOut) killGroup(pid, 'SIGKILL');
	if (ended.failed && ended.exitCode === undefined && !ended.signal && !ended.timedOut) throw ended;
	const result: RunResult = {
		code: ended.exitCode ?? null,
		signal: (ended.signal as NodeJS.Signals | undefined) ?? null,
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
 * The one free-port helper (get-port): `preferred` when nothing listens on it, else any free port
 * but n8n's own 5678/5679.
 */
export async function getFreePort(preferred?: number): Promise<number> {
	const { default: getPort } = await loadGetPort();
	return getPort({ port: preferred, exclude: [...RESERVED_PORTS].filter((p) => p !== preferred) });
}

/** spawnServer()'s servers (process groups) until they exit: killed when this process exits. */
const liveServers: Set<number> = new Set();
process.on('exit', () => {
	for (const pid of liveServers) killGroup(pid, 'SIGKILL');
});

/**
 * Spawn a long-running process (a server) in its own process group, its output appended to
 * `logFile`. stop() sends SIGTERM to the group, SIGKILL after timeoutMs and to anything left.
 */
export async function spawnServer(
	cmd: string,
	args: string[],
	{ cwd, env, logFile }: { cwd?: string; env?: NodeJS.ProcessEnv; logFile: string },
): Promise<ServerProcess> {
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
	const pid = child.pid as number;
	liveServers.add(pid);
	let exited: ExitInfo | null = null;
	const whenExited = child.then((ended) => {
		liveServers.delete(pid);
		const signal = (ended.signal as NodeJS.Signals | undefined) ?? null;
		return (exited = { code: ended.exitCode ?? null, signal });
	});
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
 */
export async function waitForHealth<T>(
	server: ServerProcess,
	{
		probe,
		timeoutMs,
		intervalMs,
		failure,
	}: {
		probe: () => Promise<T | undefined>;
		timeoutMs: number;
		intervalMs: number;
		failure: (exited: ExitInfo | null) => Error;
	},
): Promise<T> {
	const answer = await waitFor<{ exited: ExitInfo } | { value: T }>(
		async () => {
			const exited = server.exited();
			if (exited) return { exited };
			// A probe that throws: not listening yet.
			const value = await probe().catch(() => undefined);
			return value === undefined ? undefined : { value };
		},
		{ timeoutMs, intervalMs, failure: () => failure(null) },
	);
	if ('exited' in answer) throw failure(answer.exited);
	return answer.value;
}
