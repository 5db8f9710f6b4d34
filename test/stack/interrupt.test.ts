/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// A command that run() started sits in a process group of its own, which no Ctrl-C or kill of
// the tooling reaches: onInterrupt (stack/n8n/process.ts) stops it, and the signal still ends the process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { isAlive as alive, positiveInt, readWhole, waitFor } from '../../stack/n8n/process';
import { RUN_TYPESCRIPT } from '../../stack/service/launch';

it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
	'a command run() started stops when the process that ran it gets %s, which still ends that process',
	async (signal) => {
		const { execa } = await import('execa');
		const pidFile = join(mkdtempSync(join(tmpdir(), 'interrupt-')), 'pid');
		const processTs = join(__dirname, '..', '..', 'stack', 'n8n', 'process.ts');
		// The command hands over its pid, then sleeps for five minutes in its own process group. The
		// pid goes into a file beside, renamed into place: `> file` creates the file before `echo`
		// writes to it, and a read in between got '' (pid 0, this test's own process group).
		const handOver = `echo $$ > ${pidFile}.partial && mv ${pidFile}.partial ${pidFile}`;
		const script = `require(${JSON.stringify(processTs)}).run('sh', ['-c', '${handOver}; exec sleep 300'])`;
		const parent = execa(process.execPath, [...RUN_TYPESCRIPT, '-e', script], { reject: false });
		const pid = await waitFor(() => readWhole(pidFile, positiveInt), {
			timeoutMs: 20_000,
			intervalMs: 50,
			failure: () => new Error('the command never started'),
		});
		expect(alive(pid)).toBe(true);
		parent.kill(signal);
		expect((await parent).signal).toBe(signal);
		await waitFor(() => !alive(pid), {
			timeoutMs: 5000,
			intervalMs: 50,
			failure: () => new Error(`the command ${pid} outlived its parent's ${signal}`),
		});
	},
);
