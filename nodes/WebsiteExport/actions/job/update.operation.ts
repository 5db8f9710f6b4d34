import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { validate } from '../../../shared/validation';
import { nonEmpty, readSelectedPatch, type SelectedPatch } from '../parameters';
import { selectByProperties } from '../properties';
import { updateSelected } from '../records';
import type { ItemRun } from '../types';
import { JOB_SELECT_BY_FIELDS, JOB_LABELS, jobFields, STATUS_OPTIONS, status } from './fields';

const properties: INodeProperties[] = [
	...selectByProperties('job', JOB_SELECT_BY_FIELDS),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				default: '',
				placeholder: 'name@email.com',
				description: 'Address that receives the download link',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: STATUS_OPTIONS,
				default: 'finished',
				description: 'State of the job',
				hint: 'The service documents only Finished',
			},
			{
				displayName: 'URL',
				name: 'url',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://example.com',
				description: 'Address of the website to download',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['update'] } },
	properties,
);

const patchSchema = jobFields.partial().extend({ status: status.optional() });

export function prepare(this: IExecuteFunctions, itemIndex: number): SelectedPatch {
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as Record<string, string>;
	const patch = validate(
		this,
		patchSchema,
		{ url: nonEmpty(fields.url), email: nonEmpty(fields.email), status: nonEmpty(fields.status) },
		itemIndex,
		JOB_LABELS,
	);
	return readSelectedPatch.call(this, 'job', itemIndex, patch);
}

export async function execute(
	this: IExecuteFunctions,
	run: ItemRun<SelectedPatch>,
): Promise<INodeExecutionData[]> {
	return [{ json: await updateSelected.call(this, run, 'jobs') }];
}
