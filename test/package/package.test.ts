/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: what the tarball holds (the run's one, WEX_TARBALL, or built and packed here) and that its
// dist/ entries load.
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

import { packPackage, tarballFiles } from '../../stack/n8n/community-package';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** An instance of the class a dist/ entry exports (dist/ is the tarball's build, made before beforeAll ends). */
function instantiate(entry: string) {
	const className = entry
		.split('/')
		.pop()!
		.replace(/\.(node|credentials)\.js$/, '');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return new (require(join(root, entry))[className])();
}

describe('the published package', () => {
	let files: string[];

	beforeAll(async () => {
		const pack = await packPackage(root);
		files = await tarballFiles(pack.tarball);
		pack.dispose();
	}, 120_000);

	it('holds only dist, package.json, the README and the licence', () => {
		const stray = files.filter(
			(file) =>
				!file.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(file),
		);
		expect(stray).toEqual([]);
		expect(files.filter((file) => /test|emulator|bench|\.map$/.test(file))).toEqual([]);
	});

	it('ships every entry the n8n section names, with their icons', () => {
		const entries: string[] = [manifest.main, ...manifest.n8n.credentials, ...manifest.n8n.nodes];
		for (const entry of entries) expect(files).toContain(entry);
		for (const icon of [
			'dist/nodes/WebsiteExport/websiteExport.svg',
			'dist/nodes/WebsiteExport/websiteExport.dark.svg',
		]) {
			expect(files).toContain(icon);
		}
	});

	it('ships a codex file beside each node, naming the node and pointing at this repository', () => {
		const repo = String(manifest.repository.url)
			.replace(/^git\+/, '')
			.replace(/\.git$/, '');
		expect(manifest.homepage.startsWith(`${repo}#`)).toBe(true);
		expect(manifest.bugs.url).toBe(`${repo}/issues`);
		for (const entry of manifest.n8n.nodes as string[]) {
			const codexFile = entry.replace(/\.js$/, '.json');
			expect(files).toContain(codexFile);
			const codex = JSON.parse(readFileSync(join(root, codexFile), 'utf8'));
			expect(codex).toMatchObject({ nodeVersion: '1.0', codexVersion: '1.0' });
			expect(codex.categories.length).toBeGreaterThan(0);
			expect(codex.alias.length).toBeGreaterThan(0);
			const description = instantiate(entry).description;
			expect(codex.node).toBe(`${manifest.name}.${description.name}`);
			for (const link of [
				...codex.resources.primaryDocumentation,
				...codex.resources.credentialDocumentation,
			]) {
				expect(link.url.startsWith(`${repo}#`)).toBe(true);
			}
			expect(description.documentationUrl).toBe(codex.resources.primaryDocumentation[0].url);
		}
		for (const entry of manifest.n8n.credentials as string[]) {
			expect(instantiate(entry).documentationUrl).toBe(`${repo}#credentials`);
		}
	});

	it('follows the community package rules', () => {
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(manifest.keywords).toContain('n8n-community-node-package');
		expect(manifest.license).toBe('MIT');
		expect(manifest.n8n.n8nNodesApiVersion).toBe(1);
		expect(manifest.n8n.strict).toBe(true);
	});

	it('requires at run time only what n8n provides', () => {
		const allowed = new Set(['n8n-workflow', 'zod', 'lodash', 'luxon', 'crypto']);
		const sources = files.filter((file) => file.endsWith('.js') && file.startsWith('dist/'));
		for (const file of sources) {
			const code = readFileSync(join(root, file), 'utf8');
			for (const [, name] of code.matchAll(/require\("([^"]+)"\)/g)) {
				if (name.startsWith('.')) continue;
				expect({ file, name, allowed: allowed.has(name) }).toEqual({ file, name, allowed: true });
			}
		}
		expect(existsSync(join(root, 'dist', 'test'))).toBe(false);
	});
});
