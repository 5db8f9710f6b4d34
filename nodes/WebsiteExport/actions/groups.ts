// Why: how a run's items become requests in groups, side by side or one at a time.
// Values and rows are cut into groups (Items per Request, request lines within the 8 KiB a gateway
// takes), and a refused group is sent again item by item.
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
import { MAX_GROUP_SIZE } from './runSettings';
import type { ItemResult, ItemTask, Operation, RunSettings } from './types';

/**
 * Runs `work` over `inputs` with at most `limit` promises in flight and returns the results in
 * input order. `work` is expected to settle every input itself; if it throws, no new input is
 * started and, once the ones in flight have settled, the error of the earliest failed input is
 * rethrown: the one a sequential run would have stopped at, whichever failed first in time.
 */
async function mapInOrder<T, R>(
	inputs: readonly T[],
	limit: number,
	work: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	let failure: { error: unknown; index: number } | undefined;
	const lane = async () => {
		while (failure === undefined && next < inputs.length) {
			const index = next++;
			try {
				results[index] = await work(inputs[index], index);
			} catch (error) {
				// Another lane may have failed meanwhile (TypeScript narrows `failure` to undefined here).
				const earlier = failure as { index: number } | undefined;
				if (earlier === undefined || index < earlier.index) failure = { error, index };
			}
		}
	};
	const width = Math.max(1, Math.min(Math.floor(limit) || 1, inputs.length));
	await Promise.all(Array.from({ length: width }, lane));
	if (failure) throw failure.error;
	return results;
}

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
	settings: RunSettings & { writes: boolean },
	work: (group: G) => Promise<boolean>,
): Promise<boolean> {
	if (settings.writes && !settings.continueOnFail) {
		for (const group of groups) if (await work(group)) return true;
		return false;
	}
	let failed = false;
	// Without Continue On Fail group k starts only once every group up to k − inFlight is done,
	// not as soon as any slot is free: a slow group holds back the groups after it, so that when
	// it fails no more than Requests in Flight − 1 groups after it have started (README, Batching).
	const doneUpTo: Array<Promise<unknown>> = [];
	await mapInOrder(groups, settings.inFlight, async (group, index) => {
		let finish = () => {};
		const own = new Promise<void>((resolve) => (finish = resolve));
		doneUpTo[index] = Promise.all([own, doneUpTo[index - 1]]);
		if (!settings.continueOnFail) await doneUpTo[index - settings.inFlight];
		try {
			if (!failed || settings.continueOnFail) failed = (await work(group)) || failed;
		} finally {
			finish();
		}
	});
	return failed;
}

/**
 * Every task's result, in order, with `tasks` cut into groups of Items per Request and `work`
 * answering a group's, group after group as forEachGroup goes: the items of a group not started
 * (after a failed item, without Continue On Fail) stay undefined. One Request per Item: one by one.
 */
export async function runGroups<Task>(
	tasks: Task[],
	settings: RunSettings & { writes: boolean },
	work: (group: Task[]) => Promise<ItemResult[]>,
): Promise<ItemResult[]> {
	const groups = indexGroups(tasks.length, settings.groupSize);
	const results: ItemResult[][] = groups.map((group) => group.map(() => undefined));
	await forEachGroup([...groups.keys()], settings, async (index) => {
		results[index] = await work(groups[index].map((position) => tasks[position]));
		return results[index].some((result) => result instanceof Error);
	});
	return results.flat();
}

/**
 * Items that are a request (or a few) each whatever the grouping, such as a listing or an
 * archive: Requests in Flight at once, none started after a failed one without Continue On Fail.
 */
export const forEachItem = async <Input>(
	tasks: Array<ItemTask<Input>>,
	settings: RunSettings,
	work: (task: ItemTask<Input>) => Promise<INodeExecutionData[]>,
): Promise<ItemResult[]> =>
	await runGroups(tasks, { ...settings, groupSize: 1, writes: false }, async ([task]) => [
		await work(task).catch((error: Error) => error),
	]);

/**
 * The execute of an operation whose items are a request each (a listing): `execute` per item, as
 * forEachItem.
 */
export const requestPerItem = <Input>(
	execute: (this: IExecuteFunctions, task: ItemTask<Input>) => Promise<INodeExecutionData[]>,
) =>
	async function (this: IExecuteFunctions, tasks: Array<ItemTask<Input>>, settings: RunSettings) {
		return await forEachItem(tasks, settings, (one) => execute.call(this, one));
	};

/**
 * The execute of an operation whose items go in groups (Items per Request): `work` per group, as
 * runGroups.
 */
export const groupedExecute = <Input>(
	writes: boolean,
	work: Operation<Input>['execute'],
): Operation<Input>['execute'] =>
	async function (tasks, settings) {
		return await runGroups(tasks, { ...settings, writes }, (group) =>
			work.call(this, group, settings),
		);
	};

/** One value an item selects by, in the column it names. */
export interface WantedValue {
	column: string;
	value: FilterValue;
	itemIndex: number;
	/** The editor's name of the value, for an error that names it (a value too long). */
	field?: string;
}

const BY_ID = [{ column: 'id' }];

/**
 * How a row's value and a selected value meet: numbers as numbers (PostgREST compares in the
 * column's type), text exactly.
 */
const rowKey = (value: unknown) =>
	typeof value === 'number' ? `n:${value}` : `s:${String(value)}`;

const valueKeys = (value: FilterValue) =>
	Number.isFinite(Number(value)) && String(value).trim() !== ''
		? [`s:${String(value)}`, `n:${Number(value)}`]
		: [`s:${String(value)}`];

/** A selected value in its column, as a map key. */
const selectedKey = ({ column, value }: WantedValue) => `${column}\u0000${String(value)}`;

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
	settings: RunSettings,
): Promise<Array<IDataObject[] | Error>> {
	// A value too long for its read's pages is refused for each item that names it, unread.
	const refused = wanted.map((want) =>
		client.pageLinesRefusal(table, readQuery([want]), {
			itemIndex: want.itemIndex,
			...(want.field ? { fields: { [want.column]: want.field } } : {}),
		}),
	);
	// Each distinct value once, read for the first item that names it.
	const distinct = new Map<string, WantedValue>();
	for (const [index, want] of wanted.entries())
		if (!refused[index] && !distinct.has(selectedKey(want))) distinct.set(selectedKey(want), want);
	const reads = [...new Set(wanted.map(({ column }) => column))].flatMap((column) => {
		const values = [...distinct.values()].filter((want) => want.column === column);
		return client.inGroups(table, column, values, settings.groupSize, ({ value }) => value);
	});
	const found = new Map<string, IDataObject[] | Error>();
	const read = async (group: WantedValue[]): Promise<void> => {
		const [{ column, itemIndex }] = group;
		const rows = await client
			.selectAll(table, readQuery(group), { itemIndex })
			.catch((e: Error) => e);
		if (rows instanceof Error && group.length > 1 && itemsRefused(rows)) {
			await mapInOrder(group, settings.inFlight, async (one) => await read([one]));
			return;
		}
		const byKey = new Map<string, IDataObject[]>();
		for (const row of rows instanceof Error ? [] : rows)
			byKey.set(rowKey(row[column]), [...(byKey.get(rowKey(row[column])) ?? []), row]);
		for (const want of group)
			found.set(
				selectedKey(want),
				rows instanceof Error ? rows : valueKeys(want.value).flatMap((key) => byKey.get(key) ?? []),
			);
	};
	await mapInOrder(reads, settings.inFlight, read);
	return wanted.map((want, index) => refused[index] ?? found.get(selectedKey(want)) ?? []);
}

/** The read of a group's values: `in.(…)`, or a value alone as one by one sends it (`eq`). */
function readQuery(group: WantedValue[]): { filters: Filter[]; order: typeof BY_ID } {
	const [{ column }] = group;
	const filter: Filter =
		group.length === 1
			? { column, operator: 'eq', value: group[0].value }
			: { column, operator: 'in', value: group.map(({ value }) => value) };
	return { filters: [filter], order: BY_ID };
}

/**
 * Creates: one POST per group of rows, written all or none (one transaction). A refused group
 * is sent again item by item, so that each item gets its one-by-one outcome; a lost one is
 * looked up, never sent again (lostAnswer.ts).
 */
export async function createInGroups<Input>(
	tasks: Array<ItemTask<Input>>,
	table: Table,
	insertOf: (task: ItemTask<Input>) => InsertRequest,
	settings: RunSettings,
): Promise<ItemResult[]> {
	const created = new Array<ItemResult>(tasks.length);
	const writes = { ...settings, writes: true };
	const insert = async (indexes: number[]): Promise<boolean> => {
		const result = await tasks[0].client.insertMany(
			table,
			indexes.map((index) => insertOf(tasks[index])),
		);
		if ('refused' in result && indexes.length > 1 && itemsRefused(result.refused))
			return await forEachGroup(
				indexes.map((index) => [index]),
				writes,
				insert,
			);
		// Refused: nothing was written, and without Continue On Fail the first item stops the run.
		const reached = 'rows' in result || settings.continueOnFail ? indexes : indexes.slice(0, 1);
		const rows =
			'rows' in result
				? result.rows
				: reached.map((index) =>
						errorForItem(result.refused.node, result.refused, tasks[index].itemIndex),
					);
		reached.forEach((index, position) => {
			const row = rows[position];
			created[index] = row instanceof Error ? row : [{ json: row }];
		});
		return rows.some((row) => row instanceof Error);
	};
	await forEachGroup(indexGroups(tasks.length, settings.groupSize), writes, insert);
	return created;
}

/** What a group's requests created for the items after its first failed one (see stopAtFailure). */
export interface CreatedTogether {
	jobs?: number[];
	options?: number[];
	/**
	 * Jobs whose options were sent, deleted first by their job: an answer may not have told their
	 * ids.
	 */
	optionsOf?: number[];
	/** The items whose rows the same request may have created, though no answer said which. */
	unread?: { table: Table; itemIndexes: number[] };
	/** Rows a lookup found after a lost answer (e.g. `job 12`): never deleted, maybe others'. */
	found?: string[];
}

/** Items as messages name them: `[item 1], [item 2]`. */
const itemList = (indexes: number[]) => indexes.map((index) => `[item ${index}]`).join(', ');

/**
 * Without Continue On Fail a run stops at its first failed item, as one by one would; grouped,
 * the items after it in its group were sent with it: what was created for them (`together`) is
 * deleted again, and the item's error says so, and names the items whose rows no answer told.
 */
export async function stopAtFailure(
	tasks: ItemTask[],
	results: ItemResult[],
	together: (failed: number) => CreatedTogether,
): Promise<ItemResult[]> {
	const failed = results.findIndex((result) => result instanceof Error);
	if (failed < 0) return results;
	const { client, itemIndex } = tasks[failed];
	const { jobs = [], options = [], optionsOf = [], unread, found = [] } = together(failed);
	// Options first: the service keeps a job an option names (a job left is named below).
	await deleteAll(client, 'options', optionsOf, 'job_id');
	const left = [
		...(await deleteAll(client, 'options', options)),
		...(await deleteAll(client, 'jobs', jobs)),
	];
	const [table, ids] = jobs.length > 0 ? ['jobs', jobs] : ['options', options];
	const createdWith = `The ${table} created together for the items after it`;
	const notes = [
		ids.length > 0 && left.length === 0
			? `${createdWith} (IDs ${ids.join(', ')}) were deleted again.`
			: '',
		left.length > 0
			? `${createdWith} could not all be deleted again: delete ${left.join(', ')}.`
			: '',
		found.length > 0
			? `Found by a lookup after a lost answer, and so left (the node cannot tell them from identical rows another client created at the time): ${found.join(', ')}; delete them if they are those items'.`
			: '',
		unread?.itemIndexes.length
			? `The same request carried the ${unread.table} of ${itemList(unread.itemIndexes)}, and no answer said whether it created them: look for them with ${unread.table === 'jobs' ? 'Job' : 'Option'} → Get Many before running those items again.`
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

/**
 * Of the items after `failed`, the ids of the records `results` hold from an answer, those a
 * lookup found (`recovered`), and the items that failed.
 */
export function resultsAfterFailure(tasks: ItemTask[], results: ItemResult[], failed: number) {
	const ids: number[] = [];
	const recovered: number[] = [];
	const failedItems: number[] = [];
	for (let index = failed + 1; index < results.length; index++) {
		const result = results[index];
		if (result instanceof Error) failedItems.push(tasks[index].itemIndex);
		if (!Array.isArray(result)) continue;
		const { id, recovered: found } = result[0].json;
		(found === true ? recovered : ids).push(id as number);
	}
	return { ids, recovered, failedItems };
}

/**
 * Deletes the records whose `column` is one of `values`, in groups within a request line;
 * resolves to those left, named for the message.
 */
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
	const deleteWith =
		table === 'jobs' ? 'Option → Delete (its options) and Job → Delete' : 'Option → Delete';
	return values
		.filter((value) => !deleted.has(value))
		.map((value) => `${table.slice(0, -1)} ${value} with ${deleteWith}`);
}
