// Why: Job → Get Many: export jobs by creation time, email, status or URL, newest or oldest first.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import { nonEmpty, text, validate } from '../../../shared/validation';
import { equalTo, listEach, readResultLimit, returnAllOrLimit, type ListInput } from '../getMany';
import { shownFor } from '../resourceDescription';
import { collection } from '../../../shared/collection';
import { instant, JOB_LABELS, STATUS_OPTIONS, status } from './fields';

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
			default: 'finished',
			options: STATUS_OPTIONS,
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
		default: 'newest',
		options: [
			{ name: 'Newest First', value: 'newest', description: 'Most recently created jobs first' },
			{ name: 'Oldest First', value: 'oldest', description: 'Jobs in the order they were created' },
		],
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

/** The filters, as the editor names them. */
const FILTERS = { ...JOB_LABELS, createdAfter: 'Created After', createdBefore: 'Created Before' };

export function prepare(this: IExecuteFunctions, itemIndex: number): ListInput {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const given: IDataObject = { sort: this.getNodeParameter('sort', itemIndex, 'newest') };
	for (const name of Object.keys(FILTERS)) given[name] = nonEmpty(raw[name]);
	const schema = filterSchema(this.getTimezone());
	const wanted = validate(this, schema, given, itemIndex, { ...FILTERS, sort: 'Sort' });
	const { createdAfter, createdBefore } = wanted;
	if (createdAfter && createdBefore && createdAfter >= createdBefore) {
		const message = 'Created After must be earlier than Created Before';
		const description =
			`No job can match ${createdAfter} ≤ created < ${createdBefore}` + ` [item ${itemIndex}]`;
		throw new NodeOperationError(this.getNode(), message, { itemIndex, description });
	}
	const filters = equalTo({ status: wanted.status, url: wanted.url, email: wanted.email });
	if (createdAfter) filters.push({ column: 'created_at', operator: 'gte', value: createdAfter });
	if (createdBefore) filters.push({ column: 'created_at', operator: 'lt', value: createdBefore });
	// The id breaks ties between jobs created in the same instant, so pages never overlap.
	const descending = wanted.sort === 'newest';
	const order = ['created_at', 'id'].map((column) => ({ column, descending }));
	return { filters, order, max: readResultLimit.call(this, itemIndex), fields: FILTERS };
}

/** One listing per item. */
export const execute = listEach('jobs');
