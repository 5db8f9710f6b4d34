/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: n8n's own package scanner (@n8n/scan-community-package) downloads the published package
// from npm and its attested GitHub source; this runs both of its legs offline, on what `npm pack`
// would publish right now and on this checkout, so a finding fails CI before publishing.
// `npm run verify:package` (builds and packs unless WEX_TARBALL names the run's tarball; leaves no
// tarball or temp dir behind).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadExeca } from '../../stack/execa';
import { packPackage, tarballFiles } from '../../stack/n8n/community-package';

const root = resolve(__dirname, '..', '..');

/** The parts of n8n's scanner used here (it ships no types). */
type ScanResult = { passed: boolean; message?: string; details?: string };
type Scanner = {
	analyzePackage: (dir: string, patterns: string[]) => Promise<ScanResult>;
	SOURCE_FILE_PATTERNS: string[];
};

/** n8n's scanner, with its download folder (made when it is imported) inside `work`. */
async function importScanner(work: string): Promise<Scanner> {
	const savedTmp = process.env.TMPDIR;
	process.env.TMPDIR = work;
	try {
		const scanner = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
		return (await import(pathToFileURL(scanner).href)) as Scanner;
	} finally {
		if (savedTmp === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = savedTmp;
	}
}

/** The pack's tarball (the run's one, or built and packed now) unpacked into work/package; answers that folder. */
async function packAndUnpack(work: string): Promise<string> {
	const pack = await packPackage(root);
	try {
		const packageDir = join(work, 'package');
		mkdirSync(packageDir);
		const { execa } = await loadExeca();
		await execa('tar', ['-xzf', pack.tarball, '-C', packageDir, '--strip-components=1']);
		const files = (await tarballFiles(pack.tarball)).length;
		const kB = (statSync(pack.tarball).size / 1000).toFixed(1);
		console.log(`[verify] ${basename(pack.tarball)}: ${files} files, ${kB} kB`);
		return packageDir;
	} finally {
		pack.dispose();
	}
}

/** The codex files must travel with the nodes they describe. */
function assertCodexFiles(packageDir: string): void {
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[] };
	};
	const missing = manifest.n8n.nodes
		.map((entry) => entry.replace(/\.js$/, '.json'))
		.filter((codex) => !existsSync(join(packageDir, codex)));
	if (missing.length)
		throw new Error(`codex files missing from the tarball: ${missing.join(', ')}`);
}

/** Prints each leg's result; answers whether every leg passed. */
function reportLegs(legs: Array<[string, ScanResult]>): boolean {
	for (const [name, result] of legs) {
		if (result.passed)
			console.log(
				`[verify] scanner, ${name} leg: passed${result.message ? ` (${result.message})` : ''}`,
			);
		else
			console.error(
				`[verify] scanner, ${name} leg: FAILED: ${result.message}\n${result.details ?? ''}`,
			);
	}
	return legs.every(([, result]) => result.passed);
}

async function main(): Promise<void> {
	const work = mkdtempSync(join(tmpdir(), 'wex-verify-'));
	try {
		const scanner = await importScanner(work);
		const packageDir = await packAndUnpack(work);
		assertCodexFiles(packageDir);
		// The scanner's two legs, exactly as analyzePackageByName runs them after its downloads:
		// the attested source (here: this checkout) with the full rule set on .ts sources, and the
		// tarball's compiled .js and package.json.
		const legs: Array<[string, ScanResult]> = [
			['source', await scanner.analyzePackage(root, scanner.SOURCE_FILE_PATTERNS)],
			['tarball', await scanner.analyzePackage(packageDir, ['**/*.js', 'package.json'])],
		];
		if (!reportLegs(legs)) process.exitCode = 1;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error('[verify] failed:', error);
	process.exitCode = 1;
});
