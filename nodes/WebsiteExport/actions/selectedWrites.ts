// Why: Update and Delete for any number of items with one-by-one results: the selected records read in groups, the items cut into waves so that every read sees the earlier items' writes, then each wave written in groups of ids.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import { forEachGroup, groupsWithin, itemsRefused, readValues } from './groups';
import type { Selection } from './selectBy';
import type { ItemResult, ItemRun, RunOptions } from './types';

/** How one kind of write is done to many records. */
export interface SelectedWrite<Input> {
	table: Table;
	selectionOf(input: Input): Selection;
	/** The columns the write sets (an update's fields): a later item that selects by one waits for it. */
	columnsSet(input: Input): string[];
	/** Items with the same key may share a request (an update: the same fields). */
	keyOf(input: Input): string;
	/** Writes the records `ids` (as read: `before`) in one request; resolves to each written record's output, by id. */
	writeIds(
		run: ItemRun<Input>,
		ids: number[],
		before: Map<number, IDataObject>,
	): Promise<Map<number, IDataObject>>;
	/** The one record of an item's selection, or its not-found / ambiguous error (selectedRecord.ts). */
	requireOne(this: IExecuteFunctions, rows: IDataObject[], run: ItemRun<Input>): IDataObject;
}

/** Where a run of Update or Delete stands: each item's read (until a write may change it) and result. */
interface WriteRun<Input> {
	runs: Array<ItemRun<Input>>;
	write: SelectedWrite<Input>;
	how: RunOptions;
	reads: Array<IDataObject[] | Error | undefined>;
	results: ItemResult[];
}

/** A wave: consecutive items that no write of another of them can change, and the record each writes. */
interface Wave {
	end: number;
	targets: Array<{ index: number; id: number }>;
	/** Record ids written and columns set by the wave: the reads they touch are read again. */
	ids: Set<number>;
	columns: Set<string>;
	/** Without Continue On Fail, an item of the wave failed: nothing after it is sent. */
	stopped: boolean;
}

/**
 * Update or Delete, each item's result as one by one gives it. Items go in waves: a wave ends
 * before an item whose read an earlier item of the wave could change (it matched a record that
 * one writes, or it selects by a column that one sets), so that every read sees the writes of
 * the items before it.
 */
export async function writeSelected<Input>(
	this: IExecuteFunctions,
	runs: Array<ItemRun<Input>>,
	write: SelectedWrite<Input>,
	how: RunOptions,
): Promise<ItemResult[]> {
	const state: WriteRun<Input> = {
		runs,
		write,
		how,
		reads: new Array(runs.length),
		results: new Array(runs.length),
	};
	for (let start = 0; start < runs.length; ) {
		await readUnread(state, start);
		const wave = planWave.call(this, state, start);
		const failed = await writeWave.call(this, state, wave);
		if (!how.continueOnFail && (wave.stopped || failed)) break;
		for (let index = wave.end; index < runs.length; index++) {
			const rows = state.reads[index];
			const column = write.selectionOf(runs[index].input).filters[0].column;
			if (Array.isArray(rows) && (wave.columns.has(column) || touches(rows, wave.ids)))
				state.reads[index] = undefined;
		}
		start = wave.end;
	}
	return state.results;
}

const touches = (rows: IDataObject[], ids: Set<number>) =>
	rows.some((row) => ids.has(row.id as number));

/** Reads the selections of the items from `start` on that have no read still valid, in groups. */
async function readUnread<Input>(state: WriteRun<Input>, start: number): Promise<void> {
	const { runs, write, reads } = state;
	const indexes = runs.map((_, index) => index).filter((i) => i >= start && !reads[i]);
	const wanted = indexes.map((index) => {
		const [{ column, value }] = write.selectionOf(runs[index].input).filters;
		return { column, value: value as string | number, itemIndex: runs[index].itemIndex };
	});
	const found = await readValues(runs[0].client, write.table, wanted, state.how);
	indexes.forEach((index, place) => (reads[index] = found[place]));
}

/** The wave from `start`: its items' records, or their not-found, ambiguous or read errors. */
function planWave<Input>(this: IExecuteFunctions, state: WriteRun<Input>, start: number): Wave {
	const { runs, write, reads, results, how } = state;
	const wave: Wave = {
		end: runs.length,
		targets: [],
		ids: new Set(),
		columns: new Set(),
		stopped: false,
	};
	for (let index = start; index < runs.length; index++) {
		const rows = reads[index] as IDataObject[] | Error;
		const { column } = write.selectionOf(runs[index].input).filters[0];
		if (!(rows instanceof Error) && (wave.columns.has(column) || touches(rows, wave.ids))) {
			wave.end = index;
			break;
		}
		try {
			if (rows instanceof Error) throw rows;
			const id = write.requireOne.call(this, rows, runs[index]).id as number;
			wave.targets.push({ index, id });
			wave.ids.add(id);
			for (const set of write.columnsSet(runs[index].input)) wave.columns.add(set);
		} catch (error) {
			results[index] = error as Error;
			if (!how.continueOnFail) {
				wave.stopped = true;
				wave.end = index + 1;
				break;
			}
		}
	}
	return wave;
}

/**
 * The wave's writes: items of the same key in groups of ids, side by side with Continue On Fail
 * (no item of a wave changes another's); without it, consecutive items of the same key one group
 * after another, none after a failed item. Resolves to whether an item failed.
 */
async function writeWave<Input>(
	this: IExecuteFunctions,
	state: WriteRun<Input>,
	wave: Wave,
): Promise<boolean> {
	const { runs, write, how, reads } = state;
	const sameKeys: Array<typeof wave.targets> = [];
	const byKey = new Map<string, typeof wave.targets>();
	for (const target of wave.targets) {
		const key = write.keyOf(runs[target.index].input);
		const last = sameKeys.at(-1);
		const group = how.continueOnFail
			? byKey.get(key)
			: last && write.keyOf(runs[last[0].index].input) === key
				? last
				: undefined;
		if (group) group.push(target);
		else {
			sameKeys.push([target]);
			byKey.set(key, sameKeys.at(-1)!);
		}
	}
	const before = new Map<number, IDataObject>();
	for (const { index, id } of wave.targets)
		before.set(id, (reads[index] as IDataObject[]).find((row) => row.id === id)!);
	const groups = sameKeys.flatMap((targets) =>
		groupsWithin(targets, how.groupSize, (group) =>
			runs[0].client.listLineBytes(write.table, {
				column: 'id',
				operator: 'in',
				value: group.map(({ id }) => id),
			}),
		),
	);
	const send = (targets: typeof wave.targets) =>
		writeGroup.call(this, state, targets, before, send);
	return await forEachGroup(groups, { ...how, writes: true }, send);
}

/** One request for `targets`; a refused one is sent again item by item (`resend`). Resolves to whether an item failed. */
async function writeGroup<Input>(
	this: IExecuteFunctions,
	{ runs, write, how, results }: WriteRun<Input>,
	targets: Array<{ index: number; id: number }>,
	before: Map<number, IDataObject>,
	resend: (targets: Array<{ index: number; id: number }>) => Promise<boolean>,
): Promise<boolean> {
	const ids = targets.map(({ id }) => id);
	let written: Map<number, IDataObject>;
	try {
		written = await write.writeIds(runs[targets[0].index], ids, before);
	} catch (error) {
		if (targets.length > 1 && itemsRefused(error))
			return await forEachGroup(
				targets.map((target) => [target]),
				{ ...how, writes: true },
				resend,
			);
		for (const { index } of targets) results[index] = error as Error;
		return true;
	}
	let failed = false;
	for (const { index, id } of targets) {
		const row = written.get(id);
		if (row) results[index] = [{ json: row }];
		else {
			// Gone since it was read (another client deleted it): as one by one would meet it.
			results[index] = notFound.call(this, write, runs[index]);
			failed = true;
		}
	}
	return failed;
}

/** The item's "not found" error. */
function notFound<Input>(
	this: IExecuteFunctions,
	write: SelectedWrite<Input>,
	run: ItemRun<Input>,
) {
	try {
		write.requireOne.call(this, [], run);
	} catch (error) {
		return error as Error;
	}
	return new Error(`The ${write.table} record was not found`);
}
