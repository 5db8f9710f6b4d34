/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: what the queue-mode tests share: the file's cluster (Postgres, Redis, main + 2 workers) and
// service stand-in, its workflows saved and activated on main, and the reads of the executions the
// workers ran.
import * as n8n from '../../stack/n8n/lib';
import * as queue from '../../stack/n8n/queue';
import * as services from '../../stack/n8n/services';
import { startServiceProcess, type ServiceProcess } from '../../stack/service/launch';
import { chainedWorkflow, type ChainedNode } from '../e2e/built-workflows';
import { REPO, saveActiveWithCredential, credentialsFor, type Json } from '../e2e/suite';

export const WORKERS = 2;
export const CONCURRENCY = 10;
/** The emulated export duration of the queue files' services. */
export const JOB_MS = 3000;
const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

/** Webhook (POST /webhook/<path>) → Website Export nodes, one after another. */
export function webhookWorkflow(
	id: string,
	name: string,
	path: string,
	chained: ChainedNode[],
): Json {
	const webhook = {
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		id: `${id}-webhook`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 300],
		webhookId: `${id}-0000-4000-8000-0000000000ff`.slice(-36),
	};
	return chainedWorkflow(id, name, [webhook], chained);
}
/** Job → Create from the webhook's body, and its Wait for Completion. */
export const CREATE = {
	resource: 'job',
	operation: 'create',
	url: '={{ $json.body.url }}',
	email: '={{ $json.body.email }}',
};
export const WAIT = { waitForCompletion: true, timeout: 120, pollInterval: 1 };

export type Cluster = Awaited<ReturnType<typeof queue.startCluster>> & {
	pg: { query(sql: string): Promise<Array<Record<string, unknown>>> };
};

export function countBy<T>(list: T[], key: (item: T) => string): Record<string, number> {
	const m: Record<string, number> = {};
	for (const x of list) m[key(x)] = (m[key(x)] ?? 0) + 1;
	return m;
}

/** Runs fn over items with at most `limit` in flight. */
export async function pool<T>(
	items: T[],
	limit: number,
	fn: (item: T) => Promise<unknown>,
): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(limit, items.length) }, async () => {
			while (next < items.length) await fn(items[next++]);
		}),
	);
}

/**
 * The file's cluster and service, started before its tests with `workflows` saved and activated
 * on main (each takes the id n8n gives it), stopped after them.
 */
export function useCluster(workflows: Json[]) {
	const q = {
		service: undefined as unknown as ServiceProcess,
		cluster: undefined as unknown as Cluster,
	};
	const cleanup: Array<() => unknown> = [];
	beforeAll(async () => {
		const [, pack] = await Promise.all([n8n.provision(), n8n.packPackage(REPO)]);
		cleanup.push(pack.dispose);
		await services.ensurePackages();
		// Whatever of Postgres and Redis started, also when the cluster did not.
		cleanup.push(() => services.stopAll());
		const uf = await n8n.makeUserFolder({ tarball: pack.tarball });
		if (!process.env.WEX_KEEP) cleanup.push(uf.cleanup);
		q.service = await startServiceProcess({ jobMs: JOB_MS });
		cleanup.push(() => q.service.stop());
		q.cluster = (await queue.startCluster({
			userFolder: uf.userFolder,
			workers: WORKERS,
			concurrency: CONCURRENCY,
		})) as Cluster;
		cleanup.push(() => q.cluster.stop());
		// The credential and the workflows saved on main as the editor saves them.
		const [{ name, type, data }] = credentialsFor(q.service);
		const saved = await saveActiveWithCredential(q.cluster.main, { name, type, data }, workflows);
		saved.forEach((created, index) => (workflows[index].id = created.id));
	}, 15 * 60_000);
	afterAll(async () => {
		await n8n.killActiveRuns().catch(() => undefined);
		for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
	});
	return q;
}

/** Executions of a workflow in the cluster's Postgres (the workers' too). */
export async function dbExecutions(cluster: Cluster, workflowId: string) {
	const rows = await cluster.pg.query(
		`select id, status, mode from execution_entity where "workflowId" = '${workflowId}' order by id`,
	);
	return rows.map((row) => ({
		id: String(row.id),
		status: String(row.status),
		mode: String(row.mode),
	}));
}

/** Waits until the workflow has `count` finished executions (after `skip` older ones). */
export async function waitExecutions(
	cluster: Cluster,
	workflowId: string,
	count: number,
	timeoutMs: number,
	skip = 0,
) {
	let all: Array<{ id: string; status: string }> = [];
	return n8n.waitFor(
		async () => {
			all = (await dbExecutions(cluster, workflowId)).slice(skip);
			return all.filter((e) => DONE.has(e.status)).length >= count && all;
		},
		{
			timeoutMs,
			intervalMs: 500,
			failure: () =>
				new Error(
					`timed out: ${JSON.stringify(countBy(all, (e) => e.status))} executions of ${workflowId}, ${count} wanted`,
				),
		},
	);
}

/**
 * POSTs to a webhook of main; throws unless n8n accepted it. Sent again while main answers 404
 * (a webhook it does not serve yet: for some seconds after activation in queue mode, and a 404
 * starts nothing).
 */
export async function fire(cluster: Cluster, workflow: Json, body: Json): Promise<void> {
	const pathName = workflow.nodes[0].parameters.path;
	let r: Awaited<ReturnType<typeof n8n.httpRequest>> | undefined;
	await n8n.waitFor(
		async () => {
			r = await n8n.httpRequest('POST', `${cluster.main.baseUrl}/webhook/${pathName}`, { body });
			if (r.status === 404) return undefined;
			if (r.status !== 200)
				throw new Error(`POST /webhook/${pathName} → ${r.status} ${r.text.slice(0, 300)}`);
			return true;
		},
		{
			timeoutMs: 30_000,
			intervalMs: 250,
			failure: () =>
				new Error(`POST /webhook/${pathName} → 404 for 30 s: ${r?.text.slice(0, 300)}`),
		},
	);
}
