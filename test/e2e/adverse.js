'use strict';
/**
 * The e2e cases of a world that is not ideal (issue 9, items 1–5), inside real n8n: a bad item
 * sends nothing, a refused write stops the writes after it, lost answers, exact Return All while
 * jobs are created, any created_at format under a non-UTC host, and validity by the service's
 * clock. They change the emulator's settings, faults and clock, so the suite runs them last.
 */
const assert = require('node:assert/strict');

/** @typedef {import('./types').Json} Json */
/** @typedef {{ name: string, parameters: Json }} ExtraNode */

const HOUR = 3_600_000;
const CREDENTIALS = {
	websiteExportApi: { id: 'website-export-demo', name: 'Website Export (local emulator)' },
};

/**
 * The Set node's parameters that output one item with the field `items`.
 * @param {string} id
 * @param {Json[]} items
 */
const itemsParameters = (id, items) => ({
	mode: 'manual',
	assignments: {
		assignments: [
			{ id: `${id}-items`, name: 'items', value: `={{ ${JSON.stringify(items)} }}`, type: 'array' },
		],
	},
	includeOtherFields: false,
	options: {},
});

/**
 * Manual trigger → one item per element of `items` → the Website Export node with `parameters`.
 * @param {string} id
 * @param {string} name
 * @param {Json[]} items
 * @param {Json} parameters
 * @param {ExtraNode[]} [extraNodes] more Website Export nodes after the first, in a chain
 */
function workflow(id, name, items, parameters, extraNodes = []) {
	/** @type {(n: string, type: string, typeVersion: number, params: Json, x: number) => Json} */
	const node = (n, type, typeVersion, params, x) => ({
		parameters: params,
		id: `${id}-${n}`,
		name: n,
		type,
		typeVersion,
		position: [x, 300],
	});
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
		node('Items', 'n8n-nodes-base.set', 3.4, itemsParameters(id, items), 110),
		node(
			'One Item Each',
			'n8n-nodes-base.splitOut',
			1,
			{ fieldToSplitOut: 'items', include: 'noOtherFields', options: {} },
			220,
		),
		{
			...node('Website Export', 'n8n-nodes-website-export.websiteExport', 2, parameters, 440),
			credentials: CREDENTIALS,
		},
		...extraNodes.map((extra, index) => ({
			...node(
				extra.name,
				'n8n-nodes-website-export.websiteExport',
				2,
				extra.parameters,
				660 + 220 * index,
			),
			credentials: CREDENTIALS,
		})),
	];
	const chain = [
		'Start',
		'Items',
		'One Item Each',
		'Website Export',
		...extraNodes.map((extra) => extra.name),
	];
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((from, i) => [from, { main: [[{ node: chain[i + 1], type: 'main', index: 0 }]] }]),
	);
	return {
		id,
		name: `e2e: ${name}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

/**
 * `n` items of distinct sites; the one at `badAt` has an invalid email.
 * @param {string} prefix
 * @param {number} n
 * @param {number} [badAt]
 */
const sites = (prefix, n, badAt = -1) =>
	Array.from({ length: n }, (_, i) => ({
		url: `https://${prefix}-${i}.e2e.example.com/`,
		email: i === badAt ? 'not-an-email' : 'adverse@e2e.example.com',
	}));
const createJobs = {
	resource: 'job',
	operation: 'create',
	url: '={{ $json.url }}',
	email: '={{ $json.email }}',
};

const WORKFLOWS = {
	validate: workflow(
		'wexE2eAdvValidate',
		'a bad 3rd item sends nothing',
		sites('adv-validate', 10, 2),
		createJobs,
	),
	refused: workflow(
		'wexE2eAdvRefused',
		'the service refuses the 3rd create',
		sites('adv-refused', 10),
		createJobs,
	),
	lost: workflow(
		'wexE2eAdvLost',
		'answers lost after the commit',
		sites('adv-lost', 1),
		createJobs,
		[
			{
				name: 'Delete Job',
				parameters: {
					resource: 'job',
					operation: 'delete',
					selectBy: 'id',
					recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				},
			},
		],
	),
	keyset: workflow('wexE2eAdvKeyset', 'Return All while jobs are created', [{ run: 1 }], {
		resource: 'job',
		operation: 'getAll',
		returnAll: true,
		filters: { email: 'keyset@e2e.example.com' },
		sort: 'newest',
	}),
	timestamps: workflow(
		'wexE2eAdvTimestamps',
		'downloads in other created_at formats',
		[{ run: 1 }],
		{
			resource: 'download',
			operation: 'getAll',
			returnAll: true,
			onlyValidLinks: false,
			filters: {},
		},
	),
};

const workflows = () => Object.values(WORKFLOWS);

/** @typedef {import('./types').RunResult} RunResult */
/**
 * What the cases are given: `execute(id, env?)` runs a workflow with `n8n execute` and returns its
 * result; `check(name, fn)` prints one line; `outputOf(r, node)` is the node's output items.
 * @typedef {{
 *   emu: import('./types').Emulator,
 *   execute: (id: string, env?: import('./types').Env) => Promise<RunResult>,
 *   check: import('./types').Check,
 *   outputOf: (r: RunResult, nodeName: string) => import('./types').Item[],
 *   listValid: () => Promise<RunResult>,
 * }} AdverseSuite
 */

/**
 * The jobs whose URL contains `prefix`.
 * @param {import('./types').Emulator} emu
 * @param {string} prefix
 */
const jobsLike = async (emu, prefix) =>
	(await emu.rows('jobs')).filter((job) => String(job.url).includes(prefix));

/**
 * How many job creates (POST) the service received after the request `since`.
 * @param {import('./types').Emulator} emu
 * @param {number} since
 */
const posts = async (emu, since) =>
	(await emu.log()).filter((e) => e.seq > since && e.method === 'POST' && e.table === 'jobs')
		.length;

/** @param {AdverseSuite} suite */
async function aBadItemSendsNothing({ emu, execute }) {
	const since = await emu.lastSeq();
	const r = await execute(WORKFLOWS.validate.id);
	assert.equal(r.ok, false, 'the run must fail');
	assert.match(String(r.error && r.error.message), /Email must be an email address/);
	assert.equal(await posts(emu, since), 0, 'POST requests');
	assert.equal((await jobsLike(emu, 'adv-validate')).length, 0, 'jobs created');
	return `run failed with "${r.error?.message}"; 0 POST requests, 0 jobs`;
}

/** @param {AdverseSuite} suite */
async function aRefusedWriteStopsTheWrites({ emu, execute }) {
	const since = await emu.lastSeq();
	const POST_JOBS = { method: 'POST', path: '/rest/v1/jobs' };
	const refusal = {
		status: 400,
		body: {
			code: '23514',
			details: null,
			hint: null,
			message: 'new row for relation "jobs" violates check constraint',
		},
	};
	// The one POST of the 10 rows is refused (nothing written), then, sent one by one, the 3rd.
	await emu.fault({ match: POST_JOBS, ...refusal });
	await emu.fault({ match: POST_JOBS, times: 2 });
	await emu.fault({ match: POST_JOBS, ...refusal });
	const r = await execute(WORKFLOWS.refused.id);
	await emu.clearFaults();
	assert.equal(r.ok, false, 'the run must fail');
	const created = (await jobsLike(emu, 'adv-refused')).map((job) => job.url);
	assert.deepEqual(
		created,
		['https://adv-refused-0.e2e.example.com/', 'https://adv-refused-1.e2e.example.com/'],
		'jobs created',
	);
	assert.equal(await posts(emu, since), 4, 'POST requests');
	assert.ok(r.error, 'the run reports its error');
	return `run failed at item 3 ("${r.error.message}"); 4 POST requests (the refused chunk of 10, then one by one up to the 3rd), jobs of items 1 and 2 only`;
}

/** @param {AdverseSuite} suite */
async function lostAnswersAreRecovered({ emu, execute, outputOf }) {
	await emu.fault({
		match: { method: 'POST', path: '/rest/v1/jobs' },
		reset: true,
		applyAfterHandling: true,
	});
	await emu.fault({
		match: { method: 'DELETE', path: '/rest/v1/jobs' },
		status: 503,
		applyAfterHandling: true,
	});
	const r = await execute(WORKFLOWS.lost.id);
	await emu.clearFaults();
	assert.equal(r.ok, true, `the run must succeed: ${r.error && r.error.message}`);
	const [created] = outputOf(r, 'Website Export').map((item) => item.json);
	const [deleted] = outputOf(r, 'Delete Job').map((item) => item.json);
	assert.equal(created.recovered, true, 'the created job is marked recovered');
	assert.equal(deleted.deleted, true, 'the delete reports success');
	assert.equal(deleted.id, created.id, 'the same job');
	assert.equal(
		(await jobsLike(emu, 'adv-lost')).length,
		0,
		'the job is gone, and was never created twice',
	);
	return `create: job #${created.id} recovered after a reset connection; delete after a 503: { deleted: true, id: ${deleted.id} }`;
}

/** @param {AdverseSuite} suite */
async function returnAllStaysExact({ emu, execute, outputOf }) {
	const seeded = await emu.insert(
		'jobs',
		Array.from({ length: 70 }, (_, i) => ({
			url: `https://keyset-${i}.e2e.example.com/`,
			email: 'keyset@e2e.example.com',
		})),
	);
	const before = await emu.settings();
	await emu.patchSettings({ maxRows: 7, latencyMs: 150 });
	let creating = true;
	let extra = 0;
	const creator = (async () => {
		while (creating) {
			await emu.insert('jobs', [
				{
					url: `https://keyset-new-${extra++}.e2e.example.com/`,
					email: 'keyset@e2e.example.com',
				},
			]);
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	})();
	const since = await emu.lastSeq();
	let r;
	try {
		r = await execute(WORKFLOWS.keyset.id);
	} finally {
		creating = false;
		await creator;
		await emu.patchSettings({ maxRows: before.maxRows, latencyMs: before.latencyMs });
	}
	assert.equal(r.ok, true, `run: ${r.error && r.error.message}`);
	const ids = outputOf(r, 'Website Export').map((item) => item.json.id);
	assert.equal(new Set(ids).size, ids.length, 'no job twice');
	const missing = seeded.filter((job) => !ids.includes(job.id));
	assert.deepEqual(missing, [], 'every seeded job returned');
	const pages = (await emu.log()).filter(
		(e) => e.seq > since && e.method === 'GET' && e.table === 'jobs',
	).length;
	assert.equal(pages, Math.ceil(ids.length / 7), 'one request per 7-row page');
	return `${ids.length} jobs, none twice, all 70 seeded ones; ${extra} jobs created during the run; ${pages} GET requests = ⌈${ids.length} / 7⌉`;
}

/** @param {AdverseSuite} suite */
async function everyCreatedAtFormat({ emu, execute, outputOf }) {
	const made = [];
	for (const format of /** @type {const} */ (['short-offset', 'no-offset', 'epoch-ms'])) {
		await emu.patchSettings({ downloadTimestamps: format });
		const [job] = await emu.insert('jobs', [
			{ url: `https://ts-${format}.e2e.example.com/`, email: 'ts@e2e.example.com' },
		]);
		await emu.advanceClock(5_000); // the job finishes: its download row is written in `format`
		made.push({ format, job });
	}
	await emu.patchSettings({ downloadTimestamps: 'timestamptz' });
	await emu.advanceClock(23.5 * HOUR);
	const r = await execute(WORKFLOWS.timestamps.id, { TZ: 'Pacific/Chatham' });
	assert.equal(r.ok, true, `run: ${r.error && r.error.message}`);
	const items = outputOf(r, 'Website Export').map((item) => item.json);
	const lines = [];
	for (const { format, job } of made) {
		const d = items.find((item) => item.job_id === job.id);
		assert.ok(d, `the download of the ${format} job is listed`);
		assert.equal(d.is_expired, false, `${format}: a 23.5-hour-old link is valid`);
		const created =
			typeof d.created_at === 'number'
				? d.created_at
				: Date.parse(
						/[Z+-]\d*:?\d*$/.test(d.created_at.slice(19))
							? d.created_at.replace(/\+00$/, '+00:00')
							: `${d.created_at}Z`,
					);
		assert.equal(
			Date.parse(d.expires_at),
			Math.floor(created) + 24 * HOUR,
			`${format}: expires_at = created_at + 24 h`,
		);
		lines.push(`${format} ${JSON.stringify(d.created_at)} → expires_at ${d.expires_at}`);
	}
	return lines.join('; ');
}

/** @param {AdverseSuite} suite */
async function validLinksByTheServiceClock({ emu, outputOf, listValid }) {
	await emu.advanceClock(1.5 * HOUR);
	const r = await listValid();
	assert.equal(r.ok, true, `run: ${r.error && r.error.message}`);
	const listed = outputOf(r, 'Get Valid Download Links').map((item) => item.json);
	assert.ok(
		listed.every((d) => d.is_expired === false),
		'no expired link listed',
	);
	return `${listed.length} links listed, none expired; the archive step had nothing expired to fetch`;
}

/** @type {Array<[string, (suite: AdverseSuite) => Promise<string>]>} */
const CASES = [
	['a bad 3rd item of 10 sends nothing at all (job.create)', aBadItemSendsNothing],
	[
		'the service refuses the 3rd of 10 creates: nothing after it is sent (job.create)',
		aRefusedWriteStopsTheWrites,
	],
	[
		'a create and a delete whose answers were lost after the commit (job.create, job.delete)',
		lostAnswersAreRecovered,
	],
	[
		'Return All stays exact while jobs are created between pages (job.getAll, keyset paging)',
		returnAllStaysExact,
	],
	[
		'created_at with "+00" and without offset, n8n host in Pacific/Chatham (download.getAll)',
		everyCreatedAtFormat,
	],
	[
		'valid links judged by the service clock after it moved 25 h ahead (download-list-valid)',
		validLinksByTheServiceClock,
	],
];

/**
 * Runs the cases one after another, each as one check.
 * @param {AdverseSuite} suite
 */
async function runAdverse(suite) {
	for (const [name, runCase] of CASES) await suite.check(name, () => runCase(suite));
}

module.exports = { workflows, runAdverse, itemsParameters };
