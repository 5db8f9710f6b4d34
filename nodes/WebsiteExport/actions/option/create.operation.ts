// Why: Option → Create: an export option (how links are treated) for a job.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { z } from 'zod';

import { recordId, validate } from '../../../shared/validation';
import { collection } from '../../../shared/collection';
import { jobIdOption, readJobId } from '../locator';
import { shownFor } from '../resourceDescription';
import { createInChunks } from '../batching';
import type { BatchOptions, ItemResult, ItemRun } from '../types';
import { MODE_LABELS, modeFields, modeProperties } from './mode';

const properties: INodeProperties[] = [
	...modeProperties(),
	collection('Additional Fields', 'additionalFields', 'Add Field', [
		jobIdOption('Job the option belongs to'),
	]),
];

/** Writes go one item after another unless the user asks for more (router). */
export const writes = true;

export const description = shownFor('option', 'create', properties);

/** How messages name an option being created, and where to look for it if its answer was lost. */
export function optionLookup(body: { job_id?: unknown }): { noun: string; findHint: string } {
	const job =
		body.job_id === undefined || body.job_id === null ? '' : ` with Job ID ${String(body.job_id)}`;
	return { noun: 'option', findHint: `Option → Get Many${job}` };
}

const schema = z.intersection(modeFields, z.object({ job_id: recordId.optional() }));

export function prepare(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as { jobId?: unknown };
	const mode = this.getNodeParameter('mode', itemIndex) as string;
	const body = validate(
		this,
		schema,
		{
			mode,
			relative_path:
				mode === 'relative' ? this.getNodeParameter('relativePath', itemIndex, '') : undefined,
			replace_url:
				mode === 'absolute' ? this.getNodeParameter('replaceUrl', itemIndex, '') : undefined,
			job_id: readJobId(extra.jobId),
		},
		itemIndex,
		MODE_LABELS,
	);
	return body;
}

export async function execute(
	this: IExecuteFunctions,
	{ client, itemIndex, input }: ItemRun<IDataObject>,
): Promise<INodeExecutionData[]> {
	return [{ json: await client.insert('options', input, { itemIndex, ...optionLookup(input) }) }];
}

/** Every item's option in one POST per chunk (batching.ts). */
export async function batch(
	this: IExecuteFunctions,
	runs: Array<ItemRun<IDataObject>>,
	how: BatchOptions,
): Promise<ItemResult[]> {
	const insertOf = ({ input, itemIndex }: ItemRun<IDataObject>) => ({
		body: input,
		options: { itemIndex, ...optionLookup(input) },
	});
	return await createInChunks(runs, 'options', insertOf, how);
}
