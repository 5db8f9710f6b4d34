// Why: Option → Get Many: export options in ID order, by job and mode.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import type { Filter } from '../../../shared/transport';
import { recordId, validate } from '../../../shared/validation';
import { collection } from '../../../shared/collection';
import { readResultLimit, returnAllOrLimit, toItems } from '../getMany';
import { jobIdOption, readJobId } from '../locator';
import { shownFor } from '../resourceDescription';
import { eachItem } from '../groups';
import type { ItemRun } from '../types';
import { MODE_OPTIONS } from './mode';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	collection('Filters', 'filters', 'Add Filter', [
		jobIdOption('Only the options of this job'),
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'options',
			options: MODE_OPTIONS,
			default: 'offline',
			description: 'Only options with this export mode',
		},
	]),
];

export const description = shownFor('option', 'getAll', properties);

const filterSchema = z.object({
	jobId: recordId.optional(),
	mode: z.enum(['offline', 'relative', 'absolute']).optional(),
});

interface ListInput {
	filters: Filter[];
	max?: number;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): ListInput {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as { jobId?: unknown; mode?: string };
	const wanted = validate(this, filterSchema, { ...raw, jobId: readJobId(raw.jobId) }, itemIndex, {
		jobId: 'Job ID',
		mode: 'Mode',
	});
	const filters: Filter[] = [];
	if (wanted.jobId !== undefined)
		filters.push({ column: 'job_id', operator: 'eq', value: wanted.jobId });
	if (wanted.mode !== undefined)
		filters.push({ column: 'mode', operator: 'eq', value: wanted.mode });
	return { filters, max: readResultLimit.call(this, itemIndex) };
}

async function execute(
	this: IExecuteFunctions,
	{ client, itemIndex, input }: ItemRun<ListInput>,
): Promise<INodeExecutionData[]> {
	const rows = await client.selectAll(
		'options',
		{ filters: input.filters, order: [{ column: 'id' }] },
		{ itemIndex, max: input.max },
	);
	return toItems(rows);
}

/** One listing per item (groups.ts). */
export const run = eachItem(execute);
