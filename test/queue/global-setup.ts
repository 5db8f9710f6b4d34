/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: queue mode's test files run side by side on one tarball: the run's (WEX_TARBALL), or one
// packed here (two files building dist/ at once would race); and one Postgres cluster for both
// files' service stand-ins (WEX_PG_URL; n8n's own databases are each cluster's, cluster.ts).
// e2e's global-teardown removes the tarball and stops the cluster.
import * as n8n from '../../stack/n8n/lib';
import { CLUSTER_ENV, startCluster } from '../../stack/service/database';
import { REPO } from '../e2e/suite';

export default async function globalSetup(): Promise<void> {
	const [pack, cluster] = await Promise.all([n8n.packPackage(REPO), startCluster()]);
	process.env.WEX_TARBALL = pack.tarball;
	process.env[CLUSTER_ENV] = cluster.url;
	globalThis.__wexE2e = {
		cleanup: [pack.dispose],
		disarm: n8n.onInterrupt(pack.dispose),
		cluster,
	};
}
