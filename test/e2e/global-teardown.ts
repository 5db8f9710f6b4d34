/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: stops any n8n CLI run still going and the run's Postgres cluster, and removes the folders
// global-setup.ts made.
import * as n8n from '../../stack/n8n/lib';

export default async function globalTeardown(): Promise<void> {
	const state = globalThis.__wexE2e;
	await n8n.killActiveRuns().catch(() => undefined);
	state?.disarm();
	for (const cleanup of state?.cleanup ?? []) cleanup();
	await state?.cluster?.stop().catch(() => undefined);
	globalThis.__wexE2e = undefined;
}
