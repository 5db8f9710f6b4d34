'use strict';
/** This repository packed, and installed as a community package into throwaway n8n user folders. */

const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { run } = require('./process');

/**
 * @typedef {{ name: string, version: string, dir: string, nodes: string[], credentials: string[] }} InstalledPackage
 * @typedef {{ name: string, version: string, dependencies?: Record<string, string>,
 *   n8n?: { nodes?: string[], credentials?: string[] } }} PackageJson
 */

/**
 * `npm run build` (unless build:false) and `npm pack` of repoDir into a fresh temp dir.
 * Resolves to the absolute .tgz path.
 * @param {string} repoDir
 * @param {{ build?: boolean, outDir?: string }} [options]
 */
async function packPackage(repoDir, { build = true, outDir } = {}) {
	repoDir = path.resolve(repoDir);
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	if (build) await run(npm, ['run', 'build'], { cwd: repoDir, check: true });
	const dest = outDir || (await fsp.mkdtemp(path.join(os.tmpdir(), 'wex-pack-')));
	await fsp.mkdir(dest, { recursive: true });
	const res = await run(npm, ['pack', '--json', '--pack-destination', dest], {
		cwd: repoDir,
		check: true,
	});
	/** @type {{ filename: string }[]} */
	const info = JSON.parse(res.stdout.slice(res.stdout.indexOf('[')));
	return path.join(dest, info[0].filename);
}

/**
 * @param {string} tarball
 * @returns {Promise<PackageJson>}
 */
function readTarballPackageJson(tarball) {
	// tar is on every Linux/macOS box; n8n itself shells out to it the same way.
	return run('tar', ['-xzOf', tarball, 'package/package.json'], { check: true }).then((r) =>
		JSON.parse(r.stdout),
	);
}

/**
 * `npm install` a package's runtime dependencies inside its own folder, as n8n's installer does.
 * @param {string} dir
 */
async function installRuntimeDependencies(dir) {
	await run(
		'npm',
		[
			'install',
			'--omit=dev',
			'--ignore-scripts',
			'--install-strategy=shallow',
			'--package-lock=false',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
		],
		{ cwd: dir, check: true },
	);
}

/**
 * Record the package in nodes/package.json, the list n8n keeps of installed community packages.
 * @param {string} nodesDir
 * @param {PackageJson} pkg
 */
async function recordInLedger(nodesDir, pkg) {
	const ledgerPath = path.join(nodesDir, 'package.json');
	/** @type {{ name?: string, private?: boolean, dependencies: Record<string, string> }} */
	let ledger = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		ledger = JSON.parse(await fsp.readFile(ledgerPath, 'utf8'));
		ledger.dependencies = ledger.dependencies || {};
	} catch {
		/* new ledger */
	}
	ledger.dependencies[pkg.name] = pkg.version;
	await fsp.writeFile(ledgerPath, JSON.stringify(ledger, null, 2));
}

/**
 * Install a packed community package the way n8n 2.41's own installer does
 * (CommunityPackagesService.downloadPackage): untar into <n8nDir>/nodes/node_modules/<name>,
 * drop dev/peer/optional deps from its package.json, `npm install` its runtime deps (if any)
 * inside the package dir with --ignore-scripts, and record it in nodes/package.json.
 * Never `npm install <tgz>` into nodes/: npm would also install the peer `n8n-workflow`,
 * a second copy that breaks `instanceof` checks inside n8n.
 * @param {string} n8nDir
 * @param {string} tarball
 * @returns {Promise<InstalledPackage>}
 */
async function installCommunityPackage(n8nDir, tarball) {
	const pkg = await readTarballPackageJson(tarball);
	const nodesDir = path.join(n8nDir, 'nodes');
	const dest = path.join(nodesDir, 'node_modules', ...pkg.name.split('/'));
	await fsp.rm(dest, { recursive: true, force: true });
	await fsp.mkdir(dest, { recursive: true });
	await run('tar', ['-xzf', path.resolve(tarball), '-C', dest, '--strip-components=1'], {
		check: true,
	});
	const pjPath = path.join(dest, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...rest } = JSON.parse(
		await fsp.readFile(pjPath, 'utf8'),
	);
	await fsp.writeFile(pjPath, JSON.stringify(rest, null, 2));
	if (rest.dependencies && Object.keys(rest.dependencies).length)
		await installRuntimeDependencies(dest);
	await recordInLedger(nodesDir, pkg);
	return {
		name: pkg.name,
		version: pkg.version,
		dir: dest,
		nodes: (pkg.n8n && pkg.n8n.nodes) || [],
		credentials: (pkg.n8n && pkg.n8n.credentials) || [],
	};
}

/**
 * Make an N8N_USER_FOLDER (n8n keeps everything in <userFolder>/.n8n) with the given
 * tarball(s) installed as community packages. `dir` reuses/creates this folder instead of a
 * temp one (under `root`, default the OS's).
 * @param {{ tarball?: string, tarballs?: string[], dir?: string, root?: string }} [options]
 */
async function makeUserFolder({ tarball, tarballs = [], dir, root } = {}) {
	const userFolder = dir
		? path.resolve(dir)
		: await fsp.mkdtemp(path.join(root || os.tmpdir(), 'wex-n8n-'));
	const n8nDir = path.join(userFolder, '.n8n');
	await fsp.mkdir(path.join(n8nDir, 'nodes', 'node_modules'), { recursive: true });
	const all = [...(tarball ? [tarball] : []), ...tarballs];
	const packages = [];
	for (const t of all) packages.push(await installCommunityPackage(n8nDir, t));
	return {
		userFolder,
		n8nDir,
		packages,
		cleanup: () => fs.rmSync(userFolder, { recursive: true, force: true }),
	};
}

module.exports = { packPackage, installCommunityPackage, makeUserFolder };
