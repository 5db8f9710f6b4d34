/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: every temporary folder of a jest run (each worker's N8N_USER_FOLDER, n8n-core's binary data,
// the tests' own mkdtemp folders) goes under one folder that global-teardown.ts removes; and one
// embedded Postgres cluster serves the whole run (each service stand-in clones its own database).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CLUSTER_ENV, startCluster } from '../../stack/service/database';

declare global {
	var __wexCluster: Awaited<ReturnType<typeof startCluster>> | undefined;
}

export default async function globalSetup(): Promise<void> {
	// Before TMPDIR moves: Postgres (as root, a `postgres` user) must reach its folder.
	const cluster = await startCluster();
	globalThis.__wexCluster = cluster;
	process.env[CLUSTER_ENV] = cluster.url;
	const root = mkdtempSync(join(tmpdir(), 'wex-jest-'));
	process.env.WEX_JEST_TMP_ROOT = root;
	process.env.WEX_JEST_TMP_SAVED = process.env.TMPDIR ?? '';
	// Workers start after this and inherit it: os.tmpdir() is this folder in every test.
	process.env.TMPDIR = root;
}
