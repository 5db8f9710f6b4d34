// Tests, inside real n8n, that Batching → Automatic (two items per request) gives what One Request per Item gives (issue 30): updates and deletes with duplicates, a missing record and On Error: Continue, their outputs and the tables after them.
import { chainWorkflow, type ChainedNode } from './built-workflows';
import {
	executeBuilt,
	outputOf,
	report,
	resetService,
	service,
	type Item,
	type Json,
} from './suite';

// Registered by editor-n8n.test.ts, inside its describe block, on its n8n.
const CREATED_AT = '2026-01-02T03:04:05.123456+00:00';
/** Records A, B, C with fixed ids and dates: both runs see the same rows. */
const RECORDS = ['a', 'b', 'c'].map((label, i) => ({
	id: 7001 + i,
	url: `https://grouped-${label}.e2e.example.com/`,
	email: 'start@e2e.example.com',
	created_at: CREATED_AT,
}));
const [A, B] = RECORDS;
const MISSING = 424242;
/** Record A changed three times (x, y, x), a record that does not exist, then B. */
const ITEMS = [
	{ id: A.id, email: 'x@e2e.example.com' },
	{ id: A.id, email: 'y@e2e.example.com' },
	{ id: MISSING, email: 'x@e2e.example.com' },
	{ id: A.id, email: 'x@e2e.example.com' },
	{ id: B.id, email: 'y@e2e.example.com' },
];

const byId = { __rl: true, mode: 'id', value: '={{ $json.id }}' };
/** Update, then Delete of each item's record (its output item), both with On Error: Continue. */
const nodes = (options: Json): ChainedNode[] => [
	{
		name: 'Update',
		parameters: {
			resource: 'job',
			operation: 'update',
			selectBy: 'id',
			recordId: byId,
			updateFields: { email: '={{ $json.email }}' },
			options,
		},
	},
	{
		name: 'Delete',
		parameters: { resource: 'job', operation: 'delete', selectBy: 'id', recordId: byId, options },
	},
];

/** The workflow for one Batching setting, its Website Export nodes continuing on failure. */
function workflow(id: string, name: string, options: Json): Json {
	const built = chainWorkflow(id, name, ITEMS, nodes(options));
	const ours = new Set(['Update', 'Delete']);
	built.nodes = built.nodes.map((node: Json) =>
		ours.has(node.name) ? { ...node, onError: 'continueRegularOutput' } : node,
	);
	return built;
}

const WORKFLOWS = {
	perItem: workflow('wexE2eGroupedPerItem', 'grouped: one request per item', {
		batching: 'perItem',
	}),
	automatic: workflow('wexE2eGroupedAutomatic', 'grouped: automatic, 2 items per request', {
		batching: 'automatic',
		itemsPerRequest: 2,
	}),
};

/** One setting's run on a reset service holding A, B and C: both nodes' items and the jobs left. */
async function runOn(wf: Json) {
	await resetService();
	await service.insert('jobs', RECORDS);
	const since = await service.lastSeq();
	const r = await executeBuilt(wf);
	expect({ workflow: wf.id, ok: r.ok, error: r.error?.message }).toEqual({
		workflow: wf.id,
		ok: true,
	});
	const rest = (await service.log()).filter((e) => e.seq > since && e.kind === 'rest');
	const jobs = (await service.rows('jobs')).filter((job) => String(job.url).includes('grouped-'));
	return { update: outputOf(r, 'Update'), remove: outputOf(r, 'Delete'), jobs, rest };
}

const outcome = (items: Item[]): Json[] =>
	items.map(({ json, pairedItem }) => ({
		pairedItem,
		...(json.error ? { error: json.error } : { id: json.id, email: json.email }),
		...(json.deleted ? { deleted: true } : {}),
	}));
const paired = (n: number) => ({ pairedItem: { item: n } });
const jsonAndPairs = (items: Item[]) => items.map(({ json, pairedItem }) => ({ json, pairedItem }));
/** What each item became, for the report line. */
const summary = (items: Item[]) =>
	items
		.map((item) => (item.json.error ? 'error' : item.json.deleted ? 'deleted' : 'ok'))
		.join(', ');

const X = 'x@e2e.example.com';
const Y = 'y@e2e.example.com';
/** One by one: each update stores its own email (A ends with the last); A deleted by the first item naming it. */
const ONE_BY_ONE = {
	update: [
		{ ...paired(0), id: A.id, email: X },
		{ ...paired(1), id: A.id, email: Y },
		{ ...paired(2), error: `No job with ID ${MISSING} was found` },
		{ ...paired(3), id: A.id, email: X },
		{ ...paired(4), id: B.id, email: Y },
	],
	remove: [
		{ ...paired(0), id: A.id, email: X, deleted: true },
		{ ...paired(1), error: `No job with ID ${A.id} was found` },
		// Its input is Update's error item, without an id: refused before any request.
		{ ...paired(2), error: expect.stringMatching(/Job ID/) },
		{ ...paired(3), error: `No job with ID ${A.id} was found` },
		{ ...paired(4), id: B.id, email: Y, deleted: true },
	],
	jobsLeft: [RECORDS[2].id],
};

test('Automatic, 2 items per request, gives the outputs and tables of One Request per Item (job.update, job.delete)', async () => {
	const perItem = await runOn(WORKFLOWS.perItem);
	const automatic = await runOn(WORKFLOWS.automatic);
	const seen = (run: typeof perItem) => ({
		update: outcome(run.update),
		remove: outcome(run.remove),
		jobsLeft: run.jobs.map((job) => job.id),
	});
	expect({ perItem: seen(perItem), automatic: seen(automatic) }).toEqual({
		perItem: ONE_BY_ONE,
		automatic: ONE_BY_ONE,
	});
	// Every field of every item, and the rows left, the same both ways.
	const all = (run: typeof perItem) => ({
		update: jsonAndPairs(run.update),
		remove: jsonAndPairs(run.remove),
		jobs: run.jobs,
	});
	expect(all(automatic)).toEqual(all(perItem));
	report(
		`both ways: Update ${summary(perItem.update)}, Delete ${summary(perItem.remove)}; REST requests: one per item ${perItem.rest.length}, automatic ${automatic.rest.length}`,
	);
});
