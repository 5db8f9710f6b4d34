/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The CLI as a process: it starts, prints how to reach it, and stops cleanly on a signal.
import { join } from 'node:path';
import { request } from 'undici';
import { parseArgs } from '../../stack/service/cli';
import { RUN_TYPESCRIPT } from '../../stack/service/launch';

let execaNode: typeof import('execa').execaNode;
beforeAll(async () => ({ execaNode } = await import('execa')));

/** The CLI as a user runs it (`npm run emulator`); all output in one stream. */
function runCli(args: string[]) {
	const cli = join(__dirname, '..', '..', 'stack', 'service', 'cli.ts');
	return execaNode(cli, args, {
		nodeOptions: RUN_TYPESCRIPT,
		ipc: false, // as in a terminal: launch.ts's children talk over IPC instead
		all: true,
		reject: false,
		forceKillAfterDelay: 10_000,
	});
}

/** What the CLI printed once `until` shows in it (or it exited). */
function printed(child: ReturnType<typeof runCli>, until: RegExp): Promise<string> {
	return new Promise((resolve) => {
		let text = '';
		child.all.on('data', (chunk: Buffer) => {
			text += chunk.toString();
			if (until.test(text)) resolve(text);
		});
		child.all.on('end', () => resolve(text));
	});
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
	it(`starts, prints base URL, key, demo login and control API, and stops on ${signal}`, async () => {
		const child = runCli(['--port', '0', '--job-ms', '500']);
		try {
			const banner = await printed(child, /Ctrl\+C to stop/);
			const baseUrl = /base URL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
			expect(baseUrl).toBeDefined();
			expect(banner).toMatch(/API key\s+eyJ/);
			expect(banner).toContain('demo@example.com / demo-password');
			expect(banner).toContain(`${baseUrl}/__emulator/`);
			const health = await request(`${baseUrl}/__emulator/health`);
			expect(await health.body.json()).toMatchObject({ ok: true, baseUrl });
			child.kill(signal);
			expect((await child).exitCode).toBe(0);
		} finally {
			child.kill('SIGKILL'); // a failed test must not leave a service behind
		}
	});
}

it('refuses unknown options with exit code 1', async () => {
	const child = runCli(['--colour', 'red']);
	expect(await printed(child, /Unknown option '--colour'/)).toContain('Unknown option');
	expect((await child).exitCode).toBe(1);
});

it('parses the flags, with defaults', () => {
	expect(parseArgs([])).toEqual({ port: 54321 });
	expect(
		parseArgs([
			'--port',
			'0',
			'--job-ms=500',
			'--token-lifetime',
			'60',
			'--max-rows',
			'10',
			'--latency-ms',
			'5',
		]),
	).toEqual({
		port: 0,
		jobDurationMs: 500,
		tokenLifetimeSeconds: 60,
		maxRows: 10,
		latencyMs: 5,
	});
	expect(() => parseArgs(['--colour', 'red'])).toThrow(/Unknown option '--colour'/);
	expect(() => parseArgs(['--port'])).toThrow(/'--port <value>' argument missing/);
	expect(() => parseArgs(['--port=-1'])).toThrow(/non-negative integer/);
});
