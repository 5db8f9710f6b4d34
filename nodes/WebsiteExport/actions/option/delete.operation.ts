import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteSelected, readSelection, recordSelector, type Selection } from '../common';
import type { ItemRun } from '../types';
import { OPTION_FIELDS } from './fields';

const properties: INodeProperties[] = [...recordSelector('option', OPTION_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['option'], operation: ['delete'] } }, properties);

export function prepare(this: IExecuteFunctions, itemIndex: number): Selection {
	return readSelection.call(this, 'option', itemIndex);
}

export async function execute(this: IExecuteFunctions, run: ItemRun<Selection>): Promise<INodeExecutionData[]> {
	return [{ json: await deleteSelected.call(this, run, 'options') }];
}
