// Why: Get, Update, Delete act on the one record Select By names: read in groups, written in waves.
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { collection } from '../../shared/collection';
import type { Table } from '../../shared/constants';
import { forEachGroup, groupedExecute, itemsRefused, readValues } from './groups';
import { shownFor } from './resourceDescription';
import { readSelection, selectByProperties, type Selection } from './selectBy';
import type { ItemResult, ItemTask, Operation, Resource, RunSettings } from './types';

/**
 * The one record of an item's read, or its error: the read's own, or "not found" / "ambiguous".
 * Under row-level security a record of another account is invisible, so "not found" covers both
 * cases; a field value shared by several records is refused rather than guessed.
 */
function singleRecord(
	node: INode,
	rows: IDataObject[] | Error,
	selection: Selection,
	itemIndex: number,
): IDataObject | Error {
	if (rows instanceof Error) return rows;
	if (rows.length === 1) return rows[0];
	const missing = rows.length === 0;
	return new NodeApiError(
		node,
		{ message: missing ? 'not found' : 'ambiguous' },
		{
			message: missing
				? `No ${selection.label} was found`
				: `${rows.length} records match the ${selection.label}`,
			description: missing
				? 'It does not exist, or it belongs to another account (the service only shows your own records).'
				: 'Select By must identify exactly one record: use the ID, or a field whose value is unique.',
			httpCode: missing ? '404' : '409',
			itemIndex,
		},
	);
}

/** What an item reads: the value of the one column its selection filters. */
const wantedValue = (
	{ itemIndex }: ItemTask,
	{ filters: [{ column, value }], field }: Selection,
) => ({
	column,
	value: value as string | number,
	itemIndex,
	field,
});

/**
 * The one record each selection names, or the item's error, read in groups of values
 * (groups.ts).
 */
export async function readSelected<Input>(
	ctx: IExecuteFunctions,
	tasks: Array<ItemTask<Input>>,
	table: Table,
	selectionFor: (input: Input) => Selection,
	settings: RunSettings,
): Promise<Array<IDataObject | Error>> {
	const wanted = tasks.map((task) => wantedValue(task, selectionFor(task.input)));
	const found = await readValues(tasks[0].client, table, wanted, settings);
	return tasks.map(({ input, itemIndex }, index) =>
		singleRecord(ctx.getNode(), found[index], selectionFor(input), itemIndex),
	);
}

/** Get: the selected record, as stored, then as `present` shows it (a download with its expiry). */
export function getOperation(
	resource: Resource,
	present: (this: IExecuteFunctions, row: IDataObject, task: ItemTask) => IDataObject = (row) =>
		row,
): Operation<Selection> {
	return {
		description: shownFor(resource, 'get', selectByProperties(resource)),
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		// The items of one group (Items per Request), read together.
		execute: groupedExecute(false, async function (tasks, settings) {
			const found = await readSelected(this, tasks, `${resource}s`, (input) => input, settings);
			return tasks.map((task, index) => {
				const row = found[index];
				if (row instanceof Error) return row;
				try {
					return [{ json: present.call(this, row, task) }];
				} catch (error) {
					return error as Error; // e.g. a created_at the node cannot read
				}
			});
		}),
	};
}

/** An item of Update (the fields to set) or Delete (no patch). */
interface SelectedPatch {
	selection: Selection;
	patch?: IDataObject;
}

/** Delete: removes the selected record and returns it as it was, marked `deleted: true`. */
export function deleteOperation(resource: Resource): Operation<SelectedPatch> {
	return {
		description: shownFor(resource, 'delete', selectByProperties(resource)),
		prepare(itemIndex) {
			return { selection: readSelection.call(this, resource, itemIndex) };
		},
		execute: async (tasks, settings) => await writeSelected(tasks, `${resource}s`, settings),
	};
}

const NOTHING_TO_UPDATE = 'Nothing to update: add at least one field under Update Fields';

/**
 * Update: the fields under Update Fields (`fields`), read and validated by `readPatch`, applied
 * to the selected record; returns the record as stored.
 */
export function updateOperation(
	resource: Resource,
	fields: INodeProperties[],
	readPatch: (this: IExecuteFunctions, fields: IDataObject, itemIndex: number) => IDataObject,
): Operation<SelectedPatch> {
	const updateFields = collection('Update Fields', 'updateFields', 'Add Field', fields);
	return {
		description: shownFor(resource, 'update', [...selectByProperties(resource), updateFields]),
		prepare(itemIndex) {
			const values = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
			const patch = readPatch.call(this, values, itemIndex);
			// An empty PATCH would be a request that changes nothing: an input error, caught before sending.
			if (Object.values(patch).every((value) => value === undefined))
				throw new NodeOperationError(this.getNode(), NOTHING_TO_UPDATE, { itemIndex });
			return { selection: readSelection.call(this, resource, itemIndex), patch };
		},
		execute: async (tasks, settings) => await writeSelected(tasks, `${resource}s`, settings),
	};
}

/** Where a run of Update or Delete stands. */
interface WriteState {
	tasks: Array<ItemTask<SelectedPatch>>;
	table: Table;
	settings: RunSettings;
	/** Each item's read (its rows or its error), and the wave it was made in. */
	reads: Array<{ rows: IDataObject[] | Error; wave: number } | undefined>;
	/**
	 * The last wave that wrote a record (by id) or set a column (by name):
	 * a read before it may be stale.
	 */
	changedIn: Map<unknown, number>;
	results: ItemResult[];
}

/** A record an item of a wave writes, as read. */
type Target = { index: number; record: IDataObject };

/**
 * Update or Delete, each item's result as one by one gives it. Items go in waves: a wave ends
 * before an item whose read an earlier item of the wave could change (it matched a record that
 * one writes, or it selects by a column that one sets), so that every read sees the writes of
 * the items before it. Stale reads are read again only as far ahead as twice the last wave, so
 * that items cut one wave each cost a read and a write each, not a read of all that follow.
 */
async function writeSelected(
	tasks: Array<ItemTask<SelectedPatch>>,
	table: Table,
	settings: RunSettings,
): Promise<ItemResult[]> {
	const results = new Array<ItemResult>(tasks.length);
	const state: WriteState = { tasks, table, settings, reads: [], changedIn: new Map(), results };
	// Without Continue On Fail reads go at most Requests in Flight groups ahead of the item being
	// written: after a failed item, no more is read than one by one with as many reads in flight.
	const window = settings.continueOnFail ? tasks.length : settings.inFlight * settings.groupSize;
	for (let start = 0, wave = 0, ahead = window; start < tasks.length; wave++) {
		await readStale(state, start, Math.min(tasks.length, start + ahead), wave);
		const { end, targets, stopped } = planWave(state, start, wave);
		const failed = await writeWave(state, targets);
		if (!settings.continueOnFail && (stopped || failed)) break;
		ahead = Math.min(window, 2 * (end - start));
		start = end;
	}
	return results;
}

/**
 * Whether an item's read still holds: made, and no wave since wrote its records or set its column
 * (an error holds).
 */
function readStillHolds({ tasks, reads, changedIn }: WriteState, index: number): boolean {
	const read = reads[index];
	if (read === undefined || read.rows instanceof Error) return read !== undefined;
	const since = (key: unknown) => (changedIn.get(key) ?? -1) >= read.wave;
	const column = tasks[index].input.selection.filters[0].column;
	return !since(column) && !read.rows.some((row) => since(row.id));
}

/** Reads, in groups, the selections of the items `start … end-1` whose read does not hold. */
async function readStale(state: WriteState, start: number, end: number, wave: number) {
	const { tasks, table, settings, reads } = state;
	const indexes: number[] = [];
	for (let index = start; index < end; index++)
		if (!readStillHolds(state, index)) indexes.push(index);
	const wanted = indexes.map((index) => wantedValue(tasks[index], tasks[index].input.selection));
	const found = await readValues(tasks[0].client, table, wanted, settings);
	// One Request per Item: a failed read is the first item's that names its value; the items after
	// it with the same value read it again in turn, as one by one does (their read may succeed).
	const named = new Set<string>();
	indexes.forEach((index, position) => {
		const key = JSON.stringify([wanted[position].column, wanted[position].value]);
		const shared = named.has(key);
		named.add(key);
		if (!(shared && settings.groupSize === 1 && found[position] instanceof Error))
			reads[index] = { rows: found[position], wave };
	});
}

/**
 * The wave from `start`: its items' records (or their not-found, ambiguous or read errors), up to
 * an item whose read a write of the wave may change; what the wave writes is noted in changedIn.
 */
function planWave(state: WriteState, start: number, wave: number) {
	const { tasks, settings, reads, results, changedIn } = state;
	const targets: Target[] = [];
	for (let index = start; index < tasks.length; index++) {
		// Not read yet (beyond the reads ahead), or changed by a write of this wave.
		if (!readStillHolds(state, index)) return { end: index, targets, stopped: false };
		const { client, input, itemIndex } = tasks[index];
		const record = singleRecord(client.node, reads[index]!.rows, input.selection, itemIndex);
		if (record instanceof Error) {
			results[index] = record;
			// Without Continue On Fail nothing is sent after a failed item.
			if (!settings.continueOnFail) return { end: index + 1, targets, stopped: true };
			continue;
		}
		targets.push({ index, record });
		changedIn.set(record.id, wave);
		const { patch = {} } = input;
		for (const key of Object.keys(patch)) if (patch[key] !== undefined) changedIn.set(key, wave);
	}
	return { end: tasks.length, targets, stopped: false };
}

/**
 * The wave's writes in groups of ids: with Continue On Fail, all items of the same patch
 * together, side by side (no item of a wave changes another's); without it, consecutive items of
 * the same patch, one group after another, none after a failed item. Resolves to whether an item
 * failed.
 */
async function writeWave(state: WriteState, targets: Target[]): Promise<boolean> {
	const { tasks, table, settings } = state;
	const patchOf = (position: number) => JSON.stringify(tasks[targets[position].index].input.patch);
	const samePatch = new Map<unknown, Target[]>();
	let stretch = 0;
	targets.forEach((target, position) => {
		if (position > 0 && patchOf(position) !== patchOf(position - 1)) stretch++;
		const key = settings.continueOnFail ? patchOf(position) : stretch;
		if (!samePatch.get(key)?.push(target)) samePatch.set(key, [target]);
	});
	const groups = [...samePatch.values()].flatMap((same) =>
		tasks[0].client.inGroups(
			table,
			'id',
			same,
			settings.groupSize,
			({ record }) => record.id as number,
		),
	);
	const send = async (group: Target[]) => await writeGroup(state, group, send);
	return await forEachGroup(groups, { ...settings, writes: true }, send);
}

/**
 * Writes `records` (as read) in one request:
 * the rows as updated, or as deleted, marked `deleted: true`.
 */
async function writeRecords(
	{ client, itemIndex, input }: ItemTask<SelectedPatch>,
	table: Table,
	records: IDataObject[],
): Promise<IDataObject[]> {
	const ids = records.map(({ id }) => id as number);
	const inIds = { column: 'id', operator: 'in' as const, value: ids };
	if (input.patch) return await client.update(table, [inIds], input.patch, { itemIndex });
	const deleted = new Set(await client.removeByIds(table, ids, { itemIndex }));
	return records
		.filter(({ id }) => deleted.has(id as number))
		.map((row) => ({ deleted: true, ...row }));
}

/**
 * One request for `targets`; a refused one is sent again item by item (`resend`). Resolves to
 * whether an item failed.
 */
async function writeGroup(
	{ tasks, table, settings, results }: WriteState,
	targets: Target[],
	resend: (targets: Target[]) => Promise<boolean>,
): Promise<boolean> {
	const records = targets.map(({ record }) => record);
	const written = await writeRecords(tasks[targets[0].index], table, records).catch(
		(error: Error) => error,
	);
	if (written instanceof Error && targets.length > 1 && itemsRefused(written))
		return await forEachGroup(
			targets.map((target) => [target]),
			{ ...settings, writes: true },
			resend,
		);
	const byId = new Map(written instanceof Error ? [] : written.map((row) => [row.id, row]));
	for (const { index, record } of targets) {
		const { client, input, itemIndex } = tasks[index];
		const row = byId.get(record.id);
		// Not written: gone since it was read (another client deleted it), as one by one would meet it.
		results[index] =
			written instanceof Error
				? written
				: row
					? [{ json: row }]
					: (singleRecord(client.node, [], input.selection, itemIndex) as Error);
	}
	return targets.some(({ index }) => results[index] instanceof Error);
}
