'use strict';
/**
 * Bulk beside n8n's own HTTP Request node (issue 24, item 6): 200 creates and 200 gets at 50 ms
 * per answer, by this node (Batching: Automatic) and by the HTTP Request node with the stored
 * credential, in the same n8n; prints both nodes' execution times and requests.
 */
const assert = require('node:assert/strict');

const { itemsParameters } = require('./adverse');

/** @typedef {import('./types').Json} Json */

const N = 200;
const LATENCY_MS = 50;
const CREDENTIALS = {
	websiteExportApi: { id: 'website-export-demo', name: 'Website Export (local emulator)' },
};

/**
 * Manual trigger → one item per element of `items` → `last` (this node or HTTP Request).
 * @param {string} id
 * @param {Json[]} items
 * @param {Json} last
 */
const workflow = (id, items, last) => {
	/** @type {(name: string, type: string, typeVersion: number, parameters: Json, x: number) => Json} */
	const node = (name, type, typeVersion, parameters, x) => ({
		parameters,
		id: `${id}-${name}`,
		name,
		type,
		typeVersion,
		position: [x, 300],
	});
	const split = { fieldToSplitOut: 'items', include: 'noOtherFields', options: {} };
	return {
		id,
		name: id,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
			node('Items', 'n8n-nodes-base.set', 3.4, itemsParameters(id, items), 110),
			node('One Item Each', 'n8n-nodes-base.splitOut', 1, split, 220),
			{
				...node('Bulk', last.type, last.typeVersion, last.parameters, 440),
				credentials: CREDENTIALS,
			},
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'One Item Each', type: 'main', index: 0 }]] },
			'One Item Each': { main: [[{ node: 'Bulk', type: 'main', index: 0 }]] },
		},
		settings: {},
	};
};

const sites = Array.from({ length: N }, (_, i) => ({
	url: `https://bulk-${i}.e2e.example.com/`,
	email: 'bulk@e2e.example.com',
}));

/** @param {string} baseUrl */
const httpRequest = (baseUrl, /** @type {Json} */ parameters) => ({
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		url: `${baseUrl}/rest/v1/jobs`,
		authentication: 'predefinedCredentialType',
		nodeCredentialType: 'websiteExportApi',
		options: {},
		...parameters,
	},
});

const ours = (/** @type {Json} */ parameters) => ({
	type: 'n8n-nodes-website-export.websiteExport',
	typeVersion: 2,
	parameters: { resource: 'job', ...parameters },
});

/**
 * The creates by each node, for the emulator at `baseUrl`.
 * @param {string} baseUrl
 */
const createWorkflows = (baseUrl) => ({
	oursCreate: workflow(
		'wexE2eBulkOursCreate',
		sites,
		ours({ operation: 'create', url: '={{ $json.url }}', email: '={{ $json.email }}' }),
	),
	httpCreate: workflow(
		'wexE2eBulkHttpCreate',
		sites,
		httpRequest(baseUrl, {
			method: 'POST',
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Prefer', value: 'return=representation' }] },
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify({ url: $json.url, email: $json.email }) }}',
		}),
	),
});

/**
 * The gets, by each node, of `ids`.
 * @param {string} baseUrl
 * @param {number[]} ids
 */
const getWorkflows = (baseUrl, ids) => ({
	oursGet: workflow(
		'wexE2eBulkOursGet',
		ids.map((id) => ({ id })),
		ours({
			operation: 'get',
			selectBy: 'id',
			recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		}),
	),
	httpGet: workflow(
		'wexE2eBulkHttpGet',
		ids.map((id) => ({ id })),
		httpRequest(baseUrl, {
			method: 'GET',
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'id', value: '=eq.{{ $json.id }}' }] },
		}),
	),
});

/**
 * @typedef {{
 *   emu: import('./types').Emulator,
 *   importWorkflows: (workflows: Json[]) => Promise<unknown>,
 *   execute: (id: string) => Promise<import('./types').RunResult>,
 * }} BulkSuite
 */

/**
 * One workflow run: its Bulk node's execution time, output items and the REST requests it made.
 * @param {BulkSuite} suite
 * @param {Json} wf
 */
async function timed({ emu, execute }, wf) {
	const since = await emu.lastSeq();
	const r = await execute(wf.id);
	assert.equal(r.ok, true, `${wf.id}: ${r.error && r.error.message}`);
	const [run] = r.run.data.resultData.runData.Bulk;
	const items = run.data.main[0];
	const requests = (await emu.log()).filter((e) => e.seq > since && e.kind === 'rest').length;
	return { ms: run.executionTime, items, requests };
}

/** @param {{ ms: number, requests: number }} x */
const figure = (x) => `${(x.ms / 1000).toFixed(2)} s, ${x.requests} requests`;

/**
 * 200 creates and 200 gets by each node at 50 ms per answer; both times printed.
 * @param {BulkSuite} suite
 * @param {string} baseUrl
 */
async function bulkBesideHttpRequest(suite, baseUrl) {
	const { emu } = suite;
	const before = await emu.settings();
	await emu.patchSettings({ latencyMs: LATENCY_MS });
	try {
		const creates = createWorkflows(baseUrl);
		await suite.importWorkflows(Object.values(creates));
		const oursCreate = await timed(suite, creates.oursCreate);
		const httpCreate = await timed(suite, creates.httpCreate);
		assert.equal(oursCreate.items.length, N, 'our creates');
		assert.equal(httpCreate.items.length, N, 'HTTP Request creates');
		const ids = oursCreate.items.map((/** @type {Json} */ item) => item.json.id);
		const gets = getWorkflows(baseUrl, ids);
		await suite.importWorkflows(Object.values(gets));
		const oursGet = await timed(suite, gets.oursGet);
		const httpGet = await timed(suite, gets.httpGet);
		assert.deepEqual(
			oursGet.items.map((/** @type {Json} */ item) => item.json.id),
			ids,
			'our gets, in order',
		);
		assert.equal(httpGet.items.length, N, 'HTTP Request gets');
		return `${N} creates: this node ${figure(oursCreate)}, HTTP Request ${figure(httpCreate)}; ${N} gets: this node ${figure(oursGet)}, HTTP Request ${figure(httpGet)} (${LATENCY_MS} ms per answer, the nodes' own execution times)`;
	} finally {
		await emu.patchSettings({ latencyMs: before.latencyMs });
	}
}

module.exports = { bulkBesideHttpRequest };
