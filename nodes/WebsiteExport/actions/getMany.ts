// Why: what every Get Many shares: Return All / Limit in the editor, its reader, and rows as output items.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { z } from 'zod';

import { validate } from '../../shared/validation';

/** Return All / Limit, as every n8n "Get Many" operation offers them. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** The row cap of a Get Many item: undefined means all of them. */
export function readResultLimit(this: IExecuteFunctions, itemIndex: number): number | undefined {
	if (this.getNodeParameter('returnAll', itemIndex, false)) return undefined;
	const limit = z.number().int('must be a whole number').positive('must be at least 1');
	return validate(this, limit, this.getNodeParameter('limit', itemIndex, 50), itemIndex, {
		'': 'Limit',
	});
}

/** Records as the node's output items. */
export const toItems = (records: IDataObject[]): INodeExecutionData[] =>
	records.map((json) => ({ json }));
