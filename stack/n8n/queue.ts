/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: n8n at scale runs in queue mode (main + workers over Redis, Postgres shared); the queue e2e suite and `npm start -- --queue` start it from here.
/**
 * An n8n queue-mode cluster on this host: Postgres and Redis (./services.js), one `n8n start`
 * (main: UI, REST, webhooks, poll triggers; it enqueues every execution) and N `n8n worker`s
 * (they run the executions), all sharing one N8N_USER_FOLDER (so one community-package install
 * and one encryption key). Every n8n process gets its own task-broker port and HTTP port.
 *
 *   import * as q from './queue';
 *   const cluster = await q.startCluster({ userFolder, workers: 2, concurrency: 10 });
 *   cluster.env                      // the env for CLI calls against the same DB (import:*, publish:*)
 *   cluster.main                     // lib.startN8n handle
 *   cluster.workers[i]               // { index, logFile, logs(), started(), kill(sig), stop(), vmHWM() }
 *   await cluster.stop();            // workers, main, then Redis and Postgres (temp dirs removed)
 *
 * Binary data: n8n 2.x defaults to `database` mode in queue mode (BinaryDataConfig: mode ??=
 * executions.mode === 'queue' ? 'database' : 'filesystem'); it is set explicitly here. The
 * `filesystem` mode would need one disk shared by all processes, `database` keeps it in Postgres.
 */
import fs from 'node:fs';
import path from 'node:path';

import { startN8n, waitUntilReady } from './server';
import { getFreePort, killGroup, spawnServer } from './process';
import { n8nEnv, withNodeBinFirst } from './env';
import { provision } from './provision';
import { readLogFile, capturesInLog } from './logs';
import * as services from './services';
import { startPostgres, type Postgres } from '../postgres';

export type Worker = {
	index: number;
	logFile: string;
	logs: () => import('./logs').LogLine[];
	/** Execution ids this worker started (from its log lines). */
	started: () => string[];
	vmHWM: () => number | null;
	whenExited: Promise<import('./process').ExitInfo>;
	kill: (signal?: NodeJS.Signals) => void;
	stop: () => Promise<unknown>;
};

/**
 * n8nEnv(userFolder) plus queue mode against the given Postgres and Redis.
 * Bull's lock/stall timings are shortened (lockDuration 10 s, stalled check every 5 s) so that
 * a killed worker's job is noticed within seconds rather than a minute.
 */
function queueEnv(
	userFolder: string,
	{
		pg,
		redis,
		extra = {},
	}: { pg: Postgres; redis: { host: string; port: number }; extra?: import('./env').N8nEnvExtra },
) {
	return n8nEnv(userFolder, {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host,
		DB_POSTGRESDB_PORT: pg.port,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: pg.password,
		DB_POSTGRESDB_DATABASE: pg.database,
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: redis.port,
		QUEUE_WORKER_LOCK_DURATION: 10000,
		QUEUE_WORKER_LOCK_RENEW_TIME: 2500,
		QUEUE_WORKER_STALLED_INTERVAL: 5000,
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		// the main process runs nothing itself (it would otherwise run manual executions)
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		...extra,
	});
}

/** Peak resident memory (VmHWM, in MiB) of a pid, or null once it has exited. */
function vmHWM(pid: number) {
	try {
		const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Math.round(Number(m[1]) / 1024) : null;
	} catch {
		return null;
	}
}

/**
 * `n8n worker --concurrency=<n>` with a health server on a free port (its readiness URL is how
 * we know it is connected to Postgres and Redis). Resolves once /healthz/readiness answers 200.
 */
export async function startWorker({
	env,
	index,
	concurrency,
	logFile,
}: {
	env: NodeJS.ProcessEnv;
	index: number;
	concurrency: number;
	logFile: string;
}): Promise<Worker> {
	const p = await provision();
	const port = await getFreePort();
	const wenv = withNodeBinFirst(
		{
			...env,
			N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(port),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		},
		p.nodeDir,
	);
	const args = [p.n8nBin, 'worker', `--concurrency=${concurrency}`];
	const cwd = env.N8N_USER_FOLDER as string;
	const server = await spawnServer(p.nodeBin, args, { cwd, env: wenv, logFile });
	const w: Worker = {
		index,
		logFile,
		logs: () => readLogFile(logFile),
		started: () => capturesInLog(w.logs(), /^Worker started execution (\S+)/),
		vmHWM: () => vmHWM(server.pid),
		whenExited: server.whenExited,
		kill: (signal = 'SIGKILL') => killGroup(server.pid, signal),
		stop: () => server.stop(),
	};
	try {
		const baseUrl = `http://127.0.0.1:${port}`;
		const what = `n8n worker ${index}`;
		await waitUntilReady(server, { baseUrl, what, logFile, timeoutMs: 120000, rest: false });
	} catch (e) {
		await server.stop({ timeoutMs: 5000 });
		throw e;
	}
	return w;
}

export type ClusterOptions = {
	userFolder: string;
	workers?: number;
	concurrency?: number;
	port?: number;
	extraEnv?: import('./env').N8nEnvExtra;
	killOnSignal?: boolean;
};
type ClusterParts = {
	main?: import('./server').N8nServer;
	workers: Worker[];
	services: { stop: () => Promise<void> }[];
};

/** Stop what has started: workers, main, then the services started here (last first). */
async function stopParts(parts: ClusterParts) {
	await Promise.all(parts.workers.map((w) => w.stop().catch(() => w.kill('SIGKILL'))));
	if (parts.main) await parts.main.stop().catch(() => {});
	for (const s of parts.services.reverse()) await s.stop().catch(() => {});
}

/**
 * Postgres + Redis, then main, then the workers.
 *   { userFolder (required: the pack already installed in it), workers = 2, concurrency = 10,
 *     port? (main's HTTP port), extraEnv?, killOnSignal? }
 * Resolves to { env, pg, redis, main, workers, stop(), memory() }.
 */
export async function startCluster(opts: ClusterOptions) {
	const { userFolder, workers = 2, concurrency = 10 } = opts;
	if (!userFolder) throw new Error('startCluster: userFolder is required');
	await services.ensurePackages();
	const parts: ClusterParts = { workers: [], services: [] };
	const own = <S extends { stop: () => Promise<void> }>(started: Promise<S>) =>
		started.then((s) => (parts.services.push(s), s));
	const stop = () => stopParts(parts);
	try {
		const [pg, redis] = await Promise.all([own(startPostgres()), own(services.startRedis())]);
		const env = queueEnv(userFolder, { pg, redis, extra: opts.extraEnv });
		const main = await startN8n({
			env,
			port: opts.port,
			timeoutMs: 180000,
			killOnSignal: opts.killOnSignal,
			logFile: path.join(userFolder, 'n8n-main.log'),
		});
		parts.main = main;
		// Workers one after the other: the first start of a worker also checks migrations.
		for (let i = 0; i < workers; i++) {
			const logFile = path.join(userFolder, `n8n-worker-${i}.log`);
			parts.workers.push(await startWorker({ env, index: i, concurrency, logFile }));
		}
		const memory = () => ({ main: vmHWM(main.pid), workers: parts.workers.map((w) => w.vmHWM()) });
		return { env, pg, redis, main, workers: parts.workers, stop, memory };
	} catch (e) {
		await stop();
		throw e;
	}
}
