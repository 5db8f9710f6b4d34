/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** `n8n start` as a handle: started on a free port, ready when its REST API answers, stopped with its process group. */

import path from 'node:path';
import { getFreePort, killGroup, onInterrupt, spawnServer, waitForHealth } from './process';
import { provision } from './provision';
import { envFor, webhookUrlVariable } from './env';
import { readLogFile, tailLog } from './logs';
import { httpRequest } from './http';
import { restClient } from './rest';

type ExitInfo = import('./process').ExitInfo;
/** `env`: from n8nEnv (or queue mode's). */
export type StartOptions = {
	env: NodeJS.ProcessEnv;
	port?: number;
	timeoutMs?: number;
	logFile?: string;
	killOnSignal?: boolean;
	onSpawn?: (handle: N8nServer) => void;
};
export type N8nServer = {
	port: number;
	baseUrl: string;
	pid: number;
	exited: Promise<ExitInfo>;
	logFile: string;
	startMs: number;
	logs: () => import('./logs').LogLine[];
	stop: (options?: { timeoutMs?: number }) => Promise<ExitInfo | null>;
} & import('./rest').RestClient;

/** The environment of one `n8n start`: its port, a task-broker port, its webhook URL. */
async function serverEnv(opts: StartOptions, p: import('./provision').Provisioned, port: number) {
	const env = envFor(opts.env, p);
	env.N8N_PORT = String(port);
	if (!env.N8N_RUNNERS_BROKER_PORT) env.N8N_RUNNERS_BROKER_PORT = String(await getFreePort());
	if (!env.WEBHOOK_URL && !env.N8N_WEBHOOK_URL)
		env[webhookUrlVariable(p.n8nVersion)] = `http://127.0.0.1:${port}/`;
	return env;
}

/**
 * Resolves once GET /healthz/readiness answers 200 and, with `rest`, the REST routes exist (n8n
 * 1.x answers readiness before its REST routes: 404 until then); a queue-mode worker has none.
 */
export function waitUntilReady(
	server: import('./process').ServerProcess,
	options: { baseUrl: string; what: string; logFile: string; timeoutMs: number; rest: boolean },
) {
	const { baseUrl, what, logFile, timeoutMs, rest } = options;
	const status = async (route: string) =>
		(await httpRequest('GET', baseUrl + route, { timeoutMs: 2000 })).status;
	return waitForHealth(server, {
		timeoutMs,
		intervalMs: 200,
		probe: async () => {
			if ((await status('/healthz/readiness')) !== 200) return undefined;
			return !rest || (await status('/rest/login')) !== 404 ? true : undefined;
		},
		failure: (exited) => {
			const how = exited
				? `exited early (${JSON.stringify(exited)})`
				: `not ready after ${timeoutMs} ms`;
			return new Error(`${what} ${how}; log: ${logFile}\n${tailLog(logFile)}`);
		},
	});
}

/**
 * `n8n start` on 127.0.0.1:<port> (a free one if port is 0/undefined), in its own process
 * group; resolves once GET /healthz/readiness answers 200 (GET /healthz answers 200 several
 * seconds earlier, before the instance is usable and before published workflows are active).
 *   { env, port?, timeoutMs = 120000, logFile?, killOnSignal = true, onSpawn? }
 * killOnSignal: false leaves SIGINT/SIGTERM/SIGHUP to the caller (who then stops the server
 * itself, gracefully); the server is still SIGKILLed when this process exits.
 */
export async function startN8n(opts: StartOptions): Promise<N8nServer> {
	const p = await provision();
	const port = opts.port || (await getFreePort());
	const env = await serverEnv(opts, p, port);
	const userFolder = env.N8N_USER_FOLDER as string;
	const logFile = opts.logFile || path.join(userFolder, `n8n-start-${port}.log`);
	const started = Date.now();
	const server = await spawnServer(p.nodeBin, [p.n8nBin, 'start'], {
		cwd: userFolder,
		env,
		logFile,
	});
	// Also killed if this process is interrupted (Ctrl-C, jest timeout, CI cancel), unless the
	// caller stops it itself, gracefully.
	const disarm =
		opts.killOnSignal !== false ? onInterrupt(() => killGroup(server.pid, 'SIGKILL')) : () => {};
	const exitPromise = server.whenExited.then((info) => {
		disarm();
		return info;
	});
	const baseUrl = `http://127.0.0.1:${port}`;
	const logs = () => readLogFile(logFile);
	const handle: N8nServer = {
		port,
		baseUrl,
		pid: server.pid,
		exited: server.whenExited,
		logFile,
		startMs: 0,
		logs,
		...restClient(baseUrl, logs),
		/** SIGTERM the process group, wait (default 15 s), then SIGKILL; also stragglers in the group (task runners). Resolves to the exit info. */
		async stop(options) {
			await server.stop(options);
			return exitPromise;
		},
	};
	if (opts.onSpawn) opts.onSpawn(handle); // e.g. to stop it gracefully if interrupted before it is ready
	try {
		const timeoutMs = opts.timeoutMs || 120000;
		await waitUntilReady(server, { baseUrl, what: 'n8n start', logFile, timeoutMs, rest: true });
	} catch (e) {
		await handle.stop({ timeoutMs: 5000 });
		throw e;
	}
	handle.startMs = Date.now() - started;
	return handle;
}
