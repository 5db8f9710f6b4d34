/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
import { execFileSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('the published package', () => {
	let files: string[];

	beforeAll(() => {
		execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'pipe' });
		const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
		files = packed.files.map((file: { path: string }) => file.path);
	}, 120_000);

	it('holds only dist, package.json, the README and the licence', () => {
		const stray = files.filter((file) => !file.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(file));
		expect(stray).toEqual([]);
		expect(files.filter((file) => /test|emulator|bench|\.map$/.test(file))).toEqual([]);
	});

	it('ships every entry the n8n section names, with their icons', () => {
		const entries: string[] = [manifest.main, ...manifest.n8n.credentials, ...manifest.n8n.nodes];
		for (const entry of entries) expect(files).toContain(entry);
		for (const icon of ['dist/nodes/WebsiteExport/websiteExport.svg', 'dist/nodes/WebsiteExport/websiteExport.dark.svg']) {
			expect(files).toContain(icon);
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
