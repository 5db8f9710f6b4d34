/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the comparator of the oracle property test (issue 43): three identical services, one workload arranged on each, the node run with each Batching beside the oracle's run, and all a user can see of each run (and the requests the service logged) normalized for comparison.
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	NodeParameterValue,
} from 'n8n-workflow';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';

import type { Emulator, FaultSpec, LogEntry, TableName } from '../../stack/service';
import { CLUSTER_ENV } from '../../stack/service/database';
import { startService, type Service } from '../support';
import type { Batching } from './helpers';
import { runNode } from './helpers';
import { runOracle, type OracleTask } from './oracle';

const TABLES: TableName[] = ['jobs', 'options', 'downloads'];

/**
 * Seeded rows get ids from these bases (jobs 100 001…, options 200 001…, downloads 300 001…), and
 * new rows follow them: a six-digit number in an output or a message names its table.
 */
const ID_BASE: Record<TableName, number> = { jobs: 100_000, options: 200_000, downloads: 300_000 };
const ID_SPAN = 100_000;

/** The id of the `index`-th seeded row of `table` (the same on every service). */
export const seededId = (table: TableName, index: number): number => ID_BASE[table] + 1 + index;

/** A URL, Relative Path or Replace URL holding this is refused by a CHECK constraint of the services' Postgres. */
export const REFUSED_MARKER = 'refused-by-check';

/** What a user sees of a run: its status (the error class, message, description, item), its output items, the tables after it. */
export interface Outcome {
	status: 'success' | IDataObject;
	output: IDataObject[];
	tables: Record<TableName, IDataObject[]>;
}

/** Rows each service starts a workload with (`job`: the index of the seeded job a row belongs to). */
export interface SeedRows {
	jobs: Array<{ url: string; email: string; status: string }>;
	options: Array<{
		job: number | null;
		mode: string;
		relative_path?: string;
		replace_url?: string;
	}>;
	/** `link` undefined: the service writes its own archive link (an item names it `@link:<n>`). */
	downloads: Array<{ job: number | null; link?: string; hoursOld: number }>;
}

/** A fault of the stand-in (stack/service/faults.ts), the same on every service. */
export interface FaultPlan {
	kind: keyof typeof FAULTS;
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	table: TableName;
	times: number;
	/** The matching requests it lets pass first: it meets the (skip + 1)-th. */
	skip: number;
}

/** A fault that meets requests `times` times; "every" is more than any workload sends. */
export const EVERY = 100_000;

/** A proxy's maintenance page, answered 200 in the service's stead. */
const HTML_PAGE =
	'<!doctype html><html><head><title>Maintenance</title></head><body><h1>Back soon</h1></body></html>';
const BODY_TYPES = { contentType: 'text/html; charset=utf-8' };
/** The real request carried out, its answer replaced (a write's answer lost after the commit). */
const CARRIED_OUT = { applyAfterHandling: true, afterCommit: true } as const;

/**
 * How each kind answers: `failing` ones fail the request they meet for good (under the node's
 * limits); `broken` ones answer a 2xx whose body is not the JSON due (issue 47): a read fails, a
 * write's answer is lost. `login`: a 401 on a request, then the login n8n runs again refused.
 */
export const FAULTS = {
	unauthorized: { status: 401, failing: false },
	loginRefused: {
		status: 401,
		body: { code: 401, error_code: 'invalid_credentials', msg: 'Invalid login credentials' },
		failing: true,
		login: true,
	},
	rateShort: { status: 429, retryAfter: 0, failing: false },
	rateLong: { status: 429, retryAfter: 120, failing: true },
	/** Real pauses (issue 47): a Retry-After of 1 s and of 2 s. */
	rateWait: { status: 429, retryAfter: 1, failing: false },
	unavailableWait: { status: 503, retryAfter: 2, failing: false },
	unavailableShort: { status: 503, retryAfter: 0, failing: false },
	unavailableLong: { status: 503, retryAfter: 120, failing: true },
	slow: { delayMs: 60, failing: false },
	/** Held past the Timeout the workload sets, then carried out: the client has given up. */
	late: { delayMs: 4_400, failing: false },
	/** A lost answer after the commit. */
	lost: { status: 502, retryAfter: 0, ...CARRIED_OUT, failing: false },
	html: {
		status: 200,
		body: HTML_PAGE,
		...BODY_TYPES,
		...CARRIED_OUT,
		failing: false,
		broken: 'html',
	},
	cut: { cutAfterBytes: 24, afterCommit: true, failing: false, broken: 'cut' },
	object: { status: 200, body: { data: [] }, ...CARRIED_OUT, failing: false, broken: 'object' },
	empty: { cutAfterBytes: 0, afterCommit: true, failing: false, broken: 'empty' },
} as const;

/** The path a plan's fault meets: its table's (for a refused login, the 401 before it). */
export const faultPath = ({ table }: FaultPlan) => `/rest/v1/${table}`;

/** One run of the node: the oracle's task (whose item JSON the node's expressions read), its options, the service. */
export interface Workload {
	seed: SeedRows;
	task: Omit<OracleTask, 'forced'>;
	itemsPerRequest?: number;
	requestsInFlight?: number;
	service: { ignorePrefer: boolean; maxRows: number; jobDurationMs: number };
	faults: FaultPlan[];
	/** Another writer, between two requests of the run. */
	writer?: Writer;
}

/**
 * Another client's write (issue 47), done as the `before`-th request of the run arrives (a REST
 * request, of `method` and `table` when given), before it is handled: a new job (`insert`), a
 * job's status set to `status` (into or out of a filter), or a job deleted with its options (as
 * a client must, the options' foreign key refusing it else); `row` is the seeded job's index.
 */
export interface Writer {
	before: number;
	method?: 'GET';
	table?: 'jobs';
	action: 'insert' | 'update' | 'delete';
	row: number;
	status: string;
}

/** What a run shows, normalized, and the requests the service logged (retries and faults aside). */
export interface Observed {
	outcome: Outcome;
	/** Each write sent, `POST jobs 201`, sorted. */
	writes: string[];
	/** The reads started (an archive's too): their first pages, whatever pages a row cap adds (followUp). */
	reads: number;
	/** Items marked `recovered: true` (left out of `outcome`). */
	recovered: number;
	/** Each request a fault answered: `POST /rest/v1/options`. */
	faulted: string[];
}

export interface Trio {
	oracle: Service;
	/** The oracle's credential token, kept from run to run as the node's harness keeps its own. */
	oracleToken: { value: string };
	/** Each service's own database, for another writer's statements. */
	db: Map<Service, Client>;
	perItem: Service;
	automatic: Service;
	close(): Promise<void>;
}

const CHECKS = [
	['jobs', 'url'],
	['options', 'relative_path'],
	['options', 'replace_url'],
] as const;

/** Three services with a running clock and a CHECK constraint that refuses REFUSED_MARKER. */
export async function startTrio(): Promise<Trio> {
	// The clock runs (issue 47): rows of different requests differ in created_at, jobs finish.
	const options = { freezeClock: false, now: Date.now(), jobDurationMs: 365 * 86_400_000 };
	const services: Service[] = [];
	for (let i = 0; i < 3; i++) services.push(await startService(options));
	const databases = await Promise.all(services.map(({ emulator }) => databaseOf(emulator)));
	const name = (column: string) => `oracle_${column}`;
	for (const db of databases)
		for (const [table, column] of CHECKS)
			await db.query(
				`alter table private.${table} add constraint ${name(column)} check (coalesce(${column}, '') not like '%${REFUSED_MARKER}%')`,
			);
	const close = async () => {
		for (const db of databases) {
			for (const [table, column] of CHECKS)
				await db.query(`alter table private.${table} drop constraint ${name(column)}`);
			await db.end();
		}
		for (const { emulator } of services) await emulator.close();
	};
	const [oracle, perItem, automatic] = services;
	const [oracleDb, perItemDb, automaticDb] = databases;
	const db = new Map([
		[oracle, oracleDb],
		[perItem, perItemDb],
		[automatic, automaticDb],
	]);
	return { oracle, oracleToken: { value: '' }, perItem, automatic, db, close };
}

/** The emulator's own database in jest's shared cluster: the one whose service row has its base URL. */
async function databaseOf(emulator: Emulator): Promise<Client> {
	const cluster = process.env[CLUSTER_ENV];
	if (!cluster) throw new Error(`${CLUSTER_ENV} is not set: run under jest (its global setup)`);
	const admin = new Client({ connectionString: `${cluster}/postgres` });
	await admin.connect();
	const { rows } = await admin
		.query<{ datname: string }>(`select datname from pg_database where datname like 'wex\\_%'`)
		.finally(() => admin.end());
	for (const { datname } of rows) {
		const db = new Client({ connectionString: `${cluster}/${datname}` });
		await db.connect();
		const found = await db
			.query<{ base_url: string }>('select base_url from private.service')
			.then((result) => result.rows[0]?.base_url === emulator.baseUrl)
			.catch(() => false);
		if (found) return db;
		await db.end();
	}
	throw new Error(`No database of the emulator at ${emulator.baseUrl}`);
}

/**
 * The stand-in's faults for a plan: a login refused follows a 401 on the (skip + 1)-th request
 * of its method and table (an item's write, or its one read), as another fault would meet it.
 */
export function faultSpecs(plan: FaultPlan): FaultSpec[] {
	const { kind, method, table, times, skip } = plan;
	const { failing, ...answer } = FAULTS[kind] as IDataObject & (typeof FAULTS)[typeof kind];
	void failing;
	const { login, broken, ...spec } = answer as IDataObject;
	void broken;
	const anyRest = { path: /^\/rest\/v1\// };
	const own = { method, path: `/rest/v1/${table}` };
	if (login) {
		const token = { method: 'POST', path: '/auth/v1/token' };
		return [
			{ status: 401, match: own, skip },
			{ ...(spec as FaultSpec), match: token, times: 1 },
		];
	}
	const match = kind === 'unauthorized' ? anyRest : own;
	return [{ ...(spec as FaultSpec), match, times, skip }];
}

/** The service as the workload starts: reset, its clock at `now`, the seed's rows, its settings and faults. */
async function arrange(service: Service, workload: Workload, now: number, trio: Trio) {
	const { emulator } = service;
	await emulator.reset();
	await emulator.clock.set(now);
	const { jobs, options, downloads } = workload.seed;
	const past = new Date(now - 3_600_000).toISOString();
	const job = (index: number | null) => (index === null ? null : seededId('jobs', index));
	const rows: Record<TableName, IDataObject[]> = {
		jobs: jobs.map((row, index) => ({ ...row, id: seededId('jobs', index), created_at: past })),
		options: options.map(({ job: index, ...row }, place) => ({
			...{ relative_path: '/', replace_url: '', ...row },
			...{ id: seededId('options', place), job_id: job(index), created_at: past },
		})),
		downloads: downloads.map(({ job: index, link, hoursOld }, place) => ({
			...{ id: seededId('downloads', place), job_id: job(index), download_link: link ?? null },
			created_at: new Date(now - hoursOld * 3_600_000).toISOString(),
		})),
	};
	for (const table of TABLES) {
		// The base row makes the identity start past ID_BASE even when the seed has no row.
		await emulator.insert(table, [baseRow(table), ...rows[table]]);
		await emulator.remove(table, [ID_BASE[table]]);
	}
	Object.assign(emulator.settings, workload.service, { archiveBytes: 4096 });
	for (const plan of workload.faults) for (const spec of faultSpecs(plan)) emulator.fault(spec);
	const db = trio.db.get(service);
	return workload.writer && db ? anotherWriter(service, db, workload.writer) : () => undefined;
}

/** The writer's hook on a service: its write done once, as the chosen request arrives. */
function anotherWriter({ emulator }: Service, db: Client, writer: Writer) {
	let seen = 0;
	const meets = ({ kind, method, table }: LogEntry) =>
		kind === 'rest' &&
		(writer.method === undefined || method === writer.method) &&
		(writer.table === undefined || table === writer.table);
	return emulator.onArrival(async (entry) => {
		if (!meets(entry) || ++seen !== writer.before) return;
		// Refused (an option the run just gave the job), the write is not done: the request goes on.
		await write(emulator, db, writer).catch(() => undefined);
	});
}

/** The write, as another client of the account sends it: a job's options go before the job. */
async function write(emulator: Emulator, db: Client, writer: Writer) {
	const id = seededId('jobs', writer.row);
	if (writer.action === 'delete') {
		await db.query('delete from private.options where job_id = $1', [id]);
		await db.query('delete from private.jobs where id = $1', [id]);
	} else if (writer.action === 'update')
		await db.query('update private.jobs set status = $1 where id = $2', [writer.status, id]);
	else {
		const row = { url: WRITER_URL, email: 'writer@example.com', status: writer.status };
		await emulator.insert('jobs', [row]);
	}
}

/** The URL of the job another writer inserts. */
export const WRITER_URL = 'https://writer.example.com';

function baseRow(table: TableName): IDataObject {
	const id = ID_BASE[table];
	if (table === 'jobs') return { id, url: 'https://base.example.com', email: 'base@example.com' };
	if (table === 'options') return { id, mode: 'offline' };
	return { id, job_id: null, download_link: 'https://base.example.com/base.zip' };
}

/** The items with `@link:<n>` replaced by this service's link of the n-th seeded download. */
async function itemsOn({ emulator }: Service, workload: Workload): Promise<IDataObject[]> {
	const rows = (await emulator.rows('downloads')) as IDataObject[];
	const links = rows.slice(0, workload.seed.downloads.length).map((row) => row.download_link);
	const replace = (value: unknown) => {
		const place = typeof value === 'string' ? /^@link:(\d+)$/.exec(value) : null;
		return place ? links[Number(place[1]) % links.length] : value;
	};
	return workload.task.items.map(
		(item) =>
			Object.fromEntries(
				Object.entries(item).map(([key, value]) => [key, replace(value)]),
			) as IDataObject,
	);
}

const fromItem = (field: string) => `={{ $json.${field} }}`;
const locator = (mode: string, value: NodeParameterValue) => ({ __rl: true, mode, value });

/** Update Fields and Job → Create's fields, each read from the item's JSON as the oracle reads it. */
const UPDATE_FIELDS: Record<OracleTask['resource'], INodeParameters> = {
	job: { email: fromItem('email'), url: fromItem('url'), status: fromItem('status') },
	option: {
		mode: fromItem('mode'),
		relativePath: fromItem('path'),
		replaceUrl: fromItem('replace'),
		jobId: locator('id', fromItem('jobId')),
	},
	download: {},
};

/** The node's parameters for the workload's task with `batching`. */
export function nodeParameters(workload: Workload, batching: Batching): INodeParameters {
	const { task, itemsPerRequest, requestsInFlight } = workload;
	const options = { batching, itemsPerRequest, requestsInFlight, timeout: task.timeoutMs };
	return { resource: task.resource, operation: task.operation, ...own(task), options };
}

/** The operation's own parameters, each item's values read from its JSON by expressions. */
function own(task: Workload['task']): INodeParameters {
	const { resource, operation, wait } = task;
	if (operation === 'get' || operation === 'update' || operation === 'delete')
		return {
			// Static: n8n resolves displayOptions (Record or Field) before any expression.
			selectBy: task.items[0]?.by === 'field' ? 'field' : 'id',
			recordId: locator(task.locator, fromItem('value')),
			selectField: fromItem('field'),
			selectValue: fromItem('value'),
			...(operation === 'update' ? { updateFields: UPDATE_FIELDS[resource] } : {}),
		};
	if (operation === 'downloadArchive')
		return {
			downloadBy: task.downloadBy,
			downloadId: locator('id', fromItem('value')),
			downloadLink: fromItem('value'),
		};
	if (operation === 'getAll') return listParameters(task);
	if (resource === 'option') {
		const { jobId, ...fields } = UPDATE_FIELDS.option;
		return { ...fields, additionalFields: { jobId } };
	}
	return {
		...{ url: fromItem('url'), email: fromItem('email'), optionMode: fromItem('mode') },
		...{ optionRelativePath: fromItem('path'), optionReplaceUrl: fromItem('replace') },
		...(wait && {
			waitForCompletion: true,
			timeout: wait.timeoutSeconds,
			pollInterval: wait.intervalSeconds,
		}),
	};
}

function listParameters({ resource, list }: Workload['task']): INodeParameters {
	const { job_id: jobId, ...filters } = list.filters;
	const parameters: INodeParameters = {
		returnAll: list.returnAll,
		limit: list.limit,
		filters: {
			...(filters as INodeParameters),
			...(jobId ? { jobId: locator('id', String(jobId)) } : {}),
		},
	};
	if (resource === 'job') parameters.sort = list.oldest ? 'oldest' : 'newest';
	if (resource === 'download') parameters.onlyValidLinks = list.valid;
	return parameters;
}

/**
 * How far the services' clock leads the machine's as a workload starts: before its first answer
 * the node takes the machine's clock for the service's, and a service clock behind the machine's
 * would make a lost insert's row look older than its request.
 */
const SERVICE_CLOCK_LEAD_MS = 30_000;

/** The workload on the three services side by side: the oracle's run and the node's with each Batching. */
export async function runThreeWays(trio: Trio, workload: Workload) {
	const now = Date.now() + SERVICE_CLOCK_LEAD_MS;
	const services = [trio.oracle, trio.perItem, trio.automatic];
	const removals = await Promise.all(services.map((one) => arrange(one, workload, now, trio)));
	try {
		const [oracle, perItem, automatic] = await Promise.all([
			observeOracle(trio, workload, now),
			observeNode(trio.perItem, workload, 'perItem', now),
			observeNode(trio.automatic, workload, 'automatic', now),
		]);
		return { oracle, perItem, automatic, now };
	} finally {
		for (const remove of removals) remove();
	}
}

/** The oracle's run again, on its service arranged anew without the fault whose reach `forced` gives. */
export async function rerunOracle(
	trio: Trio,
	workload: Workload,
	now: number,
	forced: NonNullable<OracleTask['forced']>,
	plan: FaultPlan,
): Promise<Observed> {
	const rest = { ...workload, faults: workload.faults.filter((one) => one !== plan) };
	const remove = await arrange(trio.oracle, rest, now, trio);
	return await observeOracle(trio, workload, now, forced).finally(remove);
}

async function observeOracle(
	trio: Trio,
	workload: Workload,
	now: number,
	forced?: OracleTask['forced'],
) {
	const service = trio.oracle;
	const { emulator } = service;
	const items = await itemsOn(service, workload);
	const login = { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, ...emulator.demoUser };
	const task = { ...workload.task, items, forced, pageRows: workload.service.maxRows };
	const run = await runOracle(login, task, trio.oracleToken.value);
	trio.oracleToken.value = run.token;
	return await observed(service, workload, now, run);
}

async function observeNode(service: Service, workload: Workload, batching: Batching, now: number) {
	const parameters = nodeParameters(workload, batching);
	const items: INodeExecutionData[] = (await itemsOn(service, workload)).map((json) => ({
		json,
	}));
	const onError = workload.task.continueOnFail ? 'continueRegularOutput' : undefined;
	let status: Outcome['status'] = 'success';
	let output: INodeExecutionData[] = [];
	try {
		output = await runNode(service, parameters, { items, onError });
	} catch (caught) {
		const error = caught as Error & IDataObject & { context?: IDataObject };
		const { message, description } = error;
		const itemIndex = error.context?.itemIndex;
		status = { error: error.constructor.name, message, description, itemIndex };
	}
	const unread = status === 'success' ? undefined : unreadRows(status.description, service);
	const run = { status, output: output as IDataObject[] };
	return await observed(service, workload, now, run, unread);
}

/** The sentence of an error that names the items whose rows no answer told (groups.ts, stopAtFailure). */
export const UNREAD =
	/The same request carried the (jobs|options) of ((?:\[item \d+\](?:, )?)+), and no answer said whether it created them: look for them with (?:Job|Option) → Get Many before running those items again\./;

/**
 * Allowed difference 2's rows no answer told (oracleProperty.ts, withoutGroupNotes): the
 * rows the request of the items UNREAD names created for them, which one by one never sent. That
 * request wrote all its rows or none: when it was written (its POST, the last to the table,
 * answered or lost after the commit), their rows are the highest ids of the table.
 */
function unreadRows(description: unknown, { emulator }: Service) {
	const [, table, items] = UNREAD.exec(String(description ?? '')) ?? [];
	if (!table) return undefined;
	const post = emulator.log.filter((entry) => entry.method === 'POST' && entry.table === table);
	const last = post[post.length - 1];
	const lost = last?.faulted && last.status === FAULTS.lost.status;
	if (!last || !(last.status < 300 || lost)) return undefined;
	return { table: table as TableName, count: items.split(', ').length };
}

/** A run as the user sees it (JSON, no nulls where nothing was said), the tables after it, the requests logged. */
async function observed(
	{ emulator }: Service,
	workload: Workload,
	startedAt: number,
	run: { status: Outcome['status']; output: IDataObject[] },
	unread?: { table: TableName; count: number },
): Promise<Observed> {
	await heldDone(emulator, workload);
	await settled(emulator, workload);
	const tables = {} as Outcome['tables'];
	for (const table of TABLES) tables[table] = (await emulator.rows(table)) as IDataObject[];
	if (unread) {
		const ids = tables[unread.table].map((row) => row.id as number).sort((a, b) => b - a);
		const left = new Set(ids.slice(0, unread.count));
		tables[unread.table] = tables[unread.table].filter((row) => !left.has(row.id as number));
		if (unread.table === 'jobs')
			tables.downloads = tables.downloads.filter((row) => !left.has(row.job_id as number));
	}
	const status = typeof run.status === 'string' ? run.status : withoutNulls(run.status);
	const output = run.output.map(visible);
	const raw = JSON.parse(JSON.stringify({ status, output, tables })) as Outcome;
	const seeded = {
		jobs: workload.seed.jobs.length,
		options: workload.seed.options.length,
		downloads: workload.seed.downloads.length,
	};
	const recovered = run.output.filter((item) => /"recovered":true/.test(JSON.stringify(item.json)));
	const outcome = normalize(raw, seeded, emulator.baseUrl, startedAt);
	return { outcome, ...requestsOf(emulator.log), recovered: recovered.length };
}

/**
 * The service's own job lifecycle ends before the tables are read, on every side alike: a job
 * created just before a run stopped is not left `queued` where another side's, created a second
 * earlier, has finished (the service finishes both; seed -1705711537).
 */
async function settled(emulator: Emulator, workload: Workload) {
	const { jobDurationMs } = workload.service;
	if (jobDurationMs <= SETTLE_LIMIT_MS) await emulator.clock.advance(jobDurationMs);
}

/** Longer lifecycles (a year: jobs that never finish during a run) are left as they are. */
const SETTLE_LIMIT_MS = 60_000;

/** Requests a service holds past the client's Timeout land later: the tables are read after. */
async function heldDone(emulator: Emulator, workload: Workload) {
	if (!workload.faults.some((plan) => plan.kind === 'late')) return;
	await sleep(FAULTS.late.delayMs);
	for (let tries = 0; tries < 100 && emulator.log.some((entry) => entry.status === 0); tries++)
		await sleep(100);
}

/** The requests of a run as the service logged them: each write with its answer, the reads, those a fault met. */
function requestsOf(log: LogEntry[]) {
	const sent = log.filter((entry) => entry.kind !== 'token');
	const answered = sent.filter((entry) => !entry.faulted);
	const writes = answered.filter((entry) => entry.method !== 'GET');
	return {
		writes: writes.map((entry) => `${entry.method} ${entry.table} ${entry.status}`).sort(),
		reads: answered.filter((entry) => entry.method === 'GET' && !followUp(entry)).length,
		faulted: log.filter((entry) => entry.faulted).map((entry) => `${entry.method} ${entry.path}`),
	};
}

/**
 * A page after the first (offset or keyset): a read goes on with as many pages as the service's
 * row cap makes it, whoever reads (the oracle always reads on to an empty page, the node where
 * no count tells it the rows have ended). What the comparison counts is the reads started: each
 * first page.
 */
const followUp = ({ query }: { query: string }) =>
	/(^|&)(offset=[1-9]|id=(gt|lt)\.|or=|and=)/.test(query);

const withoutNulls = (value: IDataObject) =>
	Object.fromEntries(
		Object.entries(value).filter(([, field]) => field !== null && field !== undefined),
	);

/**
 * An output item as the user sees it: its JSON, the name and type of its binary data, its
 * pairedItem. `recovered: true` says that the answer of the item's *request* was lost: the
 * request of its group when grouped, so it is counted (`recovered`), not compared.
 */
function visible(item: IDataObject): IDataObject {
	const { json, pairedItem, binary } = item as unknown as INodeExecutionData;
	const files = binary
		? Object.fromEntries(
				Object.entries(binary).map(([key, { fileName, mimeType }]) => [
					key,
					{ fileName, mimeType },
				]),
			)
		: undefined;
	return { json: withoutRecovered(json), pairedItem, binary: files } as IDataObject;
}

function withoutRecovered(value: IDataObject): IDataObject {
	const { recovered, ...rest } = value;
	void recovered;
	for (const [key, field] of Object.entries(rest))
		if (field && typeof field === 'object' && !Array.isArray(field))
			rest[key] = withoutRecovered(field as IDataObject);
	return rest;
}

/** The table whose ids include `id` (see ID_BASE), if any. */
const tableOf = (id: number): TableName | undefined =>
	TABLES.find((table) => id >= ID_BASE[table] && id < ID_BASE[table] + ID_SPAN);

const SIX_DIGITS = /\b[1-3]\d{5}\b/g;
const isTimestamp = (text: string) => /^\d{4}-\d\d-\d\dT/.test(text);

/** How long after its start a run's rows may be written (the longest wait, pauses, shrinking). */
const RUN_WINDOW_MS = 10 * 60_000;

/**
 * A time the running service clock gave during the run (a new row's created_at, its link's
 * expires_at), which differs from service to service, as what it is; seeded times as they are.
 */
function duringRun(value: string, startedAt: number): string {
	const at = Date.parse(value) - startedAt;
	const within = (from: number) => at >= from - 5_000 && at < from + RUN_WINDOW_MS;
	if (within(0)) return '<during the run>';
	return within(86_400_000) ? '<24 h after the run>' : value;
}
const ARCHIVE_FILE = /^[0-9a-f]{32}\.zip$/;

/**
 * The outcome with every id of a row the run created replaced by its rank among them, per table
 * (`jobs#new1`…), and the tables' rows in that order: refused inserts consume ids, and creates in
 * flight together take them in the order they arrive. The service's own archive links and their
 * file names lose its address and hash.
 */
function normalize(
	outcome: Outcome,
	seeded: Record<TableName, number>,
	baseUrl: string,
	startedAt: number,
): Outcome {
	const isNew = (id: number, table = tableOf(id)): table is TableName =>
		table !== undefined && id > ID_BASE[table] + seeded[table];
	const ranks = newIdRanks(outcome, isNew);
	const rename = (id: number) => (isNew(id) ? `${tableOf(id)}#new${ranks.get(id)}` : id);
	const escaped = baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const link = new RegExp(`${escaped}/storage/v1/object/public/exports/[0-9a-f]{32}\\.zip`, 'g');
	const text = (value: string) =>
		isTimestamp(value)
			? duringRun(value, startedAt)
			: ARCHIVE_FILE.test(value)
				? '<generated file>'
				: value
						.replace(link, '<generated link>')
						.replace(SIX_DIGITS, (digits) => String(rename(Number(digits))));
	const normalized = mapLeaves(outcome, (leaf) =>
		typeof leaf === 'number' && Number.isInteger(leaf)
			? rename(leaf)
			: typeof leaf === 'string'
				? text(leaf)
				: leaf,
	) as Outcome;
	const place = (row: IDataObject) =>
		typeof row.id === 'number' ? row.id : ID_SPAN * 10 + Number(String(row.id).split('#new')[1]);
	for (const table of TABLES) normalized.tables[table].sort((a, b) => place(a) - place(b));
	return normalized;
}

/**
 * The rank of each new id: first the rows still there, as the run's error and output items name
 * them, then as the tables show them; last the ids of rows gone (a group's jobs deleted again,
 * which only its error names), so that they move no remaining row's rank.
 */
function newIdRanks(outcome: Outcome, isNew: (id: number) => boolean): Map<number, number> {
	const ranks = new Map<number, number>();
	const counts = { jobs: 0, options: 0, downloads: 0 };
	const rank = (id: unknown) => {
		if (typeof id !== 'number' || !isNew(id) || ranks.has(id)) return;
		ranks.set(id, ++counts[tableOf(id) as TableName]);
	};
	const named: number[] = [];
	mapLeaves([outcome.status, outcome.output], (leaf) => {
		if (typeof leaf === 'number') named.push(leaf);
		if (typeof leaf === 'string' && !isTimestamp(leaf))
			for (const [digits] of leaf.matchAll(SIX_DIGITS)) named.push(Number(digits));
		return leaf;
	});
	const kept = new Set(TABLES.flatMap((table) => outcome.tables[table].map((row) => row.id)));
	named.filter((id) => kept.has(id)).forEach(rank);
	const order = (id: unknown) =>
		typeof id !== 'number' ? Infinity : isNew(id) ? ID_SPAN * 10 + (ranks.get(id) ?? ID_SPAN) : id;
	// Rows only the tables show, by what they hold (their references by rank), then by id: side by
	// side, creates take ids in the order they arrive, which differs from run to run. A download
	// by its job alone: its link is generated.
	const content = (row: IDataObject) =>
		JSON.stringify(
			Object.entries(row)
				.filter(([column]) => !['id', 'download_link'].includes(column) && !column.endsWith('_at'))
				.map(([column, value]) => [column, column.endsWith('_id') ? order(value) : value]),
		);
	for (const table of TABLES) {
		const rows = [...outcome.tables[table]].map((row) => ({ row, key: content(row) }));
		rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
		for (const { row } of rows) rank(row.id);
	}
	named.forEach(rank);
	return ranks;
}

function mapLeaves(value: unknown, leaf: (value: unknown) => unknown): unknown {
	if (Array.isArray(value)) return value.map((element) => mapLeaves(element, leaf));
	if (value && typeof value === 'object')
		return Object.fromEntries(
			Object.entries(value).map(([key, field]) => [key, mapLeaves(field, leaf)]),
		);
	return leaf(value);
}

/** Where two values differ: up to `max` paths with both values, none when they are equal. */
export function differences(a: unknown, b: unknown, max = 8, path = '$'): string[] {
	if (Object.is(a, b)) return [];
	const bothObjects = a && b && typeof a === 'object' && typeof b === 'object';
	if (!bothObjects || Array.isArray(a) !== Array.isArray(b))
		return [`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`];
	const found: string[] = [];
	if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length)
		found.push(`${path}.length: ${a.length} ≠ ${b.length}`);
	for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
		if (found.length >= max) break;
		const [x, y] = [(a as IDataObject)[key], (b as IDataObject)[key]];
		found.push(...differences(x, y, max - found.length, `${path}.${key}`));
	}
	return found;
}
