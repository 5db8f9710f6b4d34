// Why: Get, Update and Delete of every resource act on the record Select By names; one builder each gives their properties, prepare and execute.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { ResourceName } from '../../shared/constants';
import {
	prepareSelection,
	readSelectedPatch,
	type SelectedPatch,
	type Selection,
} from './parameters';
import { selectByProperties, shownFor } from './properties';
import { deleteSelected, fetchOne, updateSelected } from './records';
import type { ItemRun, Operation, Resource } from './types';

type SelectByFields = Array<{ name: string; value: string }>;
type ActOnSelected = (
	this: IExecuteFunctions,
	run: ItemRun<Selection>,
	table: ResourceName,
) => Promise<IDataObject>;

/** Get: the selected record, as `fetch` reads it (by default as stored). */
export function getOperation(
	resource: Resource,
	selectByFields: SelectByFields,
	fetch: ActOnSelected = async function (run, table) {
		return await fetchOne.call(this, run, table, run.input);
	},
): Operation<Selection> {
	return selectedRecordOperation(resource, 'get', selectByFields, fetch);
}

/** Delete: removes the selected record and returns it, marked `deleted: true`. */
export function deleteOperation(
	resource: Resource,
	selectByFields: SelectByFields,
): Operation<Selection> {
	return selectedRecordOperation(resource, 'delete', selectByFields, deleteSelected);
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
	const table = `${resource}s` as const;
	return {
		description: shownFor(resource, 'update', [
			...selectByProperties(resource, selectByFields),
			...updateFields,
		]),
		prepare(this: IExecuteFunctions, itemIndex: number): SelectedPatch {
			const fields = this.getNodeParameter('updateFields', itemIndex, {}) as Record<
				string,
				unknown
			>;
			const patch = readPatch.call(this, fields, itemIndex);
			return readSelectedPatch.call(this, resource, itemIndex, patch);
		},
		async execute(this: IExecuteFunctions, run): Promise<INodeExecutionData[]> {
			return [{ json: await updateSelected.call(this, run, table) }];
		},
		writes: true,
	};
}

function selectedRecordOperation(
	resource: Resource,
	operation: 'get' | 'delete',
	selectByFields: SelectByFields,
	act: ActOnSelected,
): Operation<Selection> {
	const table = `${resource}s` as const;
	return {
		description: shownFor(resource, operation, selectByProperties(resource, selectByFields)),
		prepare: prepareSelection(resource),
		async execute(this: IExecuteFunctions, run): Promise<INodeExecutionData[]> {
			return [{ json: await act.call(this, run, table) }];
		},
		writes: operation === 'delete',
	};
}
