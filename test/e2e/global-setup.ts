/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the n8n every e2e test file starts from: provisioned, the pack installed in a user folder,
// the credentials (pointing nowhere until a file's n8n saves its service's into them) and the
// workflows imported, once (each file works on a copy, suite.ts); and one Postgres cluster that
// every service stand-in of the run clones its database in (WEX_PG_URL: a cluster costs about 4 s
// of CPU and 10 s under load; `npm start`'s test keeps its own, its stack's).
import fs from 'node:fs';
import path from 'node:path';

import * as n8n from '../../stack/n8n/lib';
import { CLUSTER_ENV, startCluster, type Cluster } from '../../stack/service/database';
import { adverseWorkflows } from './built-workflows';
import { PLACEHOLDER_ACCESS, REPO, credentialsFor, fileWorkflows, type Prepared } from './suite';

declare global {
	var __wexE2e: { cleanup: Array<() => void>; disarm: () => void; cluster?: Cluster } | undefined;
}

/** Whether the provisioned n8n has the MCP Server Trigger (its LangChain nodes package). */
function mcpSupported(prefix: string): boolean {
	const trigger =
		'node_modules/@n8n/n8n-nodes-langchain/dist/nodes/mcp/McpTrigger/McpTrigger.node.js';
	return [prefix, path.join(prefix, 'node_modules/n8n')].some((dir) =>
		fs.existsSync(path.join(dir, trigger)),
	);
}

export default async function globalSetup(): Promise<void> {
	const cleanup: Array<() => void> = [];
	// A signal that ends jest (its own ran no teardown) still removes the folders made here.
	const disarm = n8n.onInterrupt(() => cleanup.forEach((step) => step()));
	const state = (globalThis.__wexE2e = { cleanup, disarm });
	const started = Date.now();
	// A cold provision may take minutes, or wait for the one .ci/run started in the background.
	const starting = startCluster();
	const [p, pack, cluster] = await Promise.all([
		n8n.provision(),
		n8n.packPackage(REPO),
		starting,
	]).catch(async (error: unknown) => {
		// jest runs no teardown after a failed setup.
		await starting.then((c) => c.stop()).catch(() => undefined);
		throw error;
	});
	state.cleanup.push(pack.dispose);
	// The test files' service processes inherit it (jest's workers start after this).
	Object.assign(state, { cluster });
	process.env[CLUSTER_ENV] = cluster.url;
	const uf = await n8n.makeUserFolder({ tarball: pack.tarball });
	if (!process.env.WEX_KEEP) state.cleanup.push(uf.cleanup);
	const prepared: Prepared = {
		userFolder: uf.userFolder,
		n8nDir: uf.n8nDir,
		n8nVersion: p.n8nVersion,
		mcp: mcpSupported(p.prefix),
	};
	const env = n8n.n8nEnv(uf.userFolder);
	const workflows = fileWorkflows();
	await n8n.importData('credentials', credentialsFor(PLACEHOLDER_ACCESS), { env });
	await n8n.importData('workflow', [...Object.values(workflows), ...adverseWorkflows()], { env });
	// The test files (in this process: one at a time) read it back (suite.ts).
	process.env.WEX_E2E = JSON.stringify(prepared);
	process.stdout.write(
		`\n[e2e] n8n ${p.n8nVersion} on Node ${p.nodeVersion}, the pack installed in ${uf.userFolder}; ${Object.keys(workflows).length} workflows imported (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
	);
}
