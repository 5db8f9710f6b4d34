/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the comparator of the differential property test (issue 30): one workload run with One Request per Item on one service and with Automatic on an identical one, and everything a user can see of each run, service-assigned ids normalized, compared exactly.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { Client } from 'pg';

import type { Emulator, TableName } from '../../stack/service';
import { CLUSTER_ENV } from '../../stack/service/database';
import { startService, type Service } from '../support';
import { runNode } from './helpers';

export const TABLES: TableName[] = ['jobs', 'options', 'downloads'];

/**
 * Seeded rows get ids from these bases (jobs 100 001…, options 200 001…, downloads 300 001…),
 * and new rows follow them: a six-digit number in an output or a message names its table.
 */
const ID_BASE: Record<TableName, number> = { jobs: 100_000, options: 200_000, downloads: 300_000 };
const ID_SPAN = 100_000;

/** The id of the `index`-th seeded row of `table` (the same in both services). */
export const seededId = (table: TableName, index: number): number => ID_BASE[table] + 1 + index;

/** A URL, Relative Path or Replace URL holding this is refused by a CHECK constraint of the service's Postgres. */
export const REFUSED_MARKER = 'refused-by-check';

/** Rows each service starts a workload with (`index` of the job a row belongs to, or null). */
export interface Seed {
	jobs: Array<{ url: string; email: string; status: string }>;
	options: Array<{
		job: number | null;
		mode: string;
		relative_path?: string;
		replace_url?: string;
	}>;
	downloads: Array<{ job: number | null; link: string; hoursOld: number }>;
}

/** One run of the node, the same on both services apart from Batching. */
export interface Workload {
	seed: Seed;
	/** The node's parameters; `options.batching` is set by the comparator. */
	parameters: INodeParameters;
	items: IDataObject[];
	continueOnFail: boolean;
	/** The service answers writes 201/204 without rows. */
	ignorePrefer: boolean;
	/** One answer to this method is lost after the commit (a 502), on both services. */
	lostAnswer?: 'POST' | 'PATCH' | 'DELETE';
}

/** What a user sees of a run: its status, its output items, and the tables afterwards. */
export interface Outcome {
	status:
		| 'success'
		| {
				error: string;
				message: unknown;
				description: unknown;
				itemIndex: unknown;
				httpCode: unknown;
		  };
	output: unknown[];
	tables: Record<TableName, IDataObject[]>;
}

/** The two services a test file compares on, with their databases (for the CHECK constraints). */
export interface Pair {
	perItem: Service;
	automatic: Service;
	close(): Promise<void>;
}

const CHECKS = [
	['jobs', 'url'],
	['options', 'relative_path'],
	['options', 'replace_url'],
] as const;

/**
 * Two services with a frozen clock whose jobs never move on their own, and a real CHECK
 * constraint on each: a value holding REFUSED_MARKER is refused by Postgres (insert and update).
 */
export async function startPair(): Promise<Pair> {
	const options = { freezeClock: true, now: Date.now(), jobDurationMs: 365 * 86_400_000 };
	const services = [await startService(options), await startService(options)];
	const databases = await Promise.all(services.map(({ emulator }) => databaseOf(emulator)));
	const constraint = (table: string, column: string) =>
		`alter table private.${table} add constraint differential_${column} check (coalesce(${column}, '') not like '%${REFUSED_MARKER}%')`;
	for (const db of databases)
		for (const [table, column] of CHECKS) await db.query(constraint(table, column));
	return {
		perItem: services[0],
		automatic: services[1],
		async close() {
			for (const db of databases) {
				for (const [table, column] of CHECKS)
					await db.query(`alter table private.${table} drop constraint differential_${column}`);
				await db.end();
			}
			for (const { emulator } of services) await emulator.close();
		},
	};
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

/** How far the services' frozen clock leads the machine's as a workload starts. */
const SERVICE_CLOCK_LEAD_MS = 30_000;

/**
 * Runs `workload` with One Request per Item and with Automatic, side by side on the two services
 * (reset, the same clock, the same rows), and answers each run's outcome, normalized.
 */
export async function runBothWays(
	pair: Pair,
	workload: Workload,
): Promise<{ perItem: Outcome; automatic: Outcome }> {
	// Frozen, and the same for both: created_at and expiries agree. Ahead of the machine's time:
	// before its first answer the node takes the machine's clock for the service's (lostAnswer.ts),
	// and a frozen clock the machine's passed while the node prepared a large workload on a loaded
	// machine (over 2 s) made the first lost insert's row look older than its request.
	const now = Date.now() + SERVICE_CLOCK_LEAD_MS;
	await Promise.all([arrange(pair.perItem, workload, now), arrange(pair.automatic, workload, now)]);
	const [perItem, automatic] = await Promise.all([
		observe(pair.perItem, workload, 'perItem'),
		observe(pair.automatic, workload, 'automatic'),
	]);
	const seeded = {
		jobs: workload.seed.jobs.length,
		options: workload.seed.options.length,
		downloads: workload.seed.downloads.length,
	};
	return {
		perItem: normalize(perItem, seeded, pair.perItem.emulator.baseUrl),
		automatic: normalize(automatic, seeded, pair.automatic.emulator.baseUrl),
	};
}

/** The service as the workload starts: reset, clock at `now`, the seed's rows, its settings and fault. */
async function arrange({ emulator }: Service, workload: Workload, now: number): Promise<void> {
	await emulator.reset();
	await emulator.clock.set(now);
	const { jobs, options, downloads } = workload.seed;
	const past = new Date(now - 3_600_000).toISOString();
	const job = (index: number | null) => (index === null ? null : seededId('jobs', index));
	const rows: Record<TableName, IDataObject[]> = {
		jobs: jobs.map((row, index) => ({ ...row, id: seededId('jobs', index), created_at: past })),
		options: options.map(({ job: index, ...row }, place) => ({
			relative_path: '/',
			replace_url: '',
			...row,
			id: seededId('options', place),
			job_id: job(index),
			created_at: past,
		})),
		downloads: downloads.map(({ job: index, link, hoursOld }, place) => ({
			id: seededId('downloads', place),
			job_id: job(index),
			download_link: link,
			created_at: new Date(now - hoursOld * 3_600_000).toISOString(),
		})),
	};
	for (const table of TABLES) {
		// The base row makes the identity start past ID_BASE even when the seed has no row.
		await emulator.insert(table, [...baseRow(table), ...rows[table]]);
		await emulator.remove(table, [ID_BASE[table]]);
	}
	emulator.settings.ignorePrefer = workload.ignorePrefer;
	if (workload.lostAnswer) {
		const match = { method: workload.lostAnswer, path: /^\/rest\/v1\// };
		emulator.fault({ match, status: 502, applyAfterHandling: true, afterCommit: true, times: 1 });
	}
}

/** A row with id ID_BASE[table] (removed again at once): it moves the table's identity there. */
function baseRow(table: TableName): IDataObject[] {
	const id = ID_BASE[table];
	if (table === 'jobs') return [{ id, url: 'https://base.example.com', email: 'base@example.com' }];
	if (table === 'options') return [{ id, mode: 'offline' }];
	return [{ id, job_id: null, download_link: 'https://base.example.com/base.zip' }];
}

/** One run with `batching`, and what it leaves: the raw outcome. */
async function observe(
	service: Service,
	workload: Workload,
	batching: 'perItem' | 'automatic',
): Promise<Outcome> {
	const parameters = {
		...workload.parameters,
		options: { ...(workload.parameters.options as IDataObject), batching },
	};
	const items: INodeExecutionData[] = workload.items.map((json) => ({ json }));
	const onError = workload.continueOnFail ? 'continueRegularOutput' : undefined;
	let status: Outcome['status'] = 'success';
	let output: INodeExecutionData[] = [];
	try {
		output = await runNode(service, parameters, { items, onError });
	} catch (caught) {
		const error = caught as Error & IDataObject & { context?: IDataObject };
		status = {
			error: error.constructor.name,
			message: error.message,
			description: error.description,
			itemIndex: error.context?.itemIndex,
			httpCode: error.httpCode,
		};
	}
	const tables = {} as Outcome['tables'];
	for (const table of TABLES) tables[table] = (await service.emulator.rows(table)) as IDataObject[];
	// As n8n shows and stores them: JSON (no undefined fields, no class instances).
	return JSON.parse(JSON.stringify({ status, output: output.map(visible), tables })) as Outcome;
}

/** An output item as the user sees it: its JSON, its binary data's metadata, its pairedItem. */
function visible(item: INodeExecutionData): IDataObject {
	const { json, pairedItem, binary } = item;
	// `recovered: true` says the answer of the item's *request* was lost and its row looked up:
	// whether that request was the item's own or its group's depends on the grouping, so it is
	// not part of the comparison (the row itself is).
	return { json: withoutRecovered(json), pairedItem, binary };
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
/** A timestamp's fraction is no id. */
const isTimestamp = (text: string) => /^\d{4}-\d\d-\d\dT/.test(text);

/**
 * The outcome with every id of a row the run created (none the seed has) replaced by its rank
 * among them, per table (`jobs#new1`…), and the tables' rows in that order: a refused insert
 * consumes ids, and creates in flight together take them in the order they arrive, so two runs
 * may number the same rows differently. Generated download links lose their service's address
 * and hash.
 */
function normalize(outcome: Outcome, seeded: Record<TableName, number>, baseUrl: string): Outcome {
	const isNew = (id: number, table = tableOf(id)): table is TableName =>
		table !== undefined && id > ID_BASE[table] + seeded[table];
	const ranks = newIdRanks(outcome, isNew);
	const rename = (id: number) => (isNew(id) ? `${tableOf(id)}#new${ranks.get(id)}` : id);
	const link = new RegExp(
		`${escapeRegExp(baseUrl)}/storage/v1/object/public/exports/[0-9a-f]{32}\\.zip`,
		'g',
	);
	const text = (value: string) =>
		isTimestamp(value)
			? value
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
 * The rank of each new id, per table: first as the run's error and its output items name them,
 * in item order (an item's record is the same record both ways), then the rows only the tables
 * show: jobs and options by id, downloads (the trigger writes them in the order of an update's
 * rows) by their job, then by id.
 */
function newIdRanks(outcome: Outcome, isNew: (id: number) => boolean): Map<number, number> {
	const ranks = new Map<number, number>();
	const counts = { jobs: 0, options: 0, downloads: 0 };
	const rank = (id: unknown) => {
		if (typeof id !== 'number' || !isNew(id) || ranks.has(id)) return;
		ranks.set(id, ++counts[tableOf(id) as TableName]);
	};
	mapLeaves([outcome.status, outcome.output], (leaf) => {
		if (typeof leaf === 'number') rank(leaf);
		if (typeof leaf === 'string' && !isTimestamp(leaf))
			for (const [digits] of leaf.matchAll(SIX_DIGITS)) rank(Number(digits));
		return leaf;
	});
	const order = (id: unknown) =>
		typeof id !== 'number' ? Infinity : isNew(id) ? ID_SPAN * 10 + (ranks.get(id) ?? 0) : id;
	for (const table of TABLES) {
		const rows = [...outcome.tables[table]];
		if (table === 'downloads') rows.sort((a, b) => order(a.job_id) - order(b.job_id) || 0);
		for (const row of rows) rank(row.id);
	}
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

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where two outcomes differ: up to `max` paths with both values, none when they are equal. */
export function differences(a: unknown, b: unknown, max = 8, path = '$'): string[] {
	if (Object.is(a, b)) return [];
	const bothObjects = a && b && typeof a === 'object' && typeof b === 'object';
	if (!bothObjects || Array.isArray(a) !== Array.isArray(b))
		return [`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`];
	const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
	const found: string[] = [];
	if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length)
		found.push(`${path}.length: ${a.length} ≠ ${b.length}`);
	for (const key of keys) {
		if (found.length >= max) break;
		const [x, y] = [(a as IDataObject)[key], (b as IDataObject)[key]];
		found.push(...differences(x, y, max - found.length, `${path}.${key}`));
	}
	return found;
}

/** Throws, naming the differences (One Request per Item first), unless the outcomes are equal. */
export function expectSameOutcome(perItem: Outcome, automatic: Outcome): void {
	const found = differences(perItem, automatic);
	if (found.length > 0)
		throw new Error(
			`One Request per Item ≠ Automatic:\n${found.map((line) => `  ${line}`).join('\n')}`,
		);
}
