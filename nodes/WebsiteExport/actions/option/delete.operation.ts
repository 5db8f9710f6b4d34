import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteSelected, recordSelector, selectionOf, type Selection } from '../common';
import type { ItemRun } from '../types';
import { OPTION_FIELDS } from './fields';

const properties: INodeProperties[] = [...recordSelector('option', OPTION_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['option'], operation: ['delete'] } }, properties);

export const prepare = selectionOf('option');

export async function execute(this: IExecuteFunctions, run: ItemRun<Selection>): Promise<INodeExecutionData[]> {
	return [{ json: await deleteSelected.call(this, run, 'options') }];
}
