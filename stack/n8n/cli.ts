/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** The n8n command line driven from the tooling: import, and execute in a process of its own. */

import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run, tail, getFreePort } from './process';
import { provision } from './provision';
import { envFor } from './env';
import { parseLogLines, type LogLine } from './logs';

/** `env`: from n8nEnv (or queue mode's). */
export type CliOptions = { env: NodeJS.ProcessEnv };
/** untyped JSON from n8n, read by the suites */
export type NodeTypeDescription = { name: string } & Record<string, any>;

/** The IRun that `execute --rawOutput` prints: n8n's untyped JSON, narrowed by extractRun. */
export type N8nRun = {
	status: string;
	data: { resultData: { runData: Record<string, any[]>; lastNodeExecuted?: string; error?: any } };
} & Record<string, any>;

/**
 * Spawn the n8n CLI with Node 24: runN8n(['import:workflow', '--input=x.json'], { env }).
 * Resolves (also on non-zero exit) to the run's result with its parsed `logs`.
 * A task-broker port is picked per call unless env has N8N_RUNNERS_BROKER_PORT.
 */
export async function runN8n(args: string[], opts: CliOptions) {
	const p = await provision();
	const env = envFor(opts.env, p);
	if (!env.N8N_RUNNERS_BROKER_PORT) env.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	const ran = await run(p.nodeBin, [p.n8nBin, ...args], {
		cwd: env.N8N_USER_FOLDER,
		env,
		timeoutMs: 120 * 1000,
	});
	return { ...ran, logs: parseLogLines(ran.stdout) };
}

function cliError(args: string[], res: Awaited<ReturnType<typeof runN8n>>) {
	const errs = res.logs
		.filter((l) => l.level === 'error' || l.level === 'raw')
		.map((l) => l.message)
		.join('\n');
	const err: import('./process').ResultError = new Error(
		`n8n ${args.join(' ')} failed (code ${res.code}${res.timedOut ? ', timed out' : ''})\n` +
			tail(errs || res.stderr || res.stdout, 6000),
	);
	err.result = res;
	return err;
}

/**
 * `n8n import:<kind> --input=<file>` of `data`, written to a temporary file. Throws on failure.
 * Credentials: { id, name, type, data: { …plaintext… } }, the data encrypted on import with the
 * env's N8N_ENCRYPTION_KEY. Workflows: each with a stable string `id`, imported inactive (a
 * started n8n activates one, `handle.activate`, for a live trigger).
 */
export async function importData(
	kind: 'credentials' | 'workflow',
	data: object[],
	opts: CliOptions,
) {
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-n8n-in-'));
	const file = path.join(dir, 'input.json');
	const args = [`import:${kind}`, `--input=${file}`];
	try {
		await fsp.writeFile(file, JSON.stringify(data, null, 2));
		const res = await runN8n(args, opts);
		// n8n 2.41 with the default `vm` expression engine (isolated-vm) sometimes dies with SIGSEGV
		// while exiting, after its work is done (measured: 3 of 28 CLI runs at 3-way concurrency,
		// 0 of 16 with N8N_EXPRESSION_ENGINE=legacy): a run killed by a signal whose log shows the
		// success line counts as done.
		const success = new RegExp(`^Successfully imported \\d+ ${kind.replace(/s$/, '')}`);
		const crashedAtExit =
			!!res.signal &&
			res.logs.some((l) => typeof l.message === 'string' && success.test(l.message));
		if (res.timedOut || (res.code !== 0 && !crashedAtExit)) throw cliError(args, res);
	} finally {
		await fsp.rm(dir, { recursive: true, force: true });
	}
}

/**
 * The IRun printed by `execute --rawOutput`, or null if absent: with N8N_LOG_FORMAT=json (n8nEnv)
 * it is the `message` (a pretty-printed JSON string) of an info log line.
 */
function extractRun(stdout: string): N8nRun | null {
	for (const l of parseLogLines(stdout).reverse()) {
		if (l.level === 'raw' || typeof l.message !== 'string' || l.message[0] !== '{') continue;
		try {
			const o = JSON.parse(l.message);
			if (o && typeof o === 'object' && o.data && o.data.resultData && 'status' in o) return o;
		} catch {
			/* not the run */
		}
	}
	return null;
}

/**
 * Items (json only, unless `withBinary`) that node `nodeName` emitted: nodeItems(run, 'Set') → [{…}, …].
 */
export function nodeItems(
	run: N8nRun | null | undefined,
	nodeName: string,
	withBinary = false,
): any[] | undefined {
	const r = run?.data?.resultData?.runData[nodeName]?.[0];
	if (!r) return undefined;
	const items: { json: unknown }[] = r.data?.main?.[0] || [];
	return withBinary ? items : items.map((i) => i.json);
}

/** What a workflow run gave, by `n8n execute` or on a started n8n (rest.ts): judged on the run itself. */
export type RunOutcome = {
	ok: boolean;
	status: string;
	run: N8nRun | null;
	error: any;
	lastNode: string | undefined;
	items: (nodeName: string, withBinary?: boolean) => any[] | undefined;
	/** Everything n8n printed or stored about the run, for checks that a secret appears nowhere. */
	output: string;
	durationMs: number;
};

/** The outcome of `run` (null when n8n printed or stored none: `fallbackError` says why). */
export function runOutcome(
	run: N8nRun | null,
	{
		output,
		durationMs,
		fallbackError,
	}: { output: string; durationMs: number; fallbackError: string },
): RunOutcome {
	const error = (run && run.data.resultData.error) || null;
	return {
		ok: !!run && run.status === 'success' && !error,
		status: run ? run.status : 'no-output',
		run,
		error: error || (run ? null : { message: fallbackError }),
		lastNode: run ? run.data.resultData.lastNodeExecuted : undefined,
		items: (nodeName, withBinary) => nodeItems(run, nodeName, withBinary),
		output,
		durationMs,
	};
}

/**
 * `n8n execute --id=<id> --rawOutput` in a process of its own, its printed run parsed: for runs
 * that must be separate processes (a started n8n runs the others, rest.ts). `run` is null only
 * if n8n failed before executing (unknown id, crash) or its output was cut. Manual Trigger is
 * the start node; poll triggers are skipped by `execute`. A SIGSEGV after a complete run (an
 * isolated-vm crash at exit, see importData) still counts: the outcome is judged on the run.
 */
export async function executeWorkflow(id: string, opts: CliOptions) {
	const res = await runN8n(['execute', `--id=${id}`, '--rawOutput'], opts);
	const errorLogs = res.logs.filter((l) => l.level === 'error').map((l) => l.message);
	return runOutcome(res.timedOut ? null : extractRun(res.stdout), {
		output: res.stdout + res.stderr,
		durationMs: res.durationMs,
		fallbackError: errorLogs.join('\n') || tail(res.stdout + res.stderr, 4000),
	});
}

/** The node types of `descriptions` (as n8n serves them to its editor) by package, and the packages its log says failed to load. */
export function summarizeNodeTypes(descriptions: NodeTypeDescription[], logs: LogLine[]) {
	const byPackage: Record<string, string[]> = {};
	for (const n of new Set(descriptions.map((d) => d.name))) {
		const pkg = n.slice(0, Math.max(0, n.lastIndexOf('.')));
		(byPackage[pkg] ??= []).push(n);
	}
	const failedPackages: { name: string; message: unknown }[] = [];
	for (const l of logs) {
		const m = typeof l.message === 'string' && /^Failed to load package "([^"]+)"/.exec(l.message);
		if (m) {
			const e = l.metadata && l.metadata.error;
			failedPackages.push({ name: m[1], message: (e && (e.message || e)) || l.message });
		}
	}
	return { byPackage, failedPackages, descriptions };
}
