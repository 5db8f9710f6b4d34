#!/usr/bin/env node
// Why this exists: n8n's own package scanner (@n8n/scan-community-package) downloads the published
// package from npm and its attested GitHub source; this runs both of its legs offline, on what
// `npm pack` would publish right now and on this checkout, so a finding fails CI before publishing.
// Usage: node scripts/verify-package.js   (after `npm run build`; leaves no tarball or temp dir behind)
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.resolve(__dirname, '..');

async function main() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wex-verify-'));
	// The scanner makes its own download folder when imported (tmp.dirSync): keep it inside ours.
	const savedTmp = process.env.TMPDIR;
	process.env.TMPDIR = work;
	try {
		const scanner = await import(
			pathToFileURL(
				require.resolve('@n8n/scan-community-package/scanner/scanner.mjs', { paths: [root] }),
			).href
		);
		if (savedTmp === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = savedTmp;

		const [packed] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
				cwd: root,
				encoding: 'utf8',
			}),
		);
		const tarball = path.join(work, packed.filename);
		const packageDir = path.join(work, 'package');
		fs.mkdirSync(packageDir);
		execFileSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
		console.log(
			`[verify] packed ${packed.filename}: ${packed.entryCount} files, ${(packed.size / 1000).toFixed(1)} kB`,
		);

		// The codex files must travel with the nodes they describe.
		const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
		const missing = manifest.n8n.nodes
			.map((entry) => entry.replace(/\.js$/, '.json'))
			.filter((codex) => !fs.existsSync(path.join(packageDir, codex)));
		if (missing.length)
			throw new Error(`codex files missing from the tarball: ${missing.join(', ')}`);

		// The scanner's two legs, exactly as analyzePackageByName runs them after its downloads:
		// the attested source (here: this checkout) with the full rule set on .ts sources, and the
		// tarball's compiled .js and package.json.
		const legs = [
			['source', await scanner.analyzePackage(root, scanner.SOURCE_FILE_PATTERNS)],
			['tarball', await scanner.analyzePackage(packageDir, ['**/*.js', 'package.json'])],
		];
		let failed = false;
		for (const [name, result] of legs) {
			if (result.passed) {
				console.log(
					`[verify] scanner, ${name} leg: passed${result.message ? ` (${result.message})` : ''}`,
				);
			} else {
				failed = true;
				console.error(`[verify] scanner, ${name} leg: FAILED: ${result.message}`);
				if (result.details) console.error(result.details);
			}
		}
		if (failed) process.exitCode = 1;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error('[verify] failed:', error);
	process.exitCode = 1;
});
