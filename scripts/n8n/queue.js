'use strict';
// Why: n8n at scale runs in queue mode (main + workers over Redis, Postgres shared); the queue e2e suite and `npm start -- --queue` start it from here.
/**
 * An n8n queue-mode cluster on this host: Postgres and Redis (./services.js), one `n8n start`
 * (main: UI, REST, webhooks, poll triggers; it enqueues every execution) and N `n8n worker`s
 * (they run the executions), all sharing one N8N_USER_FOLDER (so one community-package install
 * and one encryption key). Every n8n process gets its own task-broker port and HTTP port.
 *
 *   const q = require('./queue');
 *   const cluster = await q.startCluster({ userFolder, workers: 2, concurrency: 10 });
 *   cluster.env                      // the env for CLI calls against the same DB (import:*, publish:*)
 *   cluster.main                     // lib.startN8n handle
 *   cluster.workers[i]               // { index, pid, port, logFile, logs(), started(), kill(sig), stop(), vmHWM() }
 *   await cluster.stop();            // workers, main, then Redis and Postgres (temp dirs removed)
 *
 * Binary data: n8n 2.x defaults to `database` mode in queue mode (BinaryDataConfig: mode ??=
 * executions.mode === 'queue' ? 'database' : 'filesystem'); it is set explicitly here. The
 * `filesystem` mode would need one disk shared by all processes, `database` keeps it in Postgres.
 */
const fs = require('node:fs');
const path = require('node:path');

const lib = require('./lib');
const services = require('./services');

const liveWorkers = new Set();
process.on('exit', () => {
	for (const w of liveWorkers) w.killNow();
});

/**
 * n8nEnv(userFolder) plus queue mode against the given Postgres and Redis.
 * Bull's lock/stall timings are shortened (lockDuration 10 s, stalled check every 5 s) so that
 * a killed worker's job is noticed within seconds rather than a minute.
 */
function queueEnv(userFolder, { pg, redis, extra = {} } = {}) {
	return lib.n8nEnv(userFolder, {
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
function vmHWM(pid) {
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
async function startWorker({ env, index = 0, concurrency = 10, logFile, timeoutMs = 120000 }) {
	const p = await lib.provision();
	const port = await lib.getFreePort();
	const wenv = {
		...env,
		N8N_RUNNERS_BROKER_PORT: String(await lib.getFreePort()),
		QUEUE_HEALTH_CHECK_ACTIVE: 'true',
		QUEUE_HEALTH_CHECK_PORT: String(port),
		N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
	};
	const bin = path.join(p.nodeDir, 'bin');
	wenv.PATH = [bin, ...(wenv.PATH || '').split(path.delimiter).filter((d) => d && d !== bin)].join(
		path.delimiter,
	);
	logFile = logFile || path.join(env.N8N_USER_FOLDER, `n8n-worker-${index}.log`);
	const started = Date.now();
	const server = lib.spawnServer(p.nodeBin, [p.n8nBin, 'worker', `--concurrency=${concurrency}`], {
		cwd: env.N8N_USER_FOLDER,
		env: wenv,
		logFile,
	});
	const w = {
		index,
		pid: server.pid,
		port,
		logFile,
		concurrency,
		startMs: 0,
		exited: server.exited,
		whenExited: server.whenExited,
		logs: () => lib.parseLogLines(fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
		/** execution ids this worker started / finished (from its log lines). */
		started: () => idsFromLog(w.logs(), /^Worker started execution (\S+)/),
		finished: () => idsFromLog(w.logs(), /^Worker finished execution (\S+)/),
		vmHWM: () => vmHWM(server.pid),
		kill(signal = 'SIGKILL') {
			try {
				process.kill(-server.pid, signal);
			} catch {
				/* gone */
			}
		},
		killNow: () => w.kill('SIGKILL'),
		async stop(o) {
			const r = await server.stop(o);
			liveWorkers.delete(w);
			return r;
		},
	};
	liveWorkers.add(w);
	server.whenExited.then(() => liveWorkers.delete(w));
	try {
		for (;;) {
			if (server.exited())
				throw new Error(
					`n8n worker ${index} exited early (${JSON.stringify(server.exited())}); log: ${logFile}`,
				);
			if (Date.now() - started > timeoutMs)
				throw new Error(`n8n worker ${index} not ready after ${timeoutMs} ms; log: ${logFile}`);
			try {
				const r = await lib.httpRequest('GET', `http://127.0.0.1:${port}/healthz/readiness`, {
					timeoutMs: 2000,
				});
				if (r.status === 200) break;
			} catch {
				/* not listening yet */
			}
			await lib.sleep(250);
		}
	} catch (e) {
		await w.stop({ timeoutMs: 5000 });
		throw e;
	}
	w.startMs = Date.now() - started;
	return w;
}

function idsFromLog(logs, re) {
	const out = [];
	for (const l of logs) {
		const m = typeof l.message === 'string' && re.exec(l.message);
		if (m) out.push(m[1]);
	}
	return out;
}

/**
 * Postgres + Redis (started here unless given), then main, then the workers.
 *   { userFolder (required: the pack already installed in it), workers = 2, concurrency = 10,
 *     pg?, redis?, port? (main's HTTP port), extraEnv?, beforeStart?(env) (e.g. import + publish
 *     workflows: they need the DB, and publishing takes effect at main's start), killOnSignal? }
 * Resolves to { env, pg, redis, main, workers, stop(), memory() }.
 */
async function startCluster(opts = {}) {
	const { userFolder, workers = 2, concurrency = 10 } = opts;
	if (!userFolder) throw new Error('startCluster: userFolder is required');
	services.ensurePackages();
	const cluster = { pg: opts.pg, redis: opts.redis, main: null, workers: [], env: null };
	const ownServices = [];
	cluster.stop = async () => {
		await Promise.all(cluster.workers.map((w) => w.stop().catch(() => w.kill('SIGKILL'))));
		if (cluster.main) await cluster.main.stop().catch(() => {});
		for (const s of ownServices.reverse()) await s.stop().catch(() => {});
	};
	try {
		const [pg, redis] = await Promise.all([
			cluster.pg || services.startPostgres().then((s) => (ownServices.push(s), s)),
			cluster.redis || services.startRedis().then((s) => (ownServices.push(s), s)),
		]);
		Object.assign(cluster, { pg, redis });
		cluster.env = queueEnv(userFolder, { pg, redis, extra: opts.extraEnv });
		if (opts.beforeStart) await opts.beforeStart(cluster.env);
		cluster.main = await lib.startN8n({
			env: cluster.env,
			port: opts.port,
			timeoutMs: opts.timeoutMs || 180000,
			killOnSignal: opts.killOnSignal,
			logFile: path.join(userFolder, 'n8n-main.log'),
		});
		// Workers one after the other: the first start of a worker also checks migrations.
		for (let i = 0; i < workers; i++) {
			cluster.workers.push(
				await startWorker({
					env: cluster.env,
					index: i,
					concurrency,
					logFile: path.join(userFolder, `n8n-worker-${i}.log`),
				}),
			);
		}
	} catch (e) {
		await cluster.stop();
		throw e;
	}
	cluster.memory = () => ({
		main: vmHWM(cluster.main.pid),
		workers: cluster.workers.map((w) => w.vmHWM()),
	});
	return cluster;
}

module.exports = { queueEnv, startWorker, startCluster, vmHWM };
