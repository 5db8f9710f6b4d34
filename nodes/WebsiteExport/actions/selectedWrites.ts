// Why: Update and Delete for any number of items with one-by-one results: the selected records read in groups, the items cut into waves so that every read sees the earlier items' writes, then each wave written in groups of ids.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import { forEachGroup, itemsRefused, readValues } from './groups';
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

/** Where a run of Update or Delete stands: each item's read, the wave it was read in, and its result. */
interface WriteRun<Input> {
	runs: Array<ItemRun<Input>>;
	write: SelectedWrite<Input>;
	how: RunOptions;
	reads: Array<IDataObject[] | Error | undefined>;
	readIn: number[];
	/** The last wave that wrote a record (by id) or set a column: a read made before it is stale. */
	writtenIn: Map<number, number>;
	setIn: Map<string, number>;
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
 * the items before it. Stale reads are read again only as far ahead as twice the last wave, so
 * that items cut one wave each cost a read and a write each, not a read of all that follow.
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
		readIn: new Array(runs.length),
		writtenIn: new Map(),
		setIn: new Map(),
		results: new Array(runs.length),
	};
	// Without Continue On Fail reads go at most Requests in Flight groups ahead of the item being
	// written: after a failed item, no more is read than one by one with as many reads in flight.
	const window = how.continueOnFail ? runs.length : how.inFlight * how.groupSize;
	let ahead = window;
	for (let start = 0, waveNumber = 0; start < runs.length; waveNumber++) {
		await readStale(state, start, Math.min(runs.length, start + ahead), waveNumber);
		const wave = planWave.call(this, state, start);
		const failed = await writeWave.call(this, state, wave);
		if (!how.continueOnFail && (wave.stopped || failed)) break;
		for (const id of wave.ids) state.writtenIn.set(id, waveNumber);
		for (const column of wave.columns) state.setIn.set(column, waveNumber);
		ahead = Math.min(window, 2 * (wave.end - start));
		start = wave.end;
	}
	return state.results;
}

const columnOf = <Input>(state: WriteRun<Input>, index: number) =>
	state.write.selectionOf(state.runs[index].input).filters[0].column;

/** Whether an item's read still holds: made, and no wave since wrote its records or set its column. */
function readHolds<Input>(state: WriteRun<Input>, index: number): boolean {
	const [rows, readIn] = [state.reads[index], state.readIn[index]];
	if (rows === undefined || rows instanceof Error) return rows !== undefined;
	if ((state.setIn.get(columnOf(state, index)) ?? -1) >= readIn) return false;
	return !rows.some((row) => (state.writtenIn.get(row.id as number) ?? -1) >= readIn);
}

const touches = (rows: IDataObject[], ids: Set<number>) =>
	rows.some((row) => ids.has(row.id as number));

/** Reads, in groups, the selections of the items `start … end-1` whose read does not hold. */
async function readStale<Input>(
	state: WriteRun<Input>,
	start: number,
	end: number,
	waveNumber: number,
): Promise<void> {
	const { runs, write, reads, readIn } = state;
	const indexes: number[] = [];
	for (let index = start; index < end; index++) if (!readHolds(state, index)) indexes.push(index);
	const wanted = indexes.map((index) => {
		const [{ column, value }] = write.selectionOf(runs[index].input).filters;
		return { column, value: value as string | number, itemIndex: runs[index].itemIndex };
	});
	const found = await readValues(runs[0].client, write.table, wanted, state.how);
	indexes.forEach((index, place) => {
		reads[index] = found[place];
		readIn[index] = waveNumber;
	});
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
		// Not read yet (beyond the reads ahead), or a write of this wave may change what it reads.
		const changed =
			!readHolds(state, index) ||
			(!(rows instanceof Error) &&
				(wave.columns.has(columnOf(state, index)) || touches(rows, wave.ids)));
		if (changed) {
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
 * The wave's writes in groups of ids: with Continue On Fail, all items of the same key together,
 * side by side (no item of a wave changes another's); without it, consecutive items of the same
 * key, one group after another, none after a failed item. Resolves to whether an item failed.
 */
async function writeWave<Input>(
	this: IExecuteFunctions,
	state: WriteRun<Input>,
	wave: Wave,
): Promise<boolean> {
	const { runs, write, how, reads } = state;
	const keyOf = ({ index }: Target) => write.keyOf(runs[index].input);
	const sameKey = how.continueOnFail ? byKey(wave.targets, keyOf) : keyRuns(wave.targets, keyOf);
	const before = new Map<number, IDataObject>();
	for (const { index, id } of wave.targets)
		before.set(id, (reads[index] as IDataObject[]).find((row) => row.id === id)!);
	const groups = sameKey.flatMap((targets) =>
		runs[0].client.inGroups(write.table, 'id', targets, how.groupSize, ({ id }) => id),
	);
	const send = (targets: Target[]) => writeGroup.call(this, state, targets, before, send);
	return await forEachGroup(groups, { ...how, writes: true }, send);
}

type Target = Wave['targets'][number];

/** Targets of the same key together, in the order of their first. */
function byKey<T>(targets: T[], keyOf: (target: T) => string): T[][] {
	const groups = new Map<string, T[]>();
	for (const target of targets) {
		const group = groups.get(keyOf(target));
		if (group) group.push(target);
		else groups.set(keyOf(target), [target]);
	}
	return [...groups.values()];
}

/** Consecutive targets of the same key together. */
function keyRuns<T>(targets: T[], keyOf: (target: T) => string): T[][] {
	const runs: T[][] = [];
	let lastKey: string | undefined;
	for (const target of targets) {
		const key = keyOf(target);
		if (runs.length > 0 && key === lastKey) runs.at(-1)!.push(target);
		else runs.push([target]);
		lastKey = key;
	}
	return runs;
}

/** One request for `targets`; a refused one is sent again item by item (`resend`). Resolves to whether an item failed. */
async function writeGroup<Input>(
	this: IExecuteFunctions,
	{ runs, write, how, results }: WriteRun<Input>,
	targets: Target[],
	before: Map<number, IDataObject>,
	resend: (targets: Target[]) => Promise<boolean>,
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
