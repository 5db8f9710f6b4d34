/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the documentation stays whole and plain: every relative link and #anchor of every Markdown
// file resolves (as GitHub renders it), so do the repository addresses in the nodes and
// package.json, and the README's and docs/'s sentences stay short (issue 50).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import {
	anchors,
	brokenLinks,
	brokenTarget,
	githubSlug,
	markdownFiles,
	measureSentences,
	repoUrlTargets,
	treeReader,
	type ReadFile,
} from './markdown';

const root = resolve(__dirname, '../..');
const tree = treeReader(root);
const files = markdownFiles(root);

/** A tree held in memory: its files, and its folders as the prefixes of their paths. */
function memoryTree(contents: Record<string, string>) {
	const read: ReadFile = (path) => contents[path];
	const exists = (path: string) =>
		path in contents || Object.keys(contents).some((file) => file.startsWith(`${path}/`));
	return { read, exists };
}

/** The files under `folder` (relative to the root) whose names end with one of `endings`. */
function filesUnder(folder: string, endings: string[]): string[] {
	return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
		.filter((name) => endings.some((ending) => name.endsWith(ending)))
		.map((name) => join(folder, name));
}

describe('the link checker', () => {
	it('gives headings the anchors GitHub gives them', () => {
		expect(githubSlug('Errors, retries and limits')).toBe('errors-retries-and-limits');
		expect(githubSlug('`npm start` — the local stack')).toBe('npm-start--the-local-stack');
		expect(githubSlug('What [grouping](x.md) cannot give')).toBe('what-grouping-cannot-give');
		const text = '# A\n## Usage\n```\n# not a heading\n```\n### Usage\n<a id="here"></a>\n';
		expect([...anchors(text)]).toEqual(['a', 'usage', 'usage-1', 'here']);
	});

	it('finds a missing file, a missing anchor and a link out of the tree', () => {
		const fake = memoryTree({
			'README.md': '# Title\n## Usage\nSee [docs](docs/a.md#b), [gone](docs/z.md), [u](#usage).\n',
			'docs/a.md': '# A\n[up](../README.md#title) [out](../../x.md) [bad](../README.md#nope)\n',
		});
		expect(brokenLinks(['README.md', 'docs/a.md'], fake)).toEqual([
			'README.md:3: docs/a.md#b: docs/a.md has no heading or anchor #b',
			'README.md:3: docs/z.md: no such file (docs/z.md)',
			'docs/a.md:2: ../../x.md: outside the repository',
			'docs/a.md:2: ../README.md#nope: README.md has no heading or anchor #nope',
		]);
		expect(brokenTarget('README.md', 'https://example.com/#x', fake)).toBeUndefined();
		expect(brokenTarget('README.md', '`docs/z.md`', fake)).toBeDefined();
	});

	it('measures sentences without code, tables or headings', () => {
		const text = [
			'# A heading of many words that is not a sentence',
			'One two three. Four five, e.g. six seven eight.',
			'',
			'| a | b c d e f g h |',
			'```',
			'code code code code code code code code',
			'```',
			'- A [linked](x.md) item.',
		].join('\n');
		const measure = measureSentences(text);
		expect(measure.sentences).toBe(3);
		expect(measure.max).toBe(6);
		expect(measure.average).toBe(4);
	});
});

describe('the documentation', () => {
	it('is found', () => {
		expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md']));
		expect(files.some((file) => file.startsWith('docs/'))).toBe(true);
	});

	it('has no broken relative link or anchor in any Markdown file', () => {
		expect(brokenLinks(files, tree)).toEqual([]);
	});

	it("resolves the repository's own addresses in the nodes, credentials and package.json", () => {
		const sources = [
			'package.json',
			...filesUnder('nodes', ['.ts', '.json']),
			...filesUnder('credentials', ['.ts']),
		];
		const problems = sources.flatMap((file) =>
			repoUrlTargets(readFileSync(join(root, file), 'utf8'))
				.map((target) => brokenTarget('README.md', target, tree))
				.filter((why) => why !== undefined)
				.map((why) => `${file}: ${why}`),
		);
		expect(problems).toEqual([]);
	});

	it("puts the two commands on top of the README, then n8n-nodes-starter's sections in order", () => {
		const readme = tree.read('README.md') ?? '';
		const top = /^# .+\n+```bash\n([^`]+)```/.exec(readme)?.[1] ?? '';
		expect(top).toMatch(/^npm ci && npm start .*\nnpm run test:all .*\n$/);
		const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
		expect(sections).toEqual([
			'Installation',
			'Operations',
			'Credentials',
			'Compatibility',
			'Usage',
			'Resources',
			'Version history',
		]);
	});

	it('keeps the README plain: at most 20 words a sentence on average, none over 40', () => {
		const measure = measureSentences(tree.read('README.md') ?? '');
		expect(measure.over(40)).toEqual([]);
		expect(measure.average).toBeLessThanOrEqual(20);
	});

	it('starts every page of docs/ with its title and a two-line summary', () => {
		const pages = files.filter((file) => file.startsWith('docs/'));
		const unsummed = pages.filter(
			(page) =>
				!/^# .+\n\n(?!```|[#|!-])[^\n]+\n(?!```|[#|!-])[^\n]+\n\n/.test(tree.read(page) ?? ''),
		);
		expect(unsummed).toEqual([]);
	});

	it('keeps every page of docs/ plain: no sentence over 50 words', () => {
		const pages = files.filter((file) => file.startsWith('docs/'));
		const over = pages.flatMap((page) =>
			measureSentences(tree.read(page) ?? '')
				.over(50)
				.map((sentence) => `${page}: ${sentence}`),
		);
		expect(over).toEqual([]);
	});
});
