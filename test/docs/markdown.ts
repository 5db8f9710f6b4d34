/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: what the documentation test reads in Markdown, written once: the files, GitHub's heading
// anchors, the relative links and their targets, and the sentences a reader meets (their lengths).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/** The repository's address, as package.json, the nodes and the codex files give it. */
export const REPO_URL = 'https://github.com/website-export/n8n-nodes-website-export';

/** Every Markdown file of the tree (tracked, or new and not ignored), relative to `root`. */
export function markdownFiles(root: string): string[] {
	const listed = execFileSync(
		'git',
		['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'],
		{ cwd: root, encoding: 'utf8' },
	);
	return listed
		.split('\n')
		.filter((file) => file !== '' && existsSync(join(root, file)))
		.sort();
}

/** The lines of `text` with fenced code blocks blanked (line numbers stay), and whether each is code. */
function withoutCode(text: string): string[] {
	let fence: string | undefined;
	return text.split('\n').map((line) => {
		const marker = /^\s*(```|~~~)/.exec(line)?.[1];
		if (fence === undefined && marker !== undefined) {
			fence = marker;
			return '';
		}
		if (fence !== undefined) {
			if (marker === fence) fence = undefined;
			return '';
		}
		return line;
	});
}

/** What GitHub shows of inline Markdown: link texts, no code ticks, emphasis or HTML tags. */
function rendered(inline: string): string {
	return inline
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/`/g, '')
		.replace(/\*\*|__|\*/g, '');
}

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation gone, spaces as `-`. */
export function githubSlug(heading: string): string {
	return rendered(heading)
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
		.replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' (repeats get -1, -2, …) and its HTML ids and names. */
export function anchors(text: string): Set<string> {
	const found = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of withoutCode(text)) {
		const heading = /^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
		if (heading !== undefined) {
			const slug = githubSlug(heading);
			const count = seen.get(slug) ?? 0;
			seen.set(slug, count + 1);
			found.add(count === 0 ? slug : `${slug}-${count}`);
		}
		for (const match of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) found.add(match[1]);
	}
	return found;
}

export interface Link {
	line: number;
	target: string;
}

/** The link and image targets of a Markdown text, outside code: inline, reference and HTML. */
export function links(text: string): Link[] {
	const found: Link[] = [];
	withoutCode(text).forEach((raw, index) => {
		const line = raw.replace(/`[^`]*`/g, '');
		const patterns = [
			/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
			/^\s*\[[^\]]+\]:\s*<?([^\s>]+)/g,
			/\s(?:href|src)="([^"]+)"/g,
		];
		for (const pattern of patterns) {
			for (const match of line.matchAll(pattern)) found.push({ line: index + 1, target: match[1] });
		}
	});
	return found;
}

/** Reads a file of the tree, or says it is not there. */
export type ReadFile = (path: string) => string | undefined;

/** Reads files under `root`: a folder or a missing path gives `undefined`, a folder's presence `''`. */
export function treeReader(root: string): { read: ReadFile; exists: (path: string) => boolean } {
	return {
		read: (path) => {
			try {
				return readFileSync(join(root, path), 'utf8');
			} catch {
				return undefined;
			}
		},
		exists: (path) => existsSync(join(root, path)),
	};
}

/** Why a link target does not resolve from `file` (a path relative to the tree's root), or nothing. */
export function brokenTarget(
	file: string,
	target: string,
	tree: { read: ReadFile; exists: (path: string) => boolean },
): string | undefined {
	if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
	const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
	const path = decodeURIComponent(rawPath);
	const resolved =
		path === ''
			? file
			: posix.normalize(
					path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(file), path),
				);
	if (resolved.startsWith('..')) return `${target}: outside the repository`;
	if (!tree.exists(resolved === '' ? '.' : resolved))
		return `${target}: no such file (${resolved})`;
	if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) return undefined;
	const text = tree.read(resolved) ?? '';
	if (!anchors(text).has(decodeURIComponent(anchor))) {
		return `${target}: ${resolved} has no heading or anchor #${anchor}`;
	}
	return undefined;
}

/** The broken relative links of the given Markdown files, as `file:line: why`. */
export function brokenLinks(
	files: string[],
	tree: { read: ReadFile; exists: (path: string) => boolean },
): string[] {
	const problems: string[] = [];
	for (const file of files) {
		for (const link of links(tree.read(file) ?? '')) {
			const why = brokenTarget(file, link.target, tree);
			if (why !== undefined) problems.push(`${file}:${link.line}: ${why}`);
		}
	}
	return problems;
}

/**
 * The links to this repository's own pages written as full addresses (the nodes' documentation
 * URLs, package.json's homepage): `<REPO_URL>#anchor` is the README, `/blob/<ref>/<path>` a file.
 */
export function repoUrlTargets(text: string): string[] {
	const escaped = REPO_URL.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
	const pattern = new RegExp(
		`${escaped}(?:/(?:blob|tree)/[^/\\s]+/([^\\s#'"\`)]+))?(?:#([\\w-]+))?`,
		'g',
	);
	return [...text.matchAll(pattern)]
		.filter((match) => match[1] !== undefined || match[2] !== undefined)
		.map((match) => `/${match[1] ?? 'README.md'}${match[2] === undefined ? '' : `#${match[2]}`}`)
		.filter((target) => target !== '/README.md#readme');
}

const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx)\.$/i;

/** The sentences of a paragraph: split after `.`, `!` or `?` and a space, but not after e.g. or i.e. */
export function splitSentences(paragraph: string): string[] {
	const sentences: string[] = [];
	let start = 0;
	for (const match of paragraph.matchAll(/[.!?]["')*_`]*\s+/g)) {
		const end = match.index + match[0].length;
		const candidate = paragraph.slice(start, end).trim();
		if (ABBREVIATIONS.test(candidate.replace(/["')*_`]+$/, ''))) continue;
		sentences.push(candidate);
		start = end;
	}
	const rest = paragraph.slice(start).trim();
	if (rest !== '') sentences.push(rest);
	return sentences;
}

/** The words of a sentence: its tokens that hold a letter or a digit. */
export function wordCount(sentence: string): number {
	return sentence.split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
}

/** The prose of a Markdown text, one paragraph or list item a string: no code, tables, headings. */
export function paragraphs(text: string): string[] {
	const blocks: string[][] = [[]];
	const lines = withoutCode(text.replace(/<!--[\s\S]*?-->/g, ''));
	for (const line of lines) {
		const skipped = /^\s*(\||#{1,6}\s|!\[[^\]]*\]\([^)]*\)\s*$)/.test(line);
		if (line.trim() === '' || skipped) {
			blocks.push([]);
			continue;
		}
		if (/^\s*([-*+]|\d+\.)\s/.test(line)) blocks.push([]);
		blocks[blocks.length - 1].push(line.replace(/^\s*([-*+]|\d+\.|>)\s+/, '').trim());
	}
	return blocks.filter((block) => block.length > 0).map((block) => rendered(block.join(' ')));
}

export interface SentenceMeasure {
	sentences: number;
	average: number;
	max: number;
	longest: string;
	over: (limit: number) => string[];
}

/** How long the sentences of a Markdown text are, in words. */
export function measureSentences(text: string): SentenceMeasure {
	const sentences = paragraphs(text).flatMap(splitSentences);
	const counts = sentences.map(wordCount);
	const total = counts.reduce((sum, count) => sum + count, 0);
	const max = Math.max(0, ...counts);
	return {
		sentences: sentences.length,
		average: sentences.length === 0 ? 0 : total / sentences.length,
		max,
		longest: sentences[counts.indexOf(max)] ?? '',
		over: (limit) =>
			sentences.filter((_, index) => counts[index] > limit).map((s) => `${wordCount(s)}: ${s}`),
	};
}
