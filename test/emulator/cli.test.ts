// The CLI as a process: it starts, prints how to reach it, and stops cleanly on a signal.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';

/** Runs cli.ts in a child node, transpiling TypeScript on the fly (no build step needed). */
function runCli(args: string[]): ChildProcess {
	const bootstrap = `
		const fs = require('node:fs');
		const ts = require('typescript');
		require.extensions['.ts'] = (module, file) => module._compile(
			ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText,
			file,
		);
		require(${JSON.stringify(join(__dirname, 'cli.ts'))}).main(process.argv.slice(1)).catch((e) => { console.error(e.message); process.exit(1); });
	`;
	return spawn(process.execPath, ['-e', bootstrap, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
		child.on('exit', () => (until.test(text) ? resolve(text) : reject(new Error(`exited early:\n${text}`))));
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
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		child.kill(signal);
		expect(await exited).toBe(0);
	}, 20_000);
}

it('refuses unknown options with exit code 1', async () => {
	const child = runCli(['--colour', 'red']);
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	expect(await output(child, /unknown option --colour/)).toContain('unknown option');
	expect(await exited).toBe(1);
});
