import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fetchOne, recordSelector, selectionOf, type Selection } from '../common';
import type { ItemRun } from '../types';
import { JOB_FIELDS } from './fields';

const properties: INodeProperties[] = [...recordSelector('job', JOB_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['job'], operation: ['get'] } }, properties);

export const prepare = selectionOf('job');

export async function execute(this: IExecuteFunctions, run: ItemRun<Selection>): Promise<INodeExecutionData[]> {
	return [{ json: await fetchOne.call(this, run, 'jobs', run.input) }];
}
