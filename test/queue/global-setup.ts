/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: queue mode runs on one tarball: the run's (WEX_TARBALL), or one packed here, before jest's
// workers start; e2e's global-teardown removes it.
import * as n8n from '../../stack/n8n/lib';
import { REPO } from '../e2e/suite';

export default async function globalSetup(): Promise<void> {
	const pack = await n8n.packPackage(REPO);
	process.env.WEX_TARBALL = pack.tarball;
	globalThis.__wexE2e = { cleanup: [pack.dispose], disarm: n8n.onInterrupt(pack.dispose) };
}
