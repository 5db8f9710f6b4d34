'use strict';
// Why: n8n's queue mode needs Postgres and Redis; this runs private, throwaway ones on loopback (no Docker here).
/**
 * Postgres and Redis for n8n's queue mode, each a child process on 127.0.0.1 with its data in a
 * temp dir that stop() removes. Debian's packages are installed (as root) when missing:
 * `apt-get update && apt-get install -y postgresql redis-server`. Nothing here touches the
 * system's own clusters or services.
 *
 *   const svc = require('./services');
 *   const pg = await svc.startPostgres();          // { host, port, user, database, psql(sql), stop() }
 *   const redis = await svc.startRedis();          // { host, port, command('PING'), stop() }
 *   await svc.stopAll();                           // whatever is still running (also run on exit)
 *
 * Plain CommonJS, node: modules only (runs on Node 20 or 24).
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const { getFreePort, sleep } = require('./lib');

const live = new Set();
process.on('exit', () => {
	for (const s of live) s.killNow();
});

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

/** Postgres's bin dir (initdb, postgres, psql): the newest /usr/lib/postgresql/<v>/bin, or PATH. */
function findPostgresBin() {
	const root = '/usr/lib/postgresql';
	if (fs.existsSync(root)) {
		const versions = fs
			.readdirSync(root)
			.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
			.sort((a, b) => Number(b) - Number(a));
		if (versions.length) return path.join(root, versions[0], 'bin');
	}
	const initdb = which('initdb');
	return initdb ? path.dirname(fs.realpathSync(initdb)) : null;
}

/** Installs postgresql / redis-server from Debian's packages when missing (root only). */
function ensurePackages({ log = (m) => process.stderr.write(`[services] ${m}\n`) } = {}) {
	const missing = [];
	if (!findPostgresBin()) missing.push('postgresql');
	if (!which('redis-server')) missing.push('redis-server');
	if (!missing.length) return { installed: [] };
	if (process.getuid && process.getuid() !== 0) {
		throw new Error(
			`missing ${missing.join(' and ')}: install them (apt-get install -y ${missing.join(' ')}) or run as root`,
		);
	}
	log(`installing ${missing.join(', ')} from Debian's packages`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
	execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
		stdio: ['ignore', 'ignore', 'inherit'],
		env,
	});
	if (!findPostgresBin() || !which('redis-server'))
		throw new Error('postgresql / redis-server still missing after apt-get install');
	return { installed: missing };
}

/** A private temp dir (removed by the service's stop()). */
function tempDir(prefix) {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Spawns a server child in its own process group; output appended to logFile. */
function spawnChild(cmd, args, { logFile, uid, gid, env, cwd }) {
	const out = fs.openSync(logFile, 'a');
	const child = spawn(cmd, args, {
		detached: true,
		stdio: ['ignore', out, out],
		uid,
		gid,
		env: env || process.env,
		cwd,
	});
	fs.closeSync(out);
	let exited = null;
	const whenExited = new Promise((resolve) =>
		child.on('exit', (code, signal) => resolve((exited = { code, signal }))),
	);
	return { child, whenExited, exited: () => exited };
}

function signalGroup(pid, sig) {
	try {
		process.kill(-pid, sig);
	} catch {
		try {
			process.kill(pid, sig);
		} catch {
			/* gone */
		}
	}
}

function register(name, proc, dir, stopSignal) {
	const entry = {
		name,
		killNow() {
			if (!proc.exited()) signalGroup(proc.child.pid, 'SIGKILL');
			fs.rmSync(dir, { recursive: true, force: true });
		},
		async stop({ timeoutMs = 15000 } = {}) {
			if (!proc.exited()) {
				signalGroup(proc.child.pid, stopSignal);
				const t = setTimeout(() => signalGroup(proc.child.pid, 'SIGKILL'), timeoutMs);
				await proc.whenExited;
				clearTimeout(t);
			}
			live.delete(entry);
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
	live.add(entry);
	return entry;
}

function runSync(cmd, args, opts = {}) {
	return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
}

/**
 * A throwaway Postgres cluster: initdb (trust auth, user postgres) in a temp dir, `postgres` on
 * 127.0.0.1:<free port>, socket in the same dir, durability off (fsync, synchronous_commit).
 * As root the server runs as the `postgres` system user (Postgres refuses root).
 * Resolves to { host, port, user, database, dir, pid, logFile, psql(sql) (sync, -At output), stop() }.
 */
async function startPostgres({ port, maxConnections = 100, readyTimeoutMs = 60000 } = {}) {
	const bin = findPostgresBin();
	if (!bin) throw new Error('Postgres not found (apt-get install -y postgresql)');
	port = port || (await getFreePort());
	const dir = tempDir('wex-pg-');
	let uid;
	let gid;
	if (process.getuid && process.getuid() === 0) {
		uid = Number(runSync('id', ['-u', 'postgres']).trim());
		gid = Number(runSync('id', ['-g', 'postgres']).trim());
		fs.chownSync(dir, uid, gid);
	}
	const data = path.join(dir, 'data');
	const logFile = path.join(dir, 'postgres.log');
	const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
	try {
		runSync(
			path.join(bin, 'initdb'),
			['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
			{ uid, gid, env, cwd: dir },
		);
	} catch (e) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw new Error(`initdb failed: ${e.stderr || e.message}`);
	}
	const proc = spawnChild(
		path.join(bin, 'postgres'),
		[
			'-D',
			data,
			'-p',
			String(port),
			'-k',
			dir,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
			'-c',
			`max_connections=${maxConnections}`,
		],
		{ logFile, uid, gid, env, cwd: dir },
	);
	// SIGINT = Postgres's "fast" shutdown (SIGTERM would wait for clients to disconnect).
	const entry = register('postgres', proc, dir, 'SIGINT');
	const psql = (sql, { database = 'postgres' } = {}) =>
		runSync(
			path.join(bin, 'psql'),
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(port),
				'-U',
				'postgres',
				'-d',
				database,
				'-v',
				'ON_ERROR_STOP=1',
				'-At',
				'-c',
				sql,
			],
			{
				env: { ...env, PGCONNECT_TIMEOUT: '5' },
			},
		).trim();
	const deadline = Date.now() + readyTimeoutMs;
	for (;;) {
		if (proc.exited()) {
			const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
			await entry.stop();
			throw new Error(
				`postgres exited early (${JSON.stringify(proc.exited())}): ${text.slice(-2000)}`,
			);
		}
		try {
			if (psql('select 1') === '1') break;
		} catch {
			/* not ready */
		}
		if (Date.now() > deadline) {
			await entry.stop();
			throw new Error(`postgres not ready after ${readyTimeoutMs} ms`);
		}
		await sleep(200);
	}
	return {
		host: '127.0.0.1',
		port,
		user: 'postgres',
		password: 'postgres', // trust auth: any password is accepted
		database: 'postgres',
		dir,
		pid: proc.child.pid,
		logFile,
		psql,
		stop: (o) => entry.stop(o),
	};
}

/** One Redis command over a raw socket (inline protocol); resolves to the first reply line. */
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
 */
async function startRedis({ port, readyTimeoutMs = 20000 } = {}) {
	const bin = which('redis-server');
	if (!bin) throw new Error('redis-server not found (apt-get install -y redis-server)');
	port = port || (await getFreePort());
	const dir = tempDir('wex-redis-');
	const logFile = path.join(dir, 'redis.log');
	const proc = spawnChild(
		bin,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--daemonize',
			'no',
			'--protected-mode',
			'yes',
		],
		{ logFile, cwd: dir },
	);
	const entry = register('redis', proc, dir, 'SIGTERM');
	const deadline = Date.now() + readyTimeoutMs;
	for (;;) {
		if (proc.exited()) {
			const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
			await entry.stop();
			throw new Error(`redis-server exited early: ${text.slice(-2000)}`);
		}
		try {
			if ((await redisCommand(port, 'PING')) === '+PONG') break;
		} catch {
			/* not ready */
		}
		if (Date.now() > deadline) {
			await entry.stop();
			throw new Error(`redis not ready after ${readyTimeoutMs} ms`);
		}
		await sleep(100);
	}
	return {
		host: '127.0.0.1',
		port,
		dir,
		pid: proc.child.pid,
		logFile,
		command: (c) => redisCommand(port, c),
		stop: (o) => entry.stop(o),
	};
}

/** Stops every service this module started and that is still running. */
async function stopAll() {
	for (const s of [...live]) await s.stop().catch(() => s.killNow());
}

module.exports = {
	ensurePackages,
	findPostgresBin,
	startPostgres,
	startRedis,
	redisCommand,
	stopAll,
};
