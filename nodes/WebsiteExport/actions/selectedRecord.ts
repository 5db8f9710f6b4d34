// Why: Get, Update and Delete of every resource act on the one record Select By names: reading exactly one per item (in groups), updating it, deleting it.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import { readValues, runGroups } from './groups';
import { shownFor } from './resourceDescription';
import {
	readSelectedPatch,
	readSelection,
	selectByProperties,
	type SelectedPatch,
	type Selection,
} from './selectBy';
import { writeSelected, type SelectedWrite } from './selectedWrites';
import type { ItemResult, ItemRun, Operation, Resource, RunOptions } from './types';

/**
 * The one record a selection names. Under row-level security a record of another account is
 * invisible, so "not found" covers both cases; a field value shared by several records is
 * refused rather than guessed.
 */
export function requireOne<T extends IDataObject>(
	this: IExecuteFunctions,
	rows: T[],
	selection: Selection,
	itemIndex: number,
): T {
	if (rows.length === 1) return rows[0];
	const missing = rows.length === 0;
	throw new NodeApiError(
		this.getNode(),
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

/**
 * The one record each selection names, or the item's error, read in groups of values
 * (groups.ts): `present` shapes what the item shows (a download with its expiry).
 */
export async function readSelected<Input>(
	ctx: IExecuteFunctions,
	runs: Array<ItemRun<Input>>,
	table: Table,
	selectionOf: (input: Input) => Selection,
	how: RunOptions,
): Promise<Array<IDataObject | Error>> {
	const wanted = runs.map(({ input, itemIndex }) => {
		const [{ column, value }] = selectionOf(input).filters;
		return { column, value: value as string | number, itemIndex };
	});
	const found = await readValues(runs[0].client, table, wanted, how);
	return runs.map((run, index) => {
		const rows = found[index];
		if (rows instanceof Error) return rows;
		try {
			return requireOne.call(ctx, rows, selectionOf(run.input), run.itemIndex);
		} catch (error) {
			return error as Error;
		}
	});
}

/** Get: the selected record, as stored, then as `present` shows it (a download with its expiry). */
export function getOperation(
	resource: Resource,
	present: (this: IExecuteFunctions, row: IDataObject, run: ItemRun) => IDataObject = (row) => row,
): Operation<Selection> {
	const table: Table = `${resource}s`;
	return {
		description: shownFor(resource, 'get', selectByProperties(resource)),
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		async run(runs, how): Promise<ItemResult[]> {
			const reads = { ...how, writes: false };
			return await runGroups(runs, reads, async (group) => await getEach.call(this, group, how));
		},
	};

	/** The items of one group (Items per Request), read together. */
	async function getEach(
		this: IExecuteFunctions,
		runs: Array<ItemRun<Selection>>,
		how: RunOptions,
	): Promise<ItemResult[]> {
		const found = await readSelected(this, runs, table, (input) => input, how);
		return runs.map((run, index) => {
			const row = found[index];
			if (row instanceof Error) return row;
			try {
				return [{ json: present.call(this, row, run) }];
			} catch (error) {
				return error as Error; // e.g. a created_at the node cannot read
			}
		});
	}
}

/** Delete: removes the selected record and returns it as it was, marked `deleted: true`. */
export function deleteOperation(resource: Resource): Operation<Selection> {
	const table: Table = `${resource}s`;
	const write: SelectedWrite<Selection> = {
		table,
		selectionOf: (selection) => selection,
		columnsSet: () => [],
		keyOf: () => 'delete',
		async writeIds({ client, itemIndex }, ids, before) {
			const deleted = await client.removeByIds(table, ids, { itemIndex });
			return new Map(deleted.map((id) => [id, { deleted: true, ...before.get(id) }]));
		},
		requireOne(rows, run) {
			return requireOne.call(this, rows, run.input, run.itemIndex);
		},
	};
	return {
		description: shownFor(resource, 'delete', selectByProperties(resource)),
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		async run(runs, how) {
			return await writeSelected.call(this, runs, write, how);
		},
	};
}

/**
 * Update: the fields under Update Fields, read and validated by `readPatch`, applied to the
 * selected record; returns the record as stored.
 */
export function updateOperation(
	resource: Resource,
	updateFields: INodeProperties[],
	readPatch: (this: IExecuteFunctions, fields: IDataObject, itemIndex: number) => IDataObject,
): Operation<SelectedPatch> {
	const table: Table = `${resource}s`;
	const write: SelectedWrite<SelectedPatch> = {
		table,
		selectionOf: ({ selection }) => selection,
		columnsSet: ({ patch }) => Object.keys(patch).filter((key) => patch[key] !== undefined),
		keyOf: ({ patch }) => JSON.stringify(patch),
		async writeIds({ client, itemIndex, input }, ids) {
			const filters = [{ column: 'id', operator: 'in' as const, value: ids }];
			const rows = await client.update(table, filters, input.patch, { itemIndex });
			return new Map(rows.map((row) => [row.id as number, row]));
		},
		requireOne(rows, run) {
			return requireOne.call(this, rows, run.input.selection, run.itemIndex);
		},
	};
	return {
		description: shownFor(resource, 'update', [...selectByProperties(resource), ...updateFields]),
		prepare(itemIndex) {
			const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
			const patch = readPatch.call(this, fields, itemIndex);
			return readSelectedPatch.call(this, resource, itemIndex, patch);
		},
		async run(runs, how) {
			return await writeSelected.call(this, runs, write, how);
		},
	};
}
