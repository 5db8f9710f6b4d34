// Why: how a run's items become requests, for any group size: values and rows cut into groups (Items per Request, request lines within the 8 KiB a gateway takes), groups side by side or one at a time, and a refused group sent again item by item.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import type {
	Filter,
	FilterValue,
	InsertRequest,
	WebsiteExportClient,
} from '../../shared/transport';
import { errorForItem } from '../../shared/itemError';
import { mapInOrder } from './mapInOrder';
import { MAX_GROUP_SIZE } from './runOptions';
import type { ItemResult, ItemRun, RunOptions } from './types';

/** Items `0 … count-1` in consecutive groups of at most `size`. */
export const indexGroups = (count: number, size: number): number[][] =>
	Array.from({ length: Math.ceil(count / size) }, (_, group) =>
		Array.from({ length: Math.min(size, count - group * size) }, (_, i) => group * size + i),
	);

/**
 * Whether a group's failure is its items' business, so that each item, sent alone, gets its own
 * outcome: a 4xx (nothing was carried out) other than a refused token or too many requests,
 * which every item would meet alike.
 */
export function itemsRefused(error: unknown): boolean {
	const status = error instanceof NodeApiError ? (error.httpCode ?? '') : '';
	return /^4\d\d$/.test(status) && status !== '401' && status !== '429';
}

/**
 * Runs `work` on every group; it resolves to whether one of the group's items failed. Writes
 * without Continue On Fail go one group after another and stop after a failed item (n8n's item
 * contract: nothing is sent after it); everything else goes side by side, the client keeping
 * at most Requests in Flight on the wire, and without Continue On Fail none starts once a failed
 * one is known (reads already on their way change nothing). Resolves to whether an item failed.
 */
export async function forEachGroup<G>(
	groups: G[],
	how: RunOptions & { writes: boolean },
	work: (group: G) => Promise<boolean>,
): Promise<boolean> {
	if (how.writes && !how.continueOnFail) {
		for (const group of groups) if (await work(group)) return true;
		return false;
	}
	let failed = false;
	await mapInOrder(groups, how.inFlight, async (group) => {
		if (failed && !how.continueOnFail) return;
		if (await work(group)) failed = true;
	});
	return failed;
}

/**
 * Every run's result, in order, with `runs` cut into groups of Items per Request and `work`
 * answering a group's, group after group as forEachGroup goes: the items of a group not started
 * (after a failed item, without Continue On Fail) stay undefined. One Request per Item: one by one.
 */
export async function runGroups<Run>(
	runs: Run[],
	how: RunOptions & { writes: boolean },
	work: (group: Run[]) => Promise<ItemResult[]>,
): Promise<ItemResult[]> {
	const groups = indexGroups(runs.length, how.groupSize);
	const results: ItemResult[][] = groups.map((group) => group.map(() => undefined));
	await forEachGroup([...groups.keys()], how, async (index) => {
		results[index] = await work(groups[index].map((place) => runs[place]));
		return results[index].some((result) => result instanceof Error);
	});
	return results.flat();
}

/**
 * Items that are a request (or a few) each whatever the grouping, such as a listing or an
 * archive: Requests in Flight at once, none started after a failed one without Continue On Fail.
 */
export const forEachItem = async <Input>(
	runs: Array<ItemRun<Input>>,
	how: RunOptions,
	work: (run: ItemRun<Input>) => Promise<INodeExecutionData[]>,
): Promise<ItemResult[]> =>
	await runGroups(runs, { ...how, groupSize: 1, writes: false }, async ([run]) => [
		await work(run).catch((error: Error) => error),
	]);

/** The run of an operation whose items are a request each (a listing): `execute` per item, as forEachItem. */
export const eachItem = <Input>(
	execute: (this: IExecuteFunctions, run: ItemRun<Input>) => Promise<INodeExecutionData[]>,
) =>
	async function (this: IExecuteFunctions, runs: Array<ItemRun<Input>>, how: RunOptions) {
		return await forEachItem(runs, how, (one) => execute.call(this, one));
	};

/** One value an item selects by, in the column it names. */
export interface WantedValue {
	column: string;
	value: FilterValue;
	itemIndex: number;
}

const BY_ID = [{ column: 'id' }];

/** How a row's value and a selected value meet: numbers as numbers (PostgREST compares in the column's type), text exactly. */
const rowKey = (value: unknown) =>
	typeof value === 'number' ? `n:${value}` : `s:${String(value)}`;

/** Rows by their value of `column`, one pass. */
function rowsByKey(rows: IDataObject[], column: string): Map<string, IDataObject[]> {
	const byKey = new Map<string, IDataObject[]>();
	for (const row of rows) {
		const same = byKey.get(rowKey(row[column])) ?? [];
		same.push(row);
		byKey.set(rowKey(row[column]), same);
	}
	return byKey;
}

/** A selected value in its column, as a map key. */
const selectedKey = (column: string, value: FilterValue) => `${column}\u0000${String(value)}`;

const valueKeys = (value: FilterValue) =>
	Number.isFinite(Number(value)) && String(value).trim() !== ''
		? [`s:${String(value)}`, `n:${Number(value)}`]
		: [`s:${String(value)}`];

/**
 * The rows each wanted value names, in the fewest reads: per column, its distinct values in
 * `in.(…)` groups, each read in full (keyset pages). A group the service refuses (a value the
 * column's type refuses fails the whole request) is read again value by value, so that only
 * that value's items get the error.
 */
export async function readValues(
	client: WebsiteExportClient,
	table: Table,
	wanted: WantedValue[],
	how: RunOptions,
): Promise<Array<IDataObject[] | Error>> {
	const found = new Map<string, IDataObject[] | Error>();
	const firstItem = new Map<string, number>();
	const byColumn = new Map<string, FilterValue[]>();
	for (const { column, value, itemIndex } of wanted) {
		const key = selectedKey(column, value);
		if (firstItem.has(key)) continue;
		firstItem.set(key, itemIndex);
		const values = byColumn.get(column) ?? [];
		values.push(value);
		byColumn.set(column, values);
	}
	const reads = [...byColumn].flatMap(([column, values]) =>
		client
			.inGroups(table, column, values, how.groupSize)
			.map((group) => ({ column, values: group })),
	);
	const read = async ({ column, values }: { column: string; values: FilterValue[] }) => {
		const itemIndex = firstItem.get(selectedKey(column, values[0]));
		const query = { filters: [inFilter(column, values)], order: BY_ID };
		const rows = await client.selectAll(table, query, { itemIndex }).catch((e: Error) => e);
		if (rows instanceof Error && values.length > 1 && itemsRefused(rows)) {
			await mapInOrder(values, how.inFlight, (value) => read({ column, values: [value] }));
			return;
		}
		const byKey = rows instanceof Error ? undefined : rowsByKey(rows, column);
		for (const value of values)
			found.set(
				selectedKey(column, value),
				byKey ? valueKeys(value).flatMap((key) => byKey.get(key) ?? []) : (rows as Error),
			);
	};
	await mapInOrder(reads, how.inFlight, read);
	return wanted.map(({ column, value }) => found.get(selectedKey(column, value)) ?? []);
}

const inFilter = (column: string, values: FilterValue[]): Filter => ({
	column,
	operator: 'in',
	value: values,
});

/**
 * Creates: one POST per group of rows, written all or none (one transaction). A refused group
 * is sent again item by item, so that each item gets its one-by-one outcome; a lost one is
 * looked up, never sent again (lostAnswer.ts).
 */
export async function createInGroups<Input>(
	runs: Array<ItemRun<Input>>,
	table: Table,
	insertOf: (run: ItemRun<Input>) => InsertRequest,
	how: RunOptions,
): Promise<ItemResult[]> {
	const created = new Array<ItemResult>(runs.length);
	const writes = { ...how, writes: true };
	const insert = async (indexes: number[]): Promise<boolean> => {
		const result = await runs[0].client.insertMany(
			table,
			indexes.map((index) => insertOf(runs[index])),
		);
		if ('refused' in result && indexes.length > 1 && itemsRefused(result.refused))
			return await forEachGroup(
				indexes.map((index) => [index]),
				writes,
				insert,
			);
		// Refused: nothing was written, and without Continue On Fail the first item stops the run.
		const reached = 'rows' in result || how.continueOnFail ? indexes : indexes.slice(0, 1);
		const rows =
			'rows' in result
				? result.rows
				: reached.map((index) =>
						errorForItem(result.refused.node, result.refused, runs[index].itemIndex),
					);
		reached.forEach((index, place) => {
			const row = rows[place];
			created[index] = row instanceof Error ? row : [{ json: row }];
		});
		return rows.some((row) => row instanceof Error);
	};
	await forEachGroup(indexGroups(runs.length, how.groupSize), writes, insert);
	return created;
}

/** What a group's requests created for the items after its first failed one (see stopAtFailure). */
export interface CreatedTogether {
	jobs?: number[];
	options?: number[];
	/** Jobs whose options were sent, deleted first by their job: an answer may not have told their ids. */
	optionsOf?: number[];
	/** The items whose rows the same request may have created, though no answer said which. */
	unread?: { table: Table; itemIndexes: number[] };
}

/**
 * Without Continue On Fail a run stops at its first failed item, as one by one would; grouped,
 * the items after it in its group were sent with it: what was created for them (`together`) is
 * deleted again, and the item's error says so, and names the items whose rows no answer told.
 */
export async function stopAtFailure(
	runs: ItemRun[],
	results: ItemResult[],
	together: (failed: number) => CreatedTogether,
): Promise<ItemResult[]> {
	const failed = results.findIndex((result) => result instanceof Error);
	if (failed < 0) return results;
	const { client, itemIndex } = runs[failed];
	const { jobs = [], options = [], optionsOf = [], unread } = together(failed);
	// Options first: the service keeps a job an option names (a job left is named below).
	await deleteAll(client, 'options', optionsOf, 'job_id');
	const left = [
		...(await deleteAll(client, 'options', options)),
		...(await deleteAll(client, 'jobs', jobs)),
	];
	const [table, ids] = jobs.length > 0 ? ['jobs', jobs] : ['options', options];
	const notes = [
		ids.length > 0 && left.length === 0
			? `The ${table} created together for the items after it (IDs ${ids.join(', ')}) were deleted again.`
			: '',
		left.length > 0
			? `The ${table} created together for the items after it could not all be deleted again: delete ${left.join(', ')}.`
			: '',
		unread?.itemIndexes.length
			? `The same request carried the ${unread.table} of ${unread.itemIndexes.map((index) => `[item ${index}]`).join(', ')}, and no answer said whether it created them: look for them with ${unread.table === 'jobs' ? 'Job' : 'Option'} → Get Many before running those items again.`
			: '',
	].filter(Boolean);
	const error = results[failed] as Error;
	const stopped = notes.length
		? errorForItem(client.node, error, itemIndex, { note: notes.join(' ') })
		: error;
	return results.map((result, index) =>
		index < failed ? result : index === failed ? stopped : undefined,
	);
}

/** Of the items after `failed`, the ids of the records `results` hold and the items that failed. */
export function laterResults(runs: ItemRun[], results: ItemResult[], failed: number) {
	const ids: number[] = [];
	const failedItems: number[] = [];
	for (let index = failed + 1; index < results.length; index++) {
		const result = results[index];
		if (result instanceof Error) failedItems.push(runs[index].itemIndex);
		if (Array.isArray(result)) ids.push(result[0].json.id as number);
	}
	return { ids, failedItems };
}

/** Deletes the records whose `column` is one of `values`, in groups within a request line; resolves to those left, named for the message. */
async function deleteAll(
	client: WebsiteExportClient,
	table: Table,
	values: number[],
	column = 'id',
) {
	const deleted = new Set<number>();
	for (const group of client.inGroups(table, column, values, MAX_GROUP_SIZE))
		for (const value of await client.removeByIds(table, group, {}, column).catch(() => []))
			deleted.add(value);
	const how =
		table === 'jobs' ? 'Option → Delete (its options) and Job → Delete' : 'Option → Delete';
	return values
		.filter((value) => !deleted.has(value))
		.map((value) => `${table.slice(0, -1)} ${value} with ${how}`);
}
