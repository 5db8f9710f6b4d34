/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * Imported first by every bench process: n8n-core reads N8N_USER_FOLDER when it is first loaded
 * and keeps its binary data under it. Each process gets a throwaway folder, removed at exit.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

if (!process.env.N8N_USER_FOLDER) {
	const folder = mkdtempSync(join(tmpdir(), 'wex-bench-'));
	process.env.N8N_USER_FOLDER = folder;
	process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
}
process.env.N8N_RUNNERS_ENABLED ??= 'false';
// Otherwise n8n-core generates one and says so on stdout.
process.env.N8N_ENCRYPTION_KEY ??= 'website-export-bench';
