import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getSelected, readSelection, recordSelector, type Selection } from '../common';
import type { ItemRun } from '../types';
import { JOB_FIELDS } from './fields';

const properties: INodeProperties[] = [...recordSelector('job', JOB_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['job'], operation: ['get'] } }, properties);

export function prepare(this: IExecuteFunctions, itemIndex: number): Selection {
	return readSelection.call(this, 'job', itemIndex);
}

export async function execute(this: IExecuteFunctions, run: ItemRun<Selection>): Promise<INodeExecutionData[]> {
	return [{ json: await getSelected.call(this, run, 'jobs') }];
}
