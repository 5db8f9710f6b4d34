/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The CLI as a process: it starts, prints how to reach it, and stops cleanly on a signal.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { parseArgs } from '../../stack/service/cli';

const children: ChildProcess[] = [];
// A failed test must not leave an emulator process behind.
afterEach(() => {
	for (const child of children.splice(0))
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function runCli(args: string[]): ChildProcess {
	const cli = join(__dirname, '..', '..', 'stack', 'service', 'cli.ts');
	const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
		stdio: ['ignore', 'pipe', 'pipe'],
		cwd: join(__dirname, '..', '..'),
	});
	children.push(child);
	return child;
}

function output(child: ChildProcess, until: RegExp): Promise<string> {
	return new Promise((resolve, reject) => {
		let text = '';
		const onData = (chunk: Buffer) => {
			text += chunk.toString();
			if (until.test(text)) resolve(text);
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		child.on('exit', () =>
			until.test(text) ? resolve(text) : reject(new Error(`exited early:\n${text}`)),
		);
	});
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
	it(`starts, prints base URL, key, demo login and control API, and stops on ${signal}`, async () => {
		const child = runCli(['--port', '0', '--job-ms', '500']);
		const banner = await output(child, /Ctrl\+C to stop/);
		const baseUrl = /base URL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
		expect(baseUrl).toBeDefined();
		expect(banner).toMatch(/API key\s+eyJ/);
		expect(banner).toContain('demo@example.com / demo-password');
		expect(banner).toContain(`${baseUrl}/__emulator/`);
		const health = await request(`${baseUrl}/__emulator/health`);
		expect(await health.body.json()).toMatchObject({ ok: true, baseUrl });
		const exited = new Promise<number | null>((resolve) =>
			child.on('exit', (code) => resolve(code)),
		);
		child.kill(signal);
		expect(await exited).toBe(0);
	});
}

it('refuses unknown options with exit code 1', async () => {
	const child = runCli(['--colour', 'red']);
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	expect(await output(child, /unknown option --colour/)).toContain('unknown option');
	expect(await exited).toBe(1);
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
	expect(() => parseArgs(['--colour', 'red'])).toThrow(/unknown option/);
	expect(() => parseArgs(['--port'])).toThrow(/non-negative integer/);
});
