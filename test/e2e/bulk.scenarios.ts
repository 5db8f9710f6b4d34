/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: bulk beside n8n's own HTTP Request node (issue 24): 200 creates and 200 gets at 50 ms per
// answer, by this node (Batching: Automatic) and by the HTTP Request node with the stored
// credential, in the same n8n; prints both nodes' execution times and requests.
import assert from 'node:assert/strict';

import { chainWorkflow, type ChainedNode } from './built-workflows';
import { executeBuilt, report, resetService, service, type Json } from './suite';

// Registered by editor-n8n.test.ts, inside its describe block, on its n8n.
const N = 200;
const LATENCY_MS = 50;

const ours = (parameters: Json): ChainedNode => ({
	name: 'Bulk',
	parameters: { resource: 'job', ...parameters },
});
const httpRequest = (parameters: Json): ChainedNode => ({
	name: 'Bulk',
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		url: `${service.baseUrl}/rest/v1/jobs`,
		authentication: 'predefinedCredentialType',
		nodeCredentialType: 'websiteExportApi',
		options: {},
		...parameters,
	},
});

/** One workflow run: its Bulk node's execution time, output items and the REST requests it made. */
async function timed(workflow: Json) {
	const since = await service.lastSeq();
	const r = await executeBuilt(workflow);
	assert.equal(r.ok, true, `${workflow.id}: ${r.error?.message}`);
	const [run] = r.run!.data.resultData.runData.Bulk;
	const requests = (await service.log()).filter((e) => e.seq > since && e.kind === 'rest').length;
	return { ms: run.executionTime as number, items: run.data.main[0] as Json[], requests };
}

/** Runs both workflows at 50 ms per answer; resolves to their figures. */
async function both(workflows: Json[]) {
	await service.patchSettings({ latencyMs: LATENCY_MS });
	return [await timed(workflows[0]), await timed(workflows[1])];
}

const figure = (x: { ms: number; requests: number }) =>
	`${(x.ms / 1000).toFixed(2)} s, ${x.requests} requests`;

beforeEach(() => resetService());

test(`${N} creates beside n8n's HTTP Request node (job.create)`, async () => {
	const sites = Array.from({ length: N }, (_, i) => ({
		url: `https://bulk-${i}.e2e.example.com/`,
		email: 'bulk@e2e.example.com',
	}));
	const [mine, http] = await both([
		chainWorkflow('wexE2eBulkOursCreate', 'bulk: creates', sites, [
			ours({ operation: 'create', url: '={{ $json.url }}', email: '={{ $json.email }}' }),
		]),
		chainWorkflow('wexE2eBulkHttpCreate', 'bulk: creates by HTTP Request', sites, [
			httpRequest({
				method: 'POST',
				sendHeaders: true,
				headerParameters: { parameters: [{ name: 'Prefer', value: 'return=representation' }] },
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ url: $json.url, email: $json.email }) }}',
			}),
		]),
	]);
	assert.deepEqual(
		mine.items.map((item) => item.json.url),
		sites.map((site) => site.url),
		'our creates, in order',
	);
	assert.equal(http.items.length, N, 'HTTP Request creates');
	const jobs = (await service.rows('jobs')).filter((job) => job.email === 'bulk@e2e.example.com');
	assert.equal(jobs.length, 2 * N, 'jobs in the service');
	report(
		`this node ${figure(mine)}, HTTP Request ${figure(http)} (${LATENCY_MS} ms per answer, the nodes' own execution times)`,
	);
});

test(`${N} gets beside n8n's HTTP Request node (job.get)`, async () => {
	const jobs = await service.insert(
		'jobs',
		Array.from({ length: N }, (_, i) => ({
			url: `https://bulk-get-${i}.e2e.example.com/`,
			email: 'bulk@e2e.example.com',
		})),
	);
	const ids = jobs.map((job) => ({ id: job.id }));
	const [mine, http] = await both([
		chainWorkflow('wexE2eBulkOursGet', 'bulk: gets', ids, [
			ours({
				operation: 'get',
				selectBy: 'id',
				recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			}),
		]),
		chainWorkflow('wexE2eBulkHttpGet', 'bulk: gets by HTTP Request', ids, [
			httpRequest({
				method: 'GET',
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'id', value: '=eq.{{ $json.id }}' }] },
			}),
		]),
	]);
	assert.deepEqual(
		mine.items.map((item) => item.json.id),
		ids.map((x) => x.id),
		'our gets, in order',
	);
	assert.equal(http.items.length, N, 'HTTP Request gets');
	report(`this node ${figure(mine)}, HTTP Request ${figure(http)} (${LATENCY_MS} ms per answer)`);
});
