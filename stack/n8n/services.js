'use strict';
// Why: n8n's queue mode needs Redis; this runs a private, throwaway one on loopback (no Docker here).
/**
 * Redis for n8n's queue mode (its Postgres is stack/postgres.ts): Debian's package, installed (as
 * root) when missing (`apt-get update && apt-get install -y redis-server`), a child process on
 * 127.0.0.1 with its data in a temp dir that stop() removes. Nothing here touches the system's
 * own services.
 *
 *   const svc = require('./services');
 *   const redis = await svc.startRedis();          // { host, port, command('PING'), stop() }
 *   await svc.stopAll();                           // whatever is still running (also run on exit)
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const { getFreePort, killGroup, run, spawnServer, waitForHealth } = require('./process');

/** Services this process started and has not stopped: killed when it exits. */
/** @type {Set<Service>} */
const live = new Set();
process.on('exit', () => {
	for (const s of live) s.killNow();
});

/**
 * The executable `cmd` on PATH, or null.
 * @param {string} cmd
 */
function which(cmd) {
	for (const dir of (process.env.PATH || '').split(path.delimiter)) {
		const f = path.join(dir, cmd);
		try {
			fs.accessSync(f, fs.constants.X_OK);
			return f;
		} catch {
			/* next */
		}
	}
	return null;
}

/**
 * Installs redis-server from Debian's packages when missing (root only).
 * @param {{ log?: (message: string) => void }} [options]
 */
async function ensurePackages({ log = (m) => process.stderr.write(`[services] ${m}\n`) } = {}) {
	if (which('redis-server')) return { installed: [] };
	const missing = ['redis-server'];
	if (process.getuid && process.getuid() !== 0) {
		throw new Error(
			`missing ${missing.join(' and ')}: install them (apt-get install -y ${missing.join(' ')}) or run as root`,
		);
	}
	log(`installing ${missing.join(', ')} from Debian's packages`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	await run('apt-get', ['update'], { env, check: true });
	await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
		env,
		check: true,
	});
	if (!which('redis-server')) throw new Error('redis-server still missing after apt-get install');
	return { installed: missing };
}

/**
 * A private temp dir (removed by the service's stop()).
 * @param {string} prefix
 */
function tempDir(prefix) {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * @typedef {{ name: string, killNow: () => void, stop: (options?: { timeoutMs?: number }) => Promise<void> }} Service
 */

/**
 * The service `server` as stopAll() and this process's exit see it; stopping it removes `dir`.
 * @param {string} name
 * @param {import('./process').ServerProcess} server
 * @param {string} dir
 * @returns {Service}
 */
function register(name, server, dir) {
	/** @type {Service} */
	const entry = {
		name,
		killNow() {
			if (!server.exited()) killGroup(server.pid, 'SIGKILL');
			fs.rmSync(dir, { recursive: true, force: true });
		},
		async stop({ timeoutMs = 15000 } = {}) {
			await server.stop({ timeoutMs });
			live.delete(entry);
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
	live.add(entry);
	return entry;
}

/**
 * Wait until `probe` answers true; on an early exit or the deadline, stop the service and throw.
 * @param {string} name
 * @param {import('./process').ServerProcess} server
 * @param {Service} entry
 * @param {{ probe: () => Promise<boolean>, timeoutMs: number, intervalMs: number, logFile: string }} options
 */
async function waitForService(name, server, entry, { probe, timeoutMs, intervalMs, logFile }) {
	try {
		await waitForHealth(server, {
			timeoutMs,
			intervalMs,
			probe: async () => ((await probe()) ? true : undefined),
			failure: (exited) => {
				if (!exited) return new Error(`${name} not ready after ${timeoutMs} ms`);
				const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
				return new Error(`${name} exited early (${JSON.stringify(exited)}): ${text.slice(-2000)}`);
			},
		});
	} catch (e) {
		await entry.stop();
		throw e;
	}
}

/**
 * One Redis command over a raw socket (inline protocol); resolves to the first reply line.
 * @param {number} port
 * @param {string} command
 * @param {{ host?: string, timeoutMs?: number }} [options]
 * @returns {Promise<string>}
 */
function redisCommand(port, command, { host = '127.0.0.1', timeoutMs = 2000 } = {}) {
	return new Promise((resolve, reject) => {
		const sock = net.connect({ host, port });
		let buf = '';
		const timer = setTimeout(() => sock.destroy(new Error('redis timeout')), timeoutMs);
		sock.on('connect', () => sock.write(`${command}\r\n`));
		sock.on('data', (d) => {
			buf += d;
			if (buf.includes('\r\n')) {
				clearTimeout(timer);
				sock.end();
				resolve(buf.split('\r\n')[0]);
			}
		});
		sock.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
	});
}

/**
 * A throwaway Redis: redis-server on 127.0.0.1:<free port>, no persistence (--save '',
 * --appendonly no), working dir a temp dir. Resolves to { host, port, dir, pid, logFile, command(cmd), stop() }.
 * @param {{ port?: number, readyTimeoutMs?: number }} [options]
 */
async function startRedis({ port, readyTimeoutMs = 20000 } = {}) {
	const bin = which('redis-server');
	if (!bin) throw new Error('redis-server not found (apt-get install -y redis-server)');
	const redisPort = port || (await getFreePort());
	const dir = tempDir('wex-redis-');
	const logFile = path.join(dir, 'redis.log');
	const args = [
		'--port',
		String(redisPort),
		'--bind',
		'127.0.0.1',
		'--save',
		'',
		'--appendonly',
	].concat(['no', '--dir', dir, '--daemonize', 'no', '--protected-mode', 'yes']);
	const server = await spawnServer(bin, args, { logFile, cwd: dir });
	const entry = register('redis', server, dir);
	await waitForService('redis', server, entry, {
		probe: async () => (await redisCommand(redisPort, 'PING')) === '+PONG',
		timeoutMs: readyTimeoutMs,
		intervalMs: 100,
		logFile,
	});
	return {
		host: '127.0.0.1',
		port: redisPort,
		dir,
		pid: server.pid,
		logFile,
		/** @param {string} c */
		command: (c) => redisCommand(redisPort, c),
		stop: entry.stop,
	};
}

/** Stops every service this module started and that is still running. */
async function stopAll() {
	for (const s of [...live]) await s.stop().catch(() => s.killNow());
}

module.exports = {
	which,
	ensurePackages,
	startRedis,
	redisCommand,
	stopAll,
};
