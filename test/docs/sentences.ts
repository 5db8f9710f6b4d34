/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: prints how long the sentences of each Markdown file are (the numbers the docs test holds
// to): `node --import ./stack/tsx.mjs test/docs/sentences.ts [files…]`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { markdownFiles, measureSentences } from './markdown';

const root = resolve(__dirname, '../..');
const files = process.argv.length > 2 ? process.argv.slice(2) : markdownFiles(root);
for (const file of files) {
	const measure = measureSentences(readFileSync(resolve(root, file), 'utf8'));
	const average = measure.average.toFixed(1);
	console.log(
		`${file}: ${measure.sentences} sentences, average ${average} words, max ${measure.max}`,
	);
}
