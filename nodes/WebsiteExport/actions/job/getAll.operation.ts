// Why: Job → Get Many: export jobs, filtered by creation time, email, status or URL, newest or oldest first.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import type { Filter, OrderBy } from '../../../shared/transport';
import { nonEmpty, text, validate } from '../../../shared/validation';
import { readResultLimit, returnAllOrLimit, toItems } from '../getMany';
import { shownFor } from '../resourceDescription';
import { collection } from '../../../shared/collection';
import { eachItem } from '../groups';
import type { ItemRun } from '../types';
import { instant, STATUS_OPTIONS, status } from './fields';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	collection('Filters', 'filters', 'Add Filter', [
		{
			displayName: 'Created After',
			name: 'createdAfter',
			type: 'dateTime',
			default: '',
			description: 'Only jobs created at or after this moment',
			hint: 'Jobs created in one request (many items of one Create) share their creation time',
		},
		{
			displayName: 'Created Before',
			name: 'createdBefore',
			type: 'dateTime',
			default: '',
			description: 'Only jobs created before this moment',
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			default: '',
			placeholder: 'name@email.com',
			description: 'Only jobs for this recipient (exact match)',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: STATUS_OPTIONS,
			default: 'finished',
			description: 'Only jobs in this state',
			hint: 'The service documents only Finished; Queued, Running and Failed are the states an export passes through',
		},
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://example.com',
			description:
				'Only jobs for this address (exact match, as it was given when the job was created)',
		},
	]),
	{
		displayName: 'Sort',
		name: 'sort',
		type: 'options',
		options: [
			{ name: 'Newest First', value: 'newest', description: 'Most recently created jobs first' },
			{ name: 'Oldest First', value: 'oldest', description: 'Jobs in the order they were created' },
		],
		default: 'newest',
		description: 'Order of the jobs; with a Limit, which ones are returned',
	},
];

export const description = shownFor('job', 'getAll', properties);

const filterSchema = (zone: string) =>
	z.object({
		status: status.optional(),
		url: text(2048).trim().optional(),
		email: text(254).trim().optional(),
		createdAfter: instant(zone).optional(),
		createdBefore: instant(zone).optional(),
		sort: z.enum(['newest', 'oldest'], {
			errorMap: () => ({ message: 'must be Newest First or Oldest First' }),
		}),
	});

interface ListInput {
	filters: Filter[];
	order: OrderBy[];
	max?: number;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): ListInput {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as Record<string, unknown>;
	const wanted = validate(
		this,
		filterSchema(this.getTimezone()),
		{
			status: nonEmpty(raw.status),
			url: nonEmpty(raw.url),
			email: nonEmpty(raw.email),
			createdAfter: nonEmpty(raw.createdAfter),
			createdBefore: nonEmpty(raw.createdBefore),
			sort: this.getNodeParameter('sort', itemIndex, 'newest'),
		},
		itemIndex,
		{
			status: 'Status',
			url: 'URL',
			email: 'Email',
			createdAfter: 'Created After',
			createdBefore: 'Created Before',
			sort: 'Sort',
		},
	);
	if (wanted.createdAfter && wanted.createdBefore && wanted.createdAfter >= wanted.createdBefore) {
		throw new NodeOperationError(
			this.getNode(),
			'Created After must be earlier than Created Before',
			{
				itemIndex,
				description: `No job can match ${wanted.createdAfter} ≤ created < ${wanted.createdBefore} [item ${itemIndex}]`,
			},
		);
	}
	const filters: Filter[] = [];
	for (const column of ['status', 'url', 'email'] as const) {
		const value = wanted[column];
		if (value !== undefined) filters.push({ column, operator: 'eq', value });
	}
	if (wanted.createdAfter)
		filters.push({ column: 'created_at', operator: 'gte', value: wanted.createdAfter });
	if (wanted.createdBefore)
		filters.push({ column: 'created_at', operator: 'lt', value: wanted.createdBefore });
	// The id breaks ties between jobs created in the same instant, so pages never overlap.
	const descending = wanted.sort === 'newest';
	const order = [
		{ column: 'created_at', descending },
		{ column: 'id', descending },
	];
	return { filters, order, max: readResultLimit.call(this, itemIndex) };
}

async function execute(
	this: IExecuteFunctions,
	{ client, itemIndex, input }: ItemRun<ListInput>,
): Promise<INodeExecutionData[]> {
	return toItems(
		await client.selectAll(
			'jobs',
			{ filters: input.filters, order: input.order },
			{ itemIndex, max: input.max },
		),
	);
}

/** One listing per item (groups.ts). */
export const run = eachItem(execute);
