// Why: Get, Update and Delete of every resource act on the one record Select By names: fetching exactly one, updating it, deleting it, and the operations built on that.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import type { Filter } from '../../shared/transport';
import { readSelections } from './batching';
import { writeSelected, type SelectedWrite } from './selectedWrites';
import { shownFor } from './resourceDescription';
import {
	readSelectedPatch,
	readSelection,
	selectByProperties,
	type SelectedPatch,
	type Selection,
} from './selectBy';
import type { ItemRun, Operation, Resource } from './types';

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

/** The one record a selection names: one request of 2 rows at most, enough to tell an ambiguous one. */
export async function fetchOne(
	this: IExecuteFunctions,
	run: ItemRun<unknown>,
	table: Table,
	selection: Selection,
	select?: string[],
): Promise<IDataObject> {
	const query = { select, filters: selection.filters, limit: 2 };
	const page = await run.client.select(table, query, { itemIndex: run.itemIndex });
	return requireOne.call(this, page.rows, selection, run.itemIndex);
}

/**
 * Filters that target exactly the selected record. By ID they are used as they are; by another
 * field, the record is looked up first so that an update or delete never touches several.
 */
async function resolveTarget(
	this: IExecuteFunctions,
	run: ItemRun<unknown>,
	table: Table,
	selection: Selection,
): Promise<Filter[]> {
	if (selection.byId) return selection.filters;
	const record = await fetchOne.call(this, run, table, selection, ['id']);
	return [{ column: 'id', operator: 'eq', value: record.id as number }];
}

/** What an operation does with the selected record, in the resource's table; resolves to its output record. */
type ActOnSelected<Input> = (
	this: IExecuteFunctions,
	run: ItemRun<Input>,
	table: Table,
) => Promise<IDataObject>;

/** Get: the selected record, as stored, then as `present` shows it (a download with its expiry). */
export function getOperation(
	resource: Resource,
	present: (this: IExecuteFunctions, row: IDataObject, run: ItemRun) => IDataObject = (row) => row,
): Operation<Selection> {
	const operation = selectedRecordOperation(resource, 'get', [], {
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		async act(run, table) {
			return present.call(this, await fetchOne.call(this, run, table, run.input), run);
		},
	});
	const table: Table = `${resource}s`;
	return {
		...operation,
		/** One read per chunk of selected values; each item its row, or the error one read of its own gives. */
		async batch(runs, { inFlight }) {
			const selections = runs.map((run) => ({ selection: run.input, itemIndex: run.itemIndex }));
			const found = await readSelections(runs[0].client, table, selections, inFlight);
			return runs.map((run, index) => {
				const rows = found[index];
				if (rows instanceof Error) return rows;
				try {
					// As one read of its own reports it: with `limit=2`, "2 records match".
					const row = requireOne.call(this, rows.slice(0, 2), run.input, run.itemIndex);
					return [{ json: present.call(this, row, run) }];
				} catch (error) {
					return error as Error;
				}
			});
		},
	};
}

/** Delete: removes the selected record and returns it, marked `deleted: true`. */
export function deleteOperation(resource: Resource): Operation<Selection> {
	const table: Table = `${resource}s`;
	const act = async function (this: IExecuteFunctions, run: ItemRun<Selection>) {
		const target = await resolveTarget.call(this, run, table, run.input);
		const rows = await run.client.remove(table, target, { itemIndex: run.itemIndex });
		return { deleted: true, ...requireOne.call(this, rows, run.input, run.itemIndex) };
	};
	const operation = selectedRecordOperation(resource, 'delete', [], {
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		act,
		writes: true,
	});
	const write: SelectedWrite<Selection> = {
		table,
		once: true,
		selectionOf: (selection) => selection,
		keyOf: () => 'delete',
		async writeIds({ client, itemIndex }, ids, before) {
			const deleted = await client.removeByIds(table, ids, { itemIndex });
			return new Map(deleted.map((id) => [id, { deleted: true, ...before.get(id) }]));
		},
		one: act,
		requireOne(rows, run) {
			return requireOne.call(this, rows, run.input, run.itemIndex);
		},
	};
	return {
		...operation,
		async batch(runs, how) {
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
	const act = async function (this: IExecuteFunctions, run: ItemRun<SelectedPatch>) {
		const { selection, patch } = run.input;
		const target = await resolveTarget.call(this, run, table, selection);
		const rows = await run.client.update(table, target, patch, { itemIndex: run.itemIndex });
		return requireOne.call(this, rows, selection, run.itemIndex);
	};
	const operation = selectedRecordOperation(resource, 'update', updateFields, {
		prepare(itemIndex) {
			const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
			const patch = readPatch.call(this, fields, itemIndex);
			return readSelectedPatch.call(this, resource, itemIndex, patch);
		},
		act,
		writes: true,
	});
	const write: SelectedWrite<SelectedPatch> = {
		table,
		once: false,
		selectionOf: ({ selection }) => selection,
		keyOf: ({ patch }) => JSON.stringify(patch),
		async writeIds({ client, itemIndex, input }, ids) {
			const filters = [{ column: 'id', operator: 'in' as const, value: ids }];
			const rows = await client.update(table, filters, input.patch, { itemIndex });
			return new Map(rows.map((row) => [row.id as number, row]));
		},
		one: act,
		requireOne(rows, run) {
			return requireOne.call(this, rows, run.input.selection, run.itemIndex);
		},
	};
	return {
		...operation,
		async batch(runs, how) {
			return await writeSelected.call(this, runs, write, how);
		},
	};
}

/** The operation: Select By and `ownProperties` in the editor, `act` on the record in the resource's table. */
function selectedRecordOperation<Input>(
	resource: Resource,
	operation: 'get' | 'update' | 'delete',
	ownProperties: INodeProperties[],
	{
		prepare,
		act,
		writes,
	}: Pick<Operation<Input>, 'prepare' | 'writes'> & { act: ActOnSelected<Input> },
): Operation<Input> {
	const table: Table = `${resource}s`;
	return {
		description: shownFor(resource, operation, [...selectByProperties(resource), ...ownProperties]),
		prepare,
		async execute(this: IExecuteFunctions, run): Promise<INodeExecutionData[]> {
			return [{ json: await act.call(this, run, table) }];
		},
		writes,
	};
}
