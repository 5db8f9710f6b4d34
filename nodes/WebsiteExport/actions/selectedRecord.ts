// Why: Get, Update and Delete of every resource act on the record Select By names; one builder gives each its properties, prepare and execute.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { Table } from '../../shared/constants';
import { readSelectedPatch, readSelection, type SelectedPatch, type Selection } from './parameters';
import { selectByProperties, shownFor, type SelectByFields } from './properties';
import { deleteSelected, fetchOne, updateSelected } from './records';
import type { ItemRun, Operation, Resource } from './types';

/** What an operation does with the selected record, in the resource's table; resolves to its output record. */
type ActOnSelected<Input> = (
	this: IExecuteFunctions,
	run: ItemRun<Input>,
	table: Table,
) => Promise<IDataObject>;

/** Get: the selected record, as `fetch` reads it (by default as stored). */
export function getOperation(
	resource: Resource,
	selectByFields: SelectByFields,
	fetch: ActOnSelected<Selection> = async function (run, table) {
		return await fetchOne.call(this, run, table, run.input);
	},
): Operation<Selection> {
	return selectedRecordOperation(resource, 'get', selectByFields, [], {
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		act: fetch,
	});
}

/** Delete: removes the selected record and returns it, marked `deleted: true`. */
export function deleteOperation(
	resource: Resource,
	selectByFields: SelectByFields,
): Operation<Selection> {
	return selectedRecordOperation(resource, 'delete', selectByFields, [], {
		prepare(itemIndex) {
			return readSelection.call(this, resource, itemIndex);
		},
		act: deleteSelected,
		writes: true,
	});
}

/**
 * Update: the fields under Update Fields, read and validated by `readPatch`, applied to the
 * selected record; returns the record as stored.
 */
export function updateOperation(
	resource: Resource,
	selectByFields: SelectByFields,
	updateFields: INodeProperties[],
	readPatch: (
		this: IExecuteFunctions,
		fields: Record<string, unknown>,
		itemIndex: number,
	) => IDataObject,
): Operation<SelectedPatch> {
	return selectedRecordOperation(resource, 'update', selectByFields, updateFields, {
		prepare(itemIndex) {
			const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
			const patch = readPatch.call(this, fields, itemIndex);
			return readSelectedPatch.call(this, resource, itemIndex, patch);
		},
		act: updateSelected,
		writes: true,
	});
}

/** The operation: Select By and `ownProperties` in the editor, `act` on the record in the resource's table. */
function selectedRecordOperation<Input>(
	resource: Resource,
	operation: 'get' | 'update' | 'delete',
	selectByFields: SelectByFields,
	ownProperties: INodeProperties[],
	{
		prepare,
		act,
		writes,
	}: Pick<Operation<Input>, 'prepare' | 'writes'> & { act: ActOnSelected<Input> },
): Operation<Input> {
	const table: Table = `${resource}s`;
	return {
		description: shownFor(resource, operation, [
			...selectByProperties(resource, selectByFields),
			...ownProperties,
		]),
		prepare,
		async execute(this: IExecuteFunctions, run): Promise<INodeExecutionData[]> {
			return [{ json: await act.call(this, run, table) }];
		},
		writes,
	};
}
