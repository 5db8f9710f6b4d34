// Why: Download → Get Many: links, newest first, by default only the valid ones (service's clock).
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { windowFilter, withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { NEWEST_FIRST, type Filter } from '../../../shared/transport';
import { recordId, validate } from '../../../shared/validation';
import { readResultLimit, returnAllOrLimit, toItems } from '../getMany';
import { jobIdOption, readJobId } from '../selectBy';
import { shownFor } from '../resourceDescription';
import { collection } from '../../../shared/collection';
import { requestPerItem } from '../groups';
import type { ItemTask } from '../types';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Only Valid Links',
		name: 'onlyValidLinks',
		type: 'boolean',
		default: true,
		description:
			'Whether to return only downloads whose link still works (24 hours after its job finished)',
		hint: 'Off: expired downloads are listed too, with is_expired true; their archive is gone',
	},
	collection('Filters', 'filters', 'Add Filter', [jobIdOption('Only the downloads of this job')]),
];

export const description = shownFor('download', 'getAll', properties);

const filterSchema = z.object({ jobId: recordId.optional() });

interface ListInput {
	filters: Filter[];
	onlyValid: boolean;
	max?: number;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): ListInput {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as { jobId?: unknown };
	const { jobId } = validate(this, filterSchema, { jobId: readJobId(raw.jobId) }, itemIndex, {
		jobId: 'Job ID',
	});
	return {
		filters: jobId === undefined ? [] : [{ column: 'job_id', operator: 'eq', value: jobId }],
		onlyValid: this.getNodeParameter('onlyValidLinks', itemIndex, true) as boolean,
		max: readResultLimit.call(this, itemIndex),
	};
}

async function listDownloads(
	this: IExecuteFunctions,
	{ client, itemIndex, input }: ItemTask<ListInput>,
): Promise<INodeExecutionData[]> {
	// Validity is the service's verdict, by its clock (the Date of the answer with the rows). The
	// query narrows by this machine's clock, reaching back further (windowFilter); the rows then
	// expired are the last ones, newest first, so dropping them leaves a Limit the newest valid.
	const filters = input.onlyValid ? [...input.filters, windowFilter(Date.now())] : input.filters;
	const rows = await client.selectAll<DownloadRecord>(
		'downloads',
		{ filters, order: NEWEST_FIRST },
		{ itemIndex, max: input.max },
	);
	const now = client.serviceNow();
	const listed = rows.map((row) => withExpiry(row, now));
	return toItems(input.onlyValid ? listed.filter((row) => !row.is_expired) : listed);
}

/** One listing per item (groups.ts). */
export const execute = requestPerItem(listDownloads);
