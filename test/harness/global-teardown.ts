/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: stops the run's Postgres cluster and removes the folder global-setup.ts made for the run.
import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
	const root = process.env.WEX_JEST_TMP_ROOT;
	if (process.env.WEX_JEST_TMP_SAVED) process.env.TMPDIR = process.env.WEX_JEST_TMP_SAVED;
	else delete process.env.TMPDIR;
	if (root) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
	await globalThis.__wexCluster?.stop();
}
