/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: `npm start` as a newcomer runs it, in a terminal (util-linux's `script` holds a pseudo-
// terminal): Ctrl-C, and a terminal closed under it, stop n8n, the emulator and the command itself;
// nothing watches its parent (the terminal's signals reach it through npm and its process group).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import * as n8n from '../../stack/n8n/lib';
import { CLUSTER_ENV } from '../../stack/service/database';
import { REPO, copyUserFolder, onN8n1, report, seconds } from './suite';

/** Every process below `root` (by /proc's parent pids), whatever group it moved to. */
function descendants(root: number): number[] {
	const parents = new Map<number, number[]>();
	for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		let stat: string;
		try {
			stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue; // gone meanwhile
		}
		const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
		parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
	}
	const found: number[] = [];
	for (let next = [root]; next.length; ) {
		next = next.flatMap((pid) => parents.get(pid) ?? []);
		found.push(...next);
	}
	return found;
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
const listening = (port: number) =>
	new Promise<boolean>((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		socket.once('connect', () => (socket.destroy(), resolve(true)));
		socket.once('error', () => resolve(false));
	});

/**
 * Only n8n 2.x: `npm start` runs the n8n that stack/n8n/provision.sh pins by default. Both side by
 * side (each its own folder, ports, Postgres and terminal): most of each is waiting for its stack.
 */
const startTest = onN8n1 ? test.skip : test.concurrent;
const NAME = 'npm start in a terminal: %s stops n8n, the emulator and npm start';
/** Bounds for a failure: both stacks start at once, beside the other lanes of test:all. */
const READY_MS = 360_000;

startTest.each(['Ctrl-C', 'a closed terminal'])(
	NAME,
	async (how) => {
		const { execa } = await import('execa');
		// A copy of the prepared folder: its database migrated already (a fresh one costs n8n's
		// migrations, about 20 s of CPU); npm start sets up its owner and saves its demo data.
		const folder = copyUserFolder('npm-start');
		const [port, emulatorPort] = [await n8n.getFreePort(), await n8n.getFreePort()];
		const command = `npm start -- --port ${port} --emulator-port ${emulatorPort} --folder ${path.dirname(folder.n8nDir)}`;
		// -e: the command's exit status; -f: its output as it comes; /dev/null: no typescript file.
		const terminal = execa('script', ['-qefc', command, '/dev/null'], {
			cwd: REPO,
			// Its own Postgres, as a newcomer's npm start has (not the run's shared cluster).
			env: { [CLUSTER_ENV]: undefined },
			stdin: 'pipe',
			reject: false,
		});
		try {
			let output = '';
			terminal.stdout?.on('data', (chunk: Buffer) => (output += String(chunk)));
			await n8n.waitFor(() => output.includes('Ready in') || terminal.exitCode !== null, {
				timeoutMs: READY_MS,
				intervalMs: 250,
				failure: () =>
					new Error(`npm start not ready within ${READY_MS / 1000} s:\n${output.slice(-3000)}`),
			});
			assert.match(output, /Ready in/, `npm start ended before it was ready:\n${output}`);
			const stack = descendants(terminal.pid as number);
			const stopped = Date.now();
			// Ctrl-C: the terminal sends SIGINT to its foreground group; closing it: SIGHUP.
			if (how === 'Ctrl-C') terminal.stdin?.write('\x03');
			else terminal.kill('SIGKILL');
			await n8n.waitFor(() => stack.every((pid) => !n8n.isAlive(pid)), {
				timeoutMs: 30_000,
				intervalMs: 250,
				failure: () =>
					new Error(
						`${how}: still running after 30 s: ${stack.filter(n8n.isAlive)}\n${output.slice(-2000)}`,
					),
			});
			for (const p of [port, emulatorPort])
				assert.equal(await listening(p), false, `${how}: something still listens on ${p}`);
			report(
				`${stack.length} processes (n8n, the emulator, Postgres, PostgREST, npm start) gone ${seconds(Date.now() - stopped)} after it`,
				NAME.replace('%s', how),
			);
		} finally {
			terminal.kill('SIGKILL');
			folder.remove();
		}
	},
	READY_MS + 120_000,
);
