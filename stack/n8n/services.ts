/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: n8n's queue mode needs Redis; this runs a private, throwaway one on loopback (no Docker here).
/**
 * Redis for n8n's queue mode (its Postgres is stack/postgres.ts): Debian's package, installed (as
 * root) when missing (`apt-get update && apt-get install -y redis-server`), a child process on
 * 127.0.0.1 with its data in a temp dir that stop() removes. Nothing here touches the system's
 * own services.
 *
 *   import * as svc from './services';
 *   const redis = await svc.startRedis();          // { host, port, stop() }
 *   await svc.stopAll();                           // whatever is still running (also run on exit)
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { getFreePort, killGroup, run, spawnServer, waitForHealth } from './process';

/** Services this process started and has not stopped: killed when it exits. */
const live: Set<Service> = new Set();
process.on('exit', () => {
	for (const s of live) s.killNow();
});

/** The executable `cmd` on PATH, or null. */
export function which(cmd: string) {
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
 * `command` (on PATH, or an absolute path), else installed (root only) by `apt-get update &&
 * apt-get install -y <aptArgs>` (the package last), one caller at a time: lanes of `npm run
 * test:all` side by side (queue mode's Redis, the browser check's Chromium) would meet apt's own
 * lock, which fails instead of waiting. The mutex is a flock on /var/lib/dpkg.
 */
export async function ensureDebianPackage(command: string, aptArgs: string[]): Promise<void> {
	const found = () => (path.isAbsolute(command) ? fs.existsSync(command) : which(command));
	if (found()) return;
	const install = `apt-get update && apt-get install -y ${aptArgs.join(' ')}`;
	if (process.getuid?.() !== 0) throw new Error(`${command} is missing: run as root: ${install}`);
	process.stderr.write(`${command} is missing: installing Debian's ${aptArgs.at(-1)} package\n`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	await run('flock', ['/var/lib/dpkg', 'sh', '-c', install], { env, check: true });
	if (!found()) throw new Error(`${command} still missing after ${install}`);
}

/** redis-server, from Debian's packages when missing (root only). */
export async function ensurePackages() {
	await ensureDebianPackage('redis-server', ['--no-install-recommends', 'redis-server']);
}

type Service = { killNow: () => void; stop: () => Promise<void> };

/** One Redis command over a raw socket (inline protocol); resolves to the first reply line. */
function redisCommand(port: number, command: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const sock = net.connect({ host: '127.0.0.1', port });
		let buf = '';
		const timer = setTimeout(() => sock.destroy(new Error('redis timeout')), 2000);
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
 * --appendonly no), working dir a temp dir that stop() removes. Resolves to { host, port, stop() }.
 */
export async function startRedis() {
	const bin = which('redis-server');
	if (!bin) throw new Error('redis-server not found (apt-get install -y redis-server)');
	const port = await getFreePort();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wex-redis-'));
	const logFile = path.join(dir, 'redis.log');
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly'].concat(
		['no', '--dir', dir, '--daemonize', 'no', '--protected-mode', 'yes'],
	);
	const server = await spawnServer(bin, args, { logFile, cwd: dir });
	const entry: Service = {
		killNow() {
			if (!server.exited()) killGroup(server.pid, 'SIGKILL');
			fs.rmSync(dir, { recursive: true, force: true });
		},
		async stop() {
			await server.stop();
			live.delete(entry);
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
	live.add(entry);
	try {
		await waitForHealth(server, {
			timeoutMs: 20000,
			intervalMs: 100,
			probe: async () => ((await redisCommand(port, 'PING')) === '+PONG' ? true : undefined),
			failure: (exited) => {
				if (!exited) return new Error('redis not ready after 20000 ms');
				const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
				return new Error(`redis exited early (${JSON.stringify(exited)}): ${text.slice(-2000)}`);
			},
		});
	} catch (e) {
		await entry.stop();
		throw e;
	}
	return { host: '127.0.0.1', port, stop: entry.stop };
}

/** Stops every service this module started and that is still running. */
export async function stopAll() {
	for (const s of [...live]) await s.stop().catch(() => s.killNow());
}
