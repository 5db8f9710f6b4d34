/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** This repository packed, and installed as a community package into throwaway n8n user folders. */

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run, writeWhole } from './process';

type PackageJson = { name: string; version: string; dependencies?: Record<string, string> };

/** The environment variable that hands a run's one tarball to every consumer (.ci/test-all sets it). */
const TARBALL_ENV = 'WEX_TARBALL';

/**
 * The one build and pack: `npm run <build>` (dist/ afresh: `build`, or `build:typechecked`, which
 * type-checks everything in the same program), then `npm pack` into `outDir`; the .tgz's path.
 */
export async function buildAndPack(
	repoDir: string,
	outDir: string,
	build: 'build' | 'build:typechecked' = 'build',
): Promise<string> {
	repoDir = path.resolve(repoDir);
	await run('npm', ['run', '-s', build], { cwd: repoDir, check: true });
	await fsp.mkdir(outDir, { recursive: true });
	const pack = ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir];
	const res = await run('npm', pack, { cwd: repoDir, check: true });
	const info: { filename: string }[] = JSON.parse(res.stdout.slice(res.stdout.indexOf('[')));
	return path.resolve(outDir, info[0].filename);
}

/**
 * The pack as a tarball: the run's one (WEX_TARBALL, whose dist/ nobody rebuilds meanwhile), else
 * built and packed now into a fresh temp folder. `dispose` removes only a folder made here.
 */
export async function packPackage(
	repoDir: string,
): Promise<{ tarball: string; dispose: () => void }> {
	const handed = process.env[TARBALL_ENV];
	if (handed) return { tarball: path.resolve(handed), dispose: () => undefined };
	const dest = await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-pack-'));
	const dispose = () => fs.rmSync(dest, { recursive: true, force: true });
	try {
		return { tarball: await buildAndPack(repoDir, dest), dispose };
	} catch (error) {
		dispose();
		throw error;
	}
}

/** The paths a tarball holds, without npm's leading `package/`. */
export async function tarballFiles(tarball: string): Promise<string[]> {
	const { stdout } = await run('tar', ['-tzf', tarball], { check: true });
	return stdout
		.split('\n')
		.filter((line) => line && !line.endsWith('/'))
		.map((line) => line.replace(/^package\//, ''));
}

/** Record the package in nodes/package.json, the list n8n keeps of installed community packages. */
async function recordInLedger(nodesDir: string, pkg: PackageJson) {
	const ledgerPath = path.join(nodesDir, 'package.json');
	let ledger = {
		name: 'installed-nodes',
		private: true,
		dependencies: {} as Record<string, string>,
	};
	if (fs.existsSync(ledgerPath)) ledger = JSON.parse(await fsp.readFile(ledgerPath, 'utf8'));
	ledger.dependencies = { ...ledger.dependencies, [pkg.name]: pkg.version };
	// Whole or not at all: it outlives this run in npm start's folder, and the next install parses it.
	writeWhole(ledgerPath, JSON.stringify(ledger, null, 2));
}

/**
 * Install a packed community package the way n8n 2.41's own installer does
 * (CommunityPackagesService.downloadPackage): untar into <n8nDir>/nodes/node_modules/<name>,
 * drop dev/peer/optional deps from its package.json and record it in nodes/package.json. The
 * installer would then `npm install` runtime dependencies; this pack has none (package.test.ts).
 * Never `npm install <tgz>` into nodes/: npm would also install the peer `n8n-workflow`,
 * a second copy that breaks `instanceof` checks inside n8n.
 */
async function installCommunityPackage(n8nDir: string, tarball: string): Promise<PackageJson> {
	// tar is on every Linux/macOS box; n8n itself shells out to it the same way.
	const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'], { check: true });
	const pkg: PackageJson = JSON.parse(stdout);
	if (Object.keys(pkg.dependencies ?? {}).length)
		throw new Error(`${pkg.name} has runtime dependencies, which this installer does not install`);
	const nodesDir = path.join(n8nDir, 'nodes');
	const dest = path.join(nodesDir, 'node_modules', ...pkg.name.split('/'));
	await fsp.rm(dest, { recursive: true, force: true });
	await fsp.mkdir(dest, { recursive: true });
	await run('tar', ['-xzf', path.resolve(tarball), '-C', dest, '--strip-components=1'], {
		check: true,
	});
	const pjPath = path.join(dest, 'package.json');
	const rest = JSON.parse(await fsp.readFile(pjPath, 'utf8'));
	for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
		delete rest[field];
	await fsp.writeFile(pjPath, JSON.stringify(rest, null, 2));
	await recordInLedger(nodesDir, pkg);
	return pkg;
}

/**
 * Make an N8N_USER_FOLDER (n8n keeps everything in <userFolder>/.n8n) with the tarball installed
 * as a community package. `dir` reuses/creates this folder instead of a temp one.
 */
export async function makeUserFolder({ tarball, dir }: { tarball: string; dir?: string }) {
	const userFolder = dir
		? path.resolve(dir)
		: await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-n8n-'));
	const n8nDir = path.join(userFolder, '.n8n');
	await fsp.mkdir(path.join(n8nDir, 'nodes', 'node_modules'), { recursive: true });
	return {
		userFolder,
		n8nDir,
		installed: await installCommunityPackage(n8nDir, tarball),
		cleanup: () => fs.rmSync(userFolder, { recursive: true, force: true }),
	};
}
