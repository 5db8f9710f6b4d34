import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { z } from 'zod';

import type { Filter } from '../../../shared/transport';
import { recordId, validate } from '../../../shared/validation';
import { jobIdField, readMax, returnAllOrLimit, toItems } from '../common';
import type { ItemRun } from '../types';
import { MODE_OPTIONS } from './mode';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			jobIdField('Only the options of this job'),
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				options: MODE_OPTIONS,
				default: 'offline',
				description: 'Only options with this export mode',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['option'], operation: ['getAll'] } }, properties);

const filterSchema = z.object({
	jobId: recordId.optional(),
	mode: z.enum(['offline', 'relative', 'absolute']).optional(),
});

export async function execute(this: IExecuteFunctions, { client, itemIndex }: ItemRun): Promise<INodeExecutionData[]> {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as { jobId?: string; mode?: string };
	const wanted = validate(this, filterSchema, { ...raw, jobId: raw.jobId === '' ? undefined : raw.jobId }, itemIndex, {
		jobId: 'Job ID',
		mode: 'Mode',
	});
	const filters: Filter[] = [];
	if (wanted.jobId !== undefined) filters.push({ column: 'job_id', operator: 'eq', value: wanted.jobId });
	if (wanted.mode !== undefined) filters.push({ column: 'mode', operator: 'eq', value: wanted.mode });
	const max = readMax.call(this, itemIndex);
	const rows = await client.selectAll('options', { filters, order: [{ column: 'id' }] }, { itemIndex, max });
	return toItems(rows);
}
