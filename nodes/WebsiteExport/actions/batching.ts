// Why: how items are grouped into the fewest requests PostgREST allows: the records items select, read with `in.(…)` lists cut where the request line would pass the 8 KiB a gateway takes; creates in chunks, with what a refused or lost chunk means.
import type { IDataObject } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import { parseTimestamp } from '../../shared/timestamps';
import {
	IN_LIST_SEPARATOR_BYTES,
	inListBytes,
	type FilterValue,
	type InsertRequest,
	type WebsiteExportClient,
} from '../../shared/transport';
import { mapInOrder } from './mapInOrder';
import type { Selection } from './selectBy';
import type { BatchOptions, ItemResult, ItemRun } from './types';

/** The longest request line a gateway in front of the service takes (nginx's default, 8 KiB). */
export const MAX_REQUEST_LINE_BYTES = 8 * 1024;

/**
 * The distinct `values` in chunks, in their first order, each as long as `in.(…)` allows: the
 * request line, `emptyLineBytes` long with an empty list, stays within 8 KiB.
 */
export function inListChunks(values: FilterValue[], emptyLineBytes: number): FilterValue[][] {
	const chunks: FilterValue[][] = [];
	let chunk: FilterValue[] = [];
	let bytes = emptyLineBytes;
	for (const value of new Set(values)) {
		const cost = inListBytes(value);
		if (chunk.length > 0 && bytes + IN_LIST_SEPARATOR_BYTES + cost > MAX_REQUEST_LINE_BYTES) {
			chunks.push(chunk);
			chunk = [];
			bytes = emptyLineBytes;
		}
		bytes += (chunk.length > 0 ? IN_LIST_SEPARATOR_BYTES : 0) + cost;
		chunk.push(value);
	}
	if (chunk.length > 0) chunks.push(chunk);
	return chunks;
}

/** Record ids in chunks whose `id=in.(…)` request line on `table` stays within 8 KiB. */
export function idChunks(client: WebsiteExportClient, table: Table, ids: number[]): number[][] {
	const filters = [{ column: 'id', operator: 'in' as const, value: [] }];
	return inListChunks(ids, client.requestLineBytes(table, { filters })) as number[][];
}

/** Whether a row's value is the one an item selected by: PostgREST compares in the column's type. */
function sameValue(column: string, rowValue: unknown, value: FilterValue): boolean {
	if (column === 'created_at') return parseTimestamp(rowValue) === parseTimestamp(value);
	if (typeof rowValue === 'number') return rowValue === Number(value);
	return String(rowValue) === String(value);
}

/** One read: the values of one column, for the selections at `indexes`. */
type ChunkRead = { column: string; values: FilterValue[]; indexes: number[] };

/** The reads that cover `selections`: by column, its values cut in `in.(…)` lists within 8 KiB. */
function chunkReads(
	client: WebsiteExportClient,
	table: Table,
	selections: Selection[],
): ChunkRead[] {
	const byColumn = new Map<string, number[]>();
	selections.forEach(({ filters: [filter] }, index) =>
		byColumn.set(filter.column, [...(byColumn.get(filter.column) ?? []), index]),
	);
	return [...byColumn].flatMap(([column, indexes]) => {
		// The longest page of a chunk: keyset paging adds `id=gt.<id>` after the first.
		const query = { filters: [{ column, operator: 'in' as const, value: [] }], order: BY_ID };
		const longest = { ...query, limit: 1000, after: { id: Number.MAX_SAFE_INTEGER } };
		const valueOf = (index: number) => selections[index].filters[0].value as FilterValue;
		const chunks = inListChunks(indexes.map(valueOf), client.requestLineBytes(table, longest));
		return chunks.map((values) => {
			const wanted = new Set(values);
			return { column, values, indexes: indexes.filter((index) => wanted.has(valueOf(index))) };
		});
	});
}

const BY_ID = [{ column: 'id' }];

/**
 * The rows each selection names, in the fewest requests: per Select By column, its values in
 * `in.(…)` chunks, `inFlight` chunks at once, each read in full (keyset pages under `max-rows`).
 * A chunk whose read failed gives its error to each of its selections.
 */
export async function readSelections(
	client: WebsiteExportClient,
	table: Table,
	selections: Array<{ selection: Selection; itemIndex: number }>,
	inFlight: number,
): Promise<Array<IDataObject[] | Error>> {
	const found = new Array<IDataObject[] | Error>(selections.length);
	const reads = chunkReads(
		client,
		table,
		selections.map(({ selection }) => selection),
	);
	await mapInOrder(reads, inFlight, async ({ column, values, indexes }) => {
		const filters = [{ column, operator: 'in' as const, value: values }];
		const itemIndex = selections[indexes[0]].itemIndex;
		const rows = await client
			.selectAll(table, { filters, order: BY_ID }, { itemIndex })
			.catch((error: Error) => error);
		for (const index of indexes) {
			const value = selections[index].selection.filters[0].value as FilterValue;
			found[index] =
				rows instanceof Error ? rows : rows.filter((row) => sameValue(column, row[column], value));
		}
	});
	return found;
}

/** Rows per create request: 1 000 rows of this service are a body of about 100 KB. */
const MAX_INSERT_ROWS = 1000;

/**
 * Creates: one POST per chunk of rows, written all or none (one transaction). A refused chunk
 * (4xx: nothing was written) is sent again one item at a time, so that its outcome is the
 * one-by-one outcome; a lost one is looked up, never sent again (lostAnswer.ts). Without Continue
 * On Fail the chunks go one after another and nothing is sent after a failing item.
 */
export async function createInChunks<Input>(
	runs: Array<ItemRun<Input>>,
	table: Table,
	insertOf: (run: ItemRun<Input>) => InsertRequest,
	{ continueOnFail, inFlight }: BatchOptions,
): Promise<ItemResult[]> {
	const { client } = runs[0];
	const created = new Array<IDataObject | Error | undefined>(runs.length);
	const width = continueOnFail ? inFlight : 1;
	let stopped = false;
	const settle = (index: number, result: IDataObject | Error) => {
		created[index] = result;
		if (result instanceof Error && !continueOnFail) stopped = true;
	};
	const chunks = Array.from({ length: Math.ceil(runs.length / MAX_INSERT_ROWS) }, (_, chunk) =>
		runs.map((_, index) => index).slice(chunk * MAX_INSERT_ROWS, (chunk + 1) * MAX_INSERT_ROWS),
	);
	await mapInOrder(chunks, width, async (indexes) => {
		if (stopped) return;
		const inserts = indexes.map((index) => insertOf(runs[index]));
		const result = await client.insertMany(table, inserts);
		if ('rows' in result || indexes.length === 1) {
			const rows = 'rows' in result ? result.rows : [result.refused];
			indexes.forEach((index, place) => settle(index, rows[place]));
			return;
		}
		await mapInOrder(indexes, width, async (index, place) => {
			if (stopped) return;
			const { body, options } = inserts[place];
			settle(index, await client.insert(table, body, options).catch((error: Error) => error));
		});
	});
	return created.map((row) => (row === undefined || row instanceof Error ? row : [{ json: row }]));
}
