// Why: what Get, Update and Delete do with the record Select By names: fetch exactly one, update it, delete it.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import type { Filter } from '../../shared/transport';
import type { SelectedPatch, Selection } from './parameters';
import type { ItemRun } from './types';

/** Records as the node's output items. */
export const toItems = (records: IDataObject[]): INodeExecutionData[] =>
	records.map((json) => ({ json }));

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
 * Filters that target exactly the selected record. By ID they are used as they are; by another
 * field, the record is looked up first so that an update or delete never touches several.
 */
export async function resolveTarget(
	this: IExecuteFunctions,
	run: ItemRun<unknown>,
	resource: Table,
	selection: Selection,
): Promise<Filter[]> {
	if (selection.byId) return selection.filters;
	const record = await fetchOne.call(this, run, resource, selection, ['id']);
	return [{ column: 'id', operator: 'eq', value: record.id as number }];
}

/** The one record a selection names: one request of 2 rows at most, enough to tell an ambiguous one. */
export async function fetchOne(
	this: IExecuteFunctions,
	run: ItemRun<unknown>,
	resource: Table,
	selection: Selection,
	select?: string[],
): Promise<IDataObject> {
	const page = await run.client.select(
		resource,
		{ select, filters: selection.filters, limit: 2 },
		{ itemIndex: run.itemIndex },
	);
	return requireOne.call(this, page.rows, selection, run.itemIndex);
}

/** Update: applies the patch to the selected record and returns it as stored. */
export async function updateSelected(
	this: IExecuteFunctions,
	run: ItemRun<SelectedPatch>,
	resource: Table,
): Promise<IDataObject> {
	const { selection, patch } = run.input;
	const target = await resolveTarget.call(this, run, resource, selection);
	const rows = await run.client.update(resource, target, patch, { itemIndex: run.itemIndex });
	return requireOne.call(this, rows, selection, run.itemIndex);
}

/** Delete: removes the selected record and returns it, marked `deleted: true`. */
export async function deleteSelected(
	this: IExecuteFunctions,
	run: ItemRun<Selection>,
	resource: Table,
): Promise<IDataObject> {
	const selection = run.input;
	const target = await resolveTarget.call(this, run, resource, selection);
	const rows = await run.client.remove(resource, target, { itemIndex: run.itemIndex });
	return { deleted: true, ...requireOne.call(this, rows, selection, run.itemIndex) };
}
