// Why: Option → Get Many: export options in ID order, by job and mode.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { recordId, validate } from '../../../shared/validation';
import { collection } from '../../../shared/collection';
import { equalTo, listEach, readResultLimit, returnAllOrLimit, type ListInput } from '../getMany';
import { jobIdOption, readJobId } from '../selectBy';
import { shownFor } from '../resourceDescription';
import { MODE_OPTIONS } from './mode';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	collection('Filters', 'filters', 'Add Filter', [
		jobIdOption('Only the options of this job'),
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'options',
			default: 'offline',
			options: MODE_OPTIONS,
			description: 'Only options with this export mode',
		},
	]),
];

export const description = shownFor('option', 'getAll', properties);

const filterSchema = z.object({
	jobId: recordId.optional(),
	mode: z.enum(['offline', 'relative', 'absolute']).optional(),
});

export function prepare(this: IExecuteFunctions, itemIndex: number): ListInput {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as { jobId?: unknown; mode?: string };
	const wanted = validate(this, filterSchema, { ...raw, jobId: readJobId(raw.jobId) }, itemIndex, {
		jobId: 'Job ID',
		mode: 'Mode',
	});
	const filters = equalTo({ job_id: wanted.jobId, mode: wanted.mode });
	return { filters, order: [{ column: 'id' }], max: readResultLimit.call(this, itemIndex) };
}

/** One listing per item, in ID order. */
export const execute = listEach('options');
