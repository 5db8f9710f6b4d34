// Why: issue 30's differential property test: generated workloads run with Batching → One Request per Item and with Automatic on two identical services (real PostgREST and Postgres) must give the user exactly the same run status, output items and tables.
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	expectSameOutcome,
	REFUSED_MARKER,
	runBothWays,
	seededId,
	startPair,
	type Pair,
	type Seed,
	type Workload,
} from './differential';

/** Values with PostgREST's reserved characters (`,().:"\` and spaces), some shared by several rows. */
const URLS = [
	'https://a.example.com',
	'https://a.example.com/x,y',
	'https://b.example.com/(p).q:r',
	'https://c.example.com/"quoted"',
	'https://d.example.com/back\\slash',
	'https://e.example.com/with space',
	'https://f.example.com/a?b=c&d=(e,f)',
	' https://g.example.com ',
];
const EMAILS = [
	'a@example.com',
	'b@example.com',
	'c,d@example.com',
	'e (f)@example.com',
	'"g.h"@x.com',
];
const LINKS = [
	'https://cdn.example.com/a.zip',
	'https://cdn.example.com/b,c.zip',
	'https://cdn.example.com/(d).zip',
	'https://cdn.example.com/e f.zip',
];
/** Values no URL can carry: half an emoji (a lone surrogate). */
const UNSENDABLE = ['\ud83d', 'x\udc00y', 'https://h.example.com/\ud83d'];
const REFUSED_URL = `https://${REFUSED_MARKER}.example.com/`;
const MISSING_IDS = ['42', '999999999'];

type Resource = 'job' | 'option' | 'download';
type Operation = 'get' | 'update' | 'delete' | 'create';
type SelectBy = 'id' | 'url' | 'field';

const TABLE = { job: 'jobs', option: 'options', download: 'downloads' } as const;
const FIELDS: Record<Resource, string[]> = {
	job: ['url', 'email'],
	option: ['job_id'],
	download: ['job_id', 'download_link'],
};

/** How an item picks its Select By value: a seeded row's, another one, one of the wrong type, or an unsendable one. */
type Pick = { kind: 'seeded' | 'other' | 'badType' | 'unsendable'; index: number };

const pickArb: fc.Arbitrary<Pick> = fc.oneof(
	{ weight: 10, arbitrary: fc.record({ kind: fc.constant('seeded' as const), index: fc.nat(20) }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('other' as const), index: fc.nat(20) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('badType' as const), index: fc.nat(20) }) },
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant('unsendable' as const), index: fc.nat(20) }),
	},
);

const at = <T>(values: readonly T[], index: number): T => values[index % values.length];

/** A seeded row's value of `column` (undefined when the seed has no such row). */
function seededValue(seed: Seed, resource: Resource, column: string, index: number) {
	const rows = seed[TABLE[resource]] as IDataObject[];
	if (rows.length === 0) return undefined;
	const place = index % rows.length;
	const row = rows[place];
	if (column === 'id') return String(seededId(TABLE[resource], place));
	if (column === 'job_id')
		return row.job === null ? undefined : String(seededId('jobs', row.job as number));
	return String(column === 'download_link' ? row.link : row[column]);
}

/** The Select By value an item gives for `column`. */
function selectValue(seed: Seed, resource: Resource, column: string, pick: Pick): string {
	const numeric = column === 'id' || column === 'job_id';
	if (pick.kind === 'seeded') {
		const value = seededValue(seed, resource, column, pick.index);
		if (value !== undefined) return value;
	}
	if (pick.kind === 'unsendable') return at(UNSENDABLE, pick.index);
	if (pick.kind === 'badType')
		return numeric ? at(['12.5', 'abc', ' 7 ', '1e3'], pick.index) : at(URLS, pick.index + 3);
	if (numeric) return at(MISSING_IDS, pick.index);
	const pools: Record<string, string[]> = { url: URLS, email: EMAILS, download_link: LINKS };
	return `${at(pools[column], pick.index)}${pick.index % 2 ? '' : ' '}`;
}

/** The Select By parameters of a workload: by ID, by URL (jobs) or by a field each item names. */
function selectParameters(selectBy: SelectBy): INodeParameters {
	if (selectBy === 'field')
		return {
			selectBy: 'field',
			selectField: '={{ $json.field }}',
			selectValue: '={{ $json.value }}',
		};
	const mode = selectBy === 'url' ? 'url' : 'id';
	return { selectBy: 'id', recordId: { __rl: true, mode, value: '={{ $json.value }}' } };
}

const jobIdLocator = (expression: string) => ({ __rl: true, mode: 'id', value: expression });

/** Update Fields of each resource, every field an item may leave empty (not changed). */
const UPDATE_FIELDS: Record<Resource, INodeParameters> = {
	job: { email: '={{ $json.email }}', url: '={{ $json.url }}', status: '={{ $json.status }}' },
	option: {
		mode: '={{ $json.mode }}',
		relativePath: '={{ $json.path }}',
		replaceUrl: '={{ $json.replace }}',
		jobId: jobIdLocator('={{ $json.jobId }}'),
	},
	download: {},
};

const CREATE_PARAMETERS: Record<'job' | 'option', INodeParameters> = {
	job: {
		url: '={{ $json.url }}',
		email: '={{ $json.email }}',
		optionMode: '={{ $json.mode }}',
		optionRelativePath: '={{ $json.path }}',
		optionReplaceUrl: '={{ $json.replace }}',
	},
	option: {
		mode: '={{ $json.mode }}',
		relativePath: '={{ $json.path }}',
		replaceUrl: '={{ $json.replace }}',
		additionalFields: { jobId: jobIdLocator('={{ $json.jobId }}') },
	},
};

/** What an item carries besides its selection: indexes into the pools of patches and creates. */
const extraArb = fc.record({
	email: fc.nat(9),
	url: fc.nat(9),
	status: fc.nat(5),
	mode: fc.nat(6),
	path: fc.nat(5),
	replace: fc.nat(3),
	jobId: fc.nat(12),
});
type Extra = typeof extraArb extends fc.Arbitrary<infer T> ? T : never;

/** A Job ID an item names: none, a seeded job, or one that does not exist (a foreign key refuses it). */
function jobIdValue(seed: Seed, index: number): string {
	if (index % 4 === 0) return '';
	if (index % 6 === 1) return '999999999';
	return String(seededId('jobs', index % seed.jobs.length));
}

const PATH_POOL = ['/p', '/x,(y)', `/${REFUSED_MARKER}`, '/', ''];
const REPLACE_POOL = ['https://m.example.com', REFUSED_URL, ''];
const MODE_POOL = ['offline', 'relative', 'absolute'];

/** An item's fields for the operation (patch or new record); '' leaves an Update Field unchanged. */
function extraFields(seed: Seed, resource: Resource, operation: Operation, extra: Extra) {
	const blank = (index: number, values: string[]) =>
		index % 2 === 0 ? '' : at(values, index >> 1);
	const jobId = jobIdValue(seed, extra.jobId);
	if (operation === 'get' || operation === 'delete') return {};
	if (operation === 'update' && resource === 'job') {
		const emails = ['a@example.com', 'b@example.com', 'new@example.com', 'not-an-email'];
		const urls = ['https://a.example.com/x,y', 'https://new.example.com/(n)', REFUSED_URL];
		const statuses = ['finished', 'queued', 'failed'];
		return {
			email: blank(extra.email, emails),
			url: blank(extra.url, urls),
			status: blank(extra.status, statuses),
		};
	}
	if (operation === 'update')
		return {
			mode: blank(extra.mode, MODE_POOL),
			path: at(PATH_POOL, extra.path),
			replace: at(REPLACE_POOL, extra.replace),
			jobId,
		};
	const mode = at(resource === 'job' ? ['none', 'none', ...MODE_POOL] : MODE_POOL, extra.mode);
	const created = {
		mode,
		path: at(PATH_POOL, extra.path),
		replace: at(REPLACE_POOL, extra.replace),
	};
	if (resource === 'option') return { ...created, jobId };
	const urls = [...URLS.slice(0, 7), 'https://new.example.com', REFUSED_URL, 'not a url'];
	const emails = ['a@example.com', 'new@example.com', 'b@example.com', 'bad'];
	return { ...created, url: at(urls, extra.url), email: at(emails, extra.email) };
}

/** The seed's rows: a few jobs, options and downloads sharing URLs, emails, jobs and links. */
const seedArb: fc.Arbitrary<Seed> = fc
	.record({
		jobs: fc.array(
			fc.record({
				url: fc.constantFrom(...URLS),
				email: fc.constantFrom(...EMAILS),
				status: fc.constantFrom('queued', 'queued', 'running', 'finished', 'failed'),
			}),
			{ minLength: 1, maxLength: 8 },
		),
		options: fc.array(
			fc.record({
				job: fc.option(fc.nat(7), { nil: null }),
				variant: fc.nat(3),
			}),
			{ maxLength: 6 },
		),
		downloads: fc.array(
			fc.record({
				job: fc.option(fc.nat(7), { nil: null }),
				link: fc.constantFrom(...LINKS),
				hoursOld: fc.constantFrom(1, 1, 30),
			}),
			{ maxLength: 5 },
		),
	})
	.map(({ jobs, options, downloads }) => {
		const job = (index: number | null) => (index === null ? null : index % jobs.length);
		const modes = [
			{ mode: 'offline' },
			{ mode: 'relative', relative_path: '/a' },
			{ mode: 'relative', relative_path: '/b,(c)' },
			{ mode: 'absolute', replace_url: 'https://m.example.com' },
		];
		return {
			jobs,
			options: options.map((row) => ({ job: job(row.job), ...at(modes, row.variant) })),
			downloads: downloads.map((row) => ({ ...row, job: job(row.job) })),
		};
	});

/** How a run goes: Continue On Fail, Requests in Flight, items per request, and the service's faults. */
const runArb = fc.record({
	continueOnFail: fc.boolean(),
	requestsInFlight: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
	itemsPerRequest: fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined, freq: 6 }),
	ignorePrefer: fc.nat(3).map((n) => n === 0),
	lostAnswer: fc.nat(4).map((n) => n === 0),
});

const OPERATIONS: Array<[Resource, Operation]> = [
	['job', 'get'],
	['job', 'update'],
	['job', 'delete'],
	['job', 'create'],
	['option', 'get'],
	['option', 'update'],
	['option', 'delete'],
	['option', 'create'],
	['download', 'get'],
];

const WRITE_METHOD = { create: 'POST', update: 'PATCH', delete: 'DELETE' } as const;

/** A small workload: a few items (often more than a chunk holds), all over the seed. */
const smallWorkloadArb: fc.Arbitrary<Workload> = fc
	.record({
		operation: fc.constantFrom(...OPERATIONS),
		selectBy: fc.constantFrom<SelectBy>('id', 'url', 'field', 'field'),
		seed: seedArb,
		items: fc.array(fc.record({ field: fc.nat(1), pick: pickArb, extra: extraArb }), {
			minLength: 1,
			maxLength: 40,
		}),
		run: runArb,
	})
	.map(({ operation: [resource, operation], selectBy, seed, items, run }) => {
		const by: SelectBy = selectBy === 'url' && resource !== 'job' ? 'id' : selectBy;
		const json = items.map(({ field, pick, extra }): IDataObject => {
			const fields = extraFields(seed, resource, operation, extra);
			if (operation === 'create') return fields;
			const column = by === 'field' ? at(FIELDS[resource], field) : by === 'url' ? 'url' : 'id';
			const value = selectValue(seed, resource, column, pick);
			return { ...(by === 'field' ? { field: column } : {}), value, ...fields };
		});
		return workload(resource, operation, by, seed, json, run);
	});

type Run = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

/** The workload of these items: the node's parameters for the operation, the run's settings and faults. */
function workload(
	resource: Resource,
	operation: Operation,
	selectBy: SelectBy,
	seed: Seed,
	items: IDataObject[],
	run: Run,
): Workload {
	const options: INodeParameters = {};
	const method = operation === 'get' ? undefined : WRITE_METHOD[operation];
	// Creates whose rows are looked up (an answer without rows, or lost) race each other when
	// several are in flight: two identical bodies, and one lookup finds the other's row too, or
	// not yet. That is nondeterministic one by one as grouped, so such a run sends one at a time.
	const lookups = run.ignorePrefer || run.lostAnswer;
	if (operation === 'create' && lookups && run.continueOnFail) options.requestsInFlight = 1;
	else if (run.requestsInFlight !== undefined) options.requestsInFlight = run.requestsInFlight;
	if (run.itemsPerRequest !== undefined) options.itemsPerRequest = run.itemsPerRequest;
	const own =
		operation === 'create'
			? CREATE_PARAMETERS[resource as 'job' | 'option']
			: {
					...selectParameters(selectBy),
					...(operation === 'update' ? { updateFields: UPDATE_FIELDS[resource] } : {}),
				};
	return {
		seed,
		parameters: { resource, operation, ...own, options },
		items,
		continueOnFail: run.continueOnFail,
		ignorePrefer: run.ignorePrefer,
		lostAnswer: run.lostAnswer ? method : undefined,
	};
}

/** Large workloads (hundreds to 2 000 items, the default items per request) over as many jobs. */
const LARGE_KINDS = [
	'job get',
	'job get by URL',
	'job update',
	'job delete',
	'job create',
	'option get',
	'option create',
] as const;

const largePlanArb = fc.record({
	// Deletes and updates twice as often: their read-backs and duplicates are where chunks go wrong.
	kind: fc.constantFrom(...LARGE_KINDS, 'job delete', 'job update'),
	count: fc.integer({ min: 300, max: 2000 }),
	stride: fc.constantFrom(1, 3, 7),
	missingEvery: fc.constantFrom(0, 0, 97, 400),
	duplicateEvery: fc.constantFrom(0, 53, 1100),
	patches: fc.integer({ min: 1, max: 2 }),
	run: fc
		.tuple(runArb, fc.boolean())
		.map(([run, ignorePrefer]) => ({ ...run, ignorePrefer, itemsPerRequest: undefined })),
});
type LargePlan = typeof largePlanArb extends fc.Arbitrary<infer T> ? T : never;

const siteUrl = (index: number) => `https://site-${index}.example.com/a,b`;

/**
 * The item of each place: the `stride`-th next record, every `missingEvery`-th one missing, every
 * `duplicateEvery`-th one an early item's again (in the first chunk, the later one beyond it).
 */
function largeIndexes({ count, stride, missingEvery, duplicateEvery }: LargePlan) {
	return Array.from({ length: count }, (_, place) => {
		if (missingEvery && (place + 1) % missingEvery === 0) return undefined;
		if (duplicateEvery && (place + 1) % duplicateEvery === 0) return place % 50;
		return (place * stride) % count;
	});
}

/**
 * Creates whose answers carry no rows (ignorePrefer): each is looked up among the rows created
 * since its request, which on the frozen clock is every row of the run, so a run costs the square
 * of its items; this many still fill two groups (MAX_GROUP_SIZE) within the time limit.
 */
const MAX_CREATES_LOOKED_UP = 1100;

function largeWorkload(input: LargePlan): Workload {
	const lookedUp = input.kind.endsWith('create') && input.run.ignorePrefer;
	const plan = lookedUp ? { ...input, count: Math.min(input.count, MAX_CREATES_LOOKED_UP) } : input;
	const seed: Seed = {
		jobs: Array.from({ length: plan.count + 10 }, (_, index) => ({
			url: siteUrl(index),
			email: at(EMAILS.slice(0, 2), index),
			status: 'queued',
		})),
		options: plan.kind.startsWith('option')
			? Array.from({ length: plan.count }, (_, index) => ({ job: index, mode: 'offline' }))
			: [],
		downloads: [],
	};
	const [resource, operation] = plan.kind.split(' ') as [Resource, Operation];
	const selectBy: SelectBy =
		plan.kind === 'job get by URL' ? 'url' : resource === 'option' ? 'field' : 'id';
	const items = largeIndexes(plan).map((index, place): IDataObject => {
		const jobId = index === undefined ? '999999999' : String(seededId('jobs', index));
		const url = index === undefined ? 'https://nowhere.example.com' : siteUrl(index);
		if (plan.kind === 'job create')
			return { url, email: at(EMAILS.slice(0, 2), place), mode: 'none' };
		if (plan.kind === 'option create') return { mode: 'offline', jobId };
		if (selectBy === 'field') return { field: 'job_id', value: jobId };
		const status = at(['running', 'failed'], plan.patches === 1 ? 0 : place);
		return { value: selectBy === 'url' ? url : jobId, email: '', url: '', status };
	});
	return workload(resource, operation, selectBy, seed, items, plan.run);
}

/**
 * Per test: a bound for the shrinking of a failure, not for the runs, which take about a minute
 * per test on an idle 2-core machine and up to four under heavy load (jest's bound is above it):
 * a slow machine must never fail a test whose every workload compared equal.
 */
const TIME_LIMIT_MS = 480_000;
const JEST_TIMEOUT_MS = 600_000;

describe('Website Export node: Batching → Automatic is One Request per Item (differential, fast-check)', () => {
	let pair: Pair;
	/** The workload running: one interrupted by the time limit finishes before the next starts. */
	let running: Promise<unknown> = Promise.resolve();

	beforeAll(async () => {
		pair = await startPair();
	});
	afterAll(async () => {
		await running.catch(() => undefined);
		await pair.close();
	});

	const check = async (workload: Workload) => {
		await running.catch(() => undefined);
		const run = runBothWays(pair, workload);
		running = run;
		const { perItem, automatic } = await run;
		expectSameOutcome(perItem, automatic);
	};
	const assert = (arbitrary: fc.Arbitrary<Workload>, parameters: fc.Parameters<[Workload]>) =>
		fc.assert(fc.asyncProperty(arbitrary, check), {
			...parameters,
			plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS, { failOnInterrupt: true })],
		});

	it(
		'100 small workloads from a fixed seed',
		() => assert(smallWorkloadArb, { seed: 30, numRuns: 100 }),
		JEST_TIMEOUT_MS,
	);

	it(
		'100 small workloads from a random seed',
		() => assert(smallWorkloadArb, { numRuns: 100 }),
		JEST_TIMEOUT_MS,
	);

	it(
		'large workloads, one from a fixed seed and one from a random one',
		async () => {
			await assert(largePlanArb.map(largeWorkload), { seed: 30, numRuns: 1 });
			await assert(largePlanArb.map(largeWorkload), { numRuns: 1 });
		},
		JEST_TIMEOUT_MS,
	);
});
