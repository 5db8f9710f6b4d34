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

/**
 * The parts of n8n's scanner used here (it ships no types).
 * @typedef {{ passed: boolean, message?: string, details?: string }} ScanResult
 * @typedef {{ analyzePackage: (dir: string, patterns: string[]) => Promise<ScanResult>,
 *   SOURCE_FILE_PATTERNS: string[] }} Scanner
 */

/**
 * n8n's scanner, with its download folder (made when it is imported) inside `work`.
 * @param {string} work
 * @returns {Promise<Scanner>}
 */
async function importScanner(work) {
	const savedTmp = process.env.TMPDIR;
	process.env.TMPDIR = work;
	try {
		return await import(
			pathToFileURL(
				require.resolve('@n8n/scan-community-package/scanner/scanner.mjs', { paths: [root] }),
			).href
		);
	} finally {
		if (savedTmp === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = savedTmp;
	}
}

/**
 * `npm pack` into `work`, unpacked into work/package; answers that folder.
 * @param {string} work
 */
function packAndUnpack(work) {
	/** @type {{ filename: string, entryCount: number, size: number }[]} */
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
	return packageDir;
}

/**
 * The codex files must travel with the nodes they describe.
 * @param {string} packageDir
 */
function assertCodexFiles(packageDir) {
	/** @type {{ n8n: { nodes: string[] } }} */
	const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
	const missing = manifest.n8n.nodes
		.map((entry) => entry.replace(/\.js$/, '.json'))
		.filter((codex) => !fs.existsSync(path.join(packageDir, codex)));
	if (missing.length)
		throw new Error(`codex files missing from the tarball: ${missing.join(', ')}`);
}

/**
 * Prints each leg's result; answers whether every leg passed.
 * @param {[string, ScanResult][]} legs
 */
function reportLegs(legs) {
	let passed = true;
	for (const [name, result] of legs) {
		if (result.passed) {
			console.log(
				`[verify] scanner, ${name} leg: passed${result.message ? ` (${result.message})` : ''}`,
			);
		} else {
			passed = false;
			console.error(`[verify] scanner, ${name} leg: FAILED: ${result.message}`);
			if (result.details) console.error(result.details);
		}
	}
	return passed;
}

async function main() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wex-verify-'));
	try {
		const scanner = await importScanner(work);
		const packageDir = packAndUnpack(work);
		assertCodexFiles(packageDir);
		// The scanner's two legs, exactly as analyzePackageByName runs them after its downloads:
		// the attested source (here: this checkout) with the full rule set on .ts sources, and the
		// tarball's compiled .js and package.json.
		/** @type {[string, ScanResult][]} */
		const legs = [
			['source', await scanner.analyzePackage(root, scanner.SOURCE_FILE_PATTERNS)],
			['tarball', await scanner.analyzePackage(packageDir, ['**/*.js', 'package.json'])],
		];
		if (!reportLegs(legs)) process.exitCode = 1;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error('[verify] failed:', error);
	process.exitCode = 1;
});
