import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { z } from 'zod';

import { DOWNLOAD_VALIDITY_MS } from '../../../shared/constants';
import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import type { Filter } from '../../../shared/transport';
import { recordId, validate } from '../../../shared/validation';
import { jobIdField, readMax, returnAllOrLimit, toItems } from '../common';
import type { ItemRun } from '../types';
import { serviceNow } from './record';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Only Valid Links',
		name: 'onlyValidLinks',
		type: 'boolean',
		default: true,
		description:
			'Whether to return only downloads whose link still works. A link is valid for 24 hours after its job finished; older records stay listed but their archive is gone.',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			jobIdField('Only the downloads of this job'),
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['download'], operation: ['getAll'] } }, properties);

const filterSchema = z.object({ jobId: recordId.optional() });

export async function execute(this: IExecuteFunctions, { client, itemIndex }: ItemRun): Promise<INodeExecutionData[]> {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as { jobId?: string | number };
	const wanted = validate(this, filterSchema, { jobId: raw.jobId === '' ? undefined : raw.jobId }, itemIndex, { jobId: 'Job ID' });
	const max = readMax.call(this, itemIndex);
	const filters: Filter[] = [];
	if (wanted.jobId !== undefined) filters.push({ column: 'job_id', operator: 'eq', value: wanted.jobId });
	// On the server, so that Limit counts valid links only and expired ones are never transferred.
	if (this.getNodeParameter('onlyValidLinks', itemIndex, true)) {
		filters.push({ column: 'created_at', operator: 'gt', value: new Date(serviceNow(client) - DOWNLOAD_VALIDITY_MS).toISOString() });
	}
	const rows = await client.selectAll<DownloadRecord>(
		'downloads',
		// Newest first; the id breaks ties so that pages never overlap or skip a row.
		{ filters, order: [{ column: 'created_at', descending: true }, { column: 'id', descending: true }] },
		{ itemIndex, max },
	);
	const now = serviceNow(client);
	return toItems(rows.map((row) => withExpiry(row, now)));
}
