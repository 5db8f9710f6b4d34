// Why: Update and Delete for many items: one read per chunk finds every selected record (missing and ambiguous ones before any write), then one request per chunk of ids.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import { idChunks, readSelections } from './batching';
import { mapInOrder } from './mapInOrder';
import type { Selection } from './selectBy';
import type { BatchOptions, ItemResult, ItemRun } from './types';

/** How one kind of write is done for many records, and for one item on its own. */
export interface SelectedWrite<Input> {
	table: Table;
	selectionOf(input: Input): Selection;
	/** Items with the same key go in one request (an update: the same fields). */
	keyOf(input: Input): string;
	/** A record is written for one item only: a second delete of it finds nothing. */
	once: boolean;
	/** Writes the records with `ids` (as read: `before`) in one request; resolves to the output record of each id written. */
	writeIds(
		run: ItemRun<Input>,
		ids: number[],
		before: Map<number, IDataObject>,
	): Promise<Map<number, IDataObject>>;
	/** The item on its own, as one request per item does it (after a refused chunk). */
	one(this: IExecuteFunctions, run: ItemRun<Input>): Promise<IDataObject>;
	/** The one record of an item's selection, or its not-found / ambiguous error (selectedRecord.ts). */
	requireOne(this: IExecuteFunctions, rows: IDataObject[], run: ItemRun<Input>): IDataObject;
}

/** The one record each item selects, or its own error, in one read per chunk of selected values. */
async function selectedRecords<Input>(
	this: IExecuteFunctions,
	runs: Array<ItemRun<Input>>,
	write: SelectedWrite<Input>,
	inFlight: number,
): Promise<Array<IDataObject | Error>> {
	const selections = runs.map(({ input, itemIndex }) => ({
		selection: write.selectionOf(input),
		itemIndex,
	}));
	const found = await readSelections(runs[0].client, write.table, selections, inFlight);
	return found.map((rows, index) => {
		if (rows instanceof Error) return rows;
		try {
			// As one read of its own reports it: with `limit=2`, "2 records match".
			return write.requireOne.call(this, rows.slice(0, 2), runs[index]);
		} catch (error) {
			return error as Error;
		}
	});
}

/**
 * Update or Delete for many items, each result as one request per item gives it. Without
 * Continue On Fail only the items before the first failing one are written, and only when they
 * all take the same request; for one item, or items that differ, undefined: the router runs them
 * one by one.
 */
export async function writeSelected<Input>(
	this: IExecuteFunctions,
	runs: Array<ItemRun<Input>>,
	write: SelectedWrite<Input>,
	{ continueOnFail, inFlight }: BatchOptions,
): Promise<ItemResult[] | undefined> {
	const keyOf = (index: number) => write.keyOf(runs[index].input);
	// One item: its own request is already the fewest (a read first would add one).
	if (runs.length < 2) return undefined;
	if (!continueOnFail && new Set(runs.map((_, index) => keyOf(index))).size > 1) return undefined;
	const records = await selectedRecords.call(this, runs, write, inFlight);
	const firstFailure = records.findIndex((record) => record instanceof Error);
	const stop = continueOnFail || firstFailure < 0 ? runs.length : firstFailure;
	const results: ItemResult[] = records.map((record) =>
		record instanceof Error ? record : undefined,
	);
	const groups = new Map<string, number[]>();
	for (let index = 0; index < stop; index++)
		if (!(records[index] instanceof Error))
			groups.set(keyOf(index), [...(groups.get(keyOf(index)) ?? []), index]);
	const before = new Map<number, IDataObject>();
	for (const record of records)
		if (!(record instanceof Error)) before.set(record.id as number, record);
	const batch = { runs, write, results, before, continueOnFail, halted: false };
	for (const indexes of groups.values()) {
		const idOf = (index: number) => (records[index] as IDataObject).id as number;
		const { client } = runs[indexes[0]];
		const chunks = idChunks(client, write.table, indexes.map(idOf)).map((ids) =>
			indexes.filter((index) => ids.includes(idOf(index))),
		);
		await mapInOrder(chunks, continueOnFail ? inFlight : 1, async (chunk) => {
			if (!batch.halted) await writeChunk.call(this, batch, chunk, chunk.map(idOf));
		});
	}
	return results;
}

interface WriteBatch<Input> {
	runs: Array<ItemRun<Input>>;
	write: SelectedWrite<Input>;
	results: ItemResult[];
	/** The selected records as read, by id. */
	before: Map<number, IDataObject>;
	continueOnFail: boolean;
	/** Without Continue On Fail, an item failed: nothing more is sent. */
	halted: boolean;
}

/**
 * One request for the items at `indexes` (their records' `ids`). A refused one (4xx: nothing
 * was written) is sent again one item at a time; a record written once is not another item's
 * (a second delete of it finds nothing, as one request per item would).
 */
async function writeChunk<Input>(
	this: IExecuteFunctions,
	batch: WriteBatch<Input>,
	indexes: number[],
	ids: number[],
): Promise<void> {
	const { runs, write, results } = batch;
	const settle = (index: number, result: ItemResult) => {
		results[index] = result;
		if (result instanceof Error && !batch.continueOnFail) batch.halted = true;
	};
	let written: Map<number, IDataObject>;
	try {
		written = await write.writeIds(runs[indexes[0]], [...new Set(ids)], batch.before);
	} catch (error) {
		const refused = error instanceof NodeApiError && /^4/.test(error.httpCode ?? '');
		if (!refused || indexes.length === 1)
			return indexes.forEach((index) => settle(index, error as Error));
		for (const index of indexes) {
			if (batch.halted) return;
			const run = runs[index];
			settle(
				index,
				await write.one.call(this, run).then(
					(json) => [{ json }],
					(e: Error) => e,
				),
			);
		}
		return;
	}
	const taken = new Set<number>();
	indexes.forEach((index, place) => {
		const row = written.get(ids[place]);
		const gone = !row || (write.once && taken.has(ids[place]));
		taken.add(ids[place]);
		settle(index, gone ? notFound.call(this, write, runs[index]) : [{ json: row }]);
	});
}

/** The item's "not found" error, as one request of its own would meet it. */
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
