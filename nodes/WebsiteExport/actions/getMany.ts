// Why: what every Get Many shares: Return All / Limit, its reader, its filters, a listing per item.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { z } from 'zod';

import type { Table } from '../../shared/constants';
import type { Filter, FilterValue, OrderBy } from '../../shared/transport';
import { validate } from '../../shared/validation';
import { requestPerItem } from './groups';

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
		default: 50,
		typeOptions: { minValue: 1 },
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

/**
 * An `eq` filter per column given a value, in the order given;
 * the columns left undefined filter nothing.
 */
export const equalTo = (values: Record<string, FilterValue | undefined>): Filter[] =>
	Object.entries(values).flatMap(([column, value]) =>
		value === undefined ? [] : [{ column, operator: 'eq' as const, value }],
	);

/** Records as the node's output items. */
export const toItems = (records: IDataObject[]): INodeExecutionData[] =>
	records.map((json) => ({ json }));

/** What one Get Many item asks for. */
export interface ListInput {
	filters: Filter[];
	order: OrderBy[];
	max?: number;
	/** The filtered columns as the editor names them, for an error about one of them. */
	fields?: Record<string, string>;
}

/** One listing of `table` per item (groups.ts), its rows as output items. */
export const listEach = (table: Table) =>
	requestPerItem<ListInput>(async function ({
		client,
		itemIndex,
		input: { max, fields, ...query },
	}) {
		return toItems(await client.selectAll(table, query, { itemIndex, max, fields }));
	});
