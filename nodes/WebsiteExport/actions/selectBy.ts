// Why: Select By: how an item picks the record Get, Update or Delete acts on; the record locators.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import type { Filter } from '../../shared/transport';
import { asIdValue, ID_PATTERN, nonEmpty, recordId, text, validate } from '../../shared/validation';
import type { Resource } from './types';

/** The fields besides the ID that Select By may name a record by, for every resource. */
export const SELECT_BY_FIELDS: Record<Resource, Array<{ name: string; value: string }>> = {
	job: [
		{ name: 'URL', value: 'url' },
		{ name: 'Email', value: 'email' },
	],
	// Not Created At: it is not unique, and the rows created in one request share it.
	option: [{ name: 'Job ID', value: 'job_id' }],
	download: [
		{ name: 'Job ID', value: 'job_id' },
		{ name: 'Download Link', value: 'download_link' },
	],
};

/**
 * "Select By": the record an operation acts on, picked as a record (From List, By ID, a job also
 * By URL) or by another field; the node checks that such a value matches exactly one record.
 */
export function selectByProperties(noun: Resource): INodeProperties[] {
	const fields = SELECT_BY_FIELDS[noun];
	const defaultField = fields[0].value;
	const byRecord = `The ${noun} picked from the list, by ID${noun === 'job' ? ' or by URL' : ''}`;
	const onField = { displayOptions: { show: { selectBy: ['field'] } } };
	return [
		{
			displayName: 'Select By',
			name: 'selectBy',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Record', value: 'id', description: byRecord },
				{
					name: 'Another Field',
					value: 'field',
					description: `A field whose value identifies one ${noun}`,
				},
			],
			default: 'id',
		},
		recordLocatorProperty(noun, 'recordId', { selectBy: ['id'] }),
		{
			displayName: 'Field',
			name: 'selectField',
			type: 'options',
			options: fields,
			default: defaultField,
			description: `Field to find the ${noun} by; its value must match exactly one ${noun}`,
			...onField,
		},
		{
			displayName: 'Value',
			name: 'selectValue',
			type: 'string',
			required: true,
			default: '',
			description: 'Value the field must equal (exact match)',
			...onField,
		},
	];
}

/** The Select By fields that hold an ID: their values are read as the service reads an integer. */
const ID_COLUMNS = new Set(['job_id']);

/**
 * Select By's rules for one resource: a field of its own list (SELECT_BY_FIELDS),
 * values that can be sent.
 */
const selectionSchema = (noun: Resource) =>
	z.discriminatedUnion('selectBy', [
		z.object({ selectBy: z.literal('id'), recordId }),
		z.object({ selectBy: z.literal('url'), url: text(2048).trim().min(1, 'is required') }),
		z.object({
			selectBy: z.literal('field'),
			selectField: z
				.string()
				.refine((field) => SELECT_BY_FIELDS[noun].some(({ value }) => value === field), {
					message: `must be one of ${SELECT_BY_FIELDS[noun].map(({ value }) => value).join(', ')}`,
				}),
			selectValue: text(2048).min(1, 'is required'),
		}),
	]);

const SELECTIONS = {
	job: selectionSchema('job'),
	option: selectionSchema('option'),
	download: selectionSchema('download'),
};

/**
 * The record one item names: the filter that finds it (one column, one value)
 * and how messages name it.
 */
export interface Selection {
	filters: Filter[];
	/** How the record is named in messages, e.g. `job with ID 5`. */
	label: string;
	/** The editor's name of the value given (`Job URL`, `Value`): a value too long names it. */
	field: string;
}

/** Reads and validates the Select By parameters of one item. */
export function readSelection(
	this: IExecuteFunctions,
	noun: Resource,
	itemIndex: number,
): Selection {
	const selectBy = this.getNodeParameter('selectBy', itemIndex, 'id') as string;
	const locator = readLocatorValue(this.getNodeParameter('recordId', itemIndex, ''));
	const raw =
		selectBy === 'field'
			? {
					selectBy,
					selectField: this.getNodeParameter('selectField', itemIndex),
					selectValue: String(this.getNodeParameter('selectValue', itemIndex, '')),
				}
			: locator.mode === 'url'
				? { selectBy: 'url', url: locator.value }
				: { selectBy: 'id', recordId: locator.value };
	const names = {
		recordId: `${capitalize(noun)} ID`,
		url: `${capitalize(noun)} URL`,
		selectValue: 'Value',
		selectField: 'Field',
	};
	const parsed = validate(this, SELECTIONS[noun], raw, itemIndex, names);
	const [column, value, label] =
		parsed.selectBy === 'id'
			? ['id', parsed.recordId, `${noun} with ID ${parsed.recordId}`]
			: parsed.selectBy === 'url'
				? ['url', parsed.url, `${noun} with URL "${parsed.url}"`]
				: [
						parsed.selectField,
						ID_COLUMNS.has(parsed.selectField) ? asIdValue(parsed.selectValue) : parsed.selectValue,
						`${noun} with ${parsed.selectField} "${parsed.selectValue}"`,
					];
	const field = { id: names.recordId, url: names.url, field: names.selectValue }[parsed.selectBy];
	return { filters: [{ column, operator: 'eq', value }], label, field };
}

export const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

const SEARCH_METHODS: Record<Resource, string> = {
	job: 'searchJobs',
	option: 'searchOptions',
	download: 'searchDownloads',
};

/**
 * A record picked From List (searched and paged by the service, newest first), By ID, or By URL
 * where offered.
 */
function locatorProperty(noun: Resource, name: string, byUrl: boolean): INodeProperties {
	const byId = {
		displayName: 'By ID',
		name: 'id',
		type: 'string' as const,
		placeholder: 'e.g. 42',
		validation: [
			{
				type: 'regex' as const,
				properties: {
					regex: ID_PATTERN,
					errorMessage: 'Not a valid ID: a whole number greater than 0',
				},
			},
		],
	};
	const byUrlMode = {
		displayName: 'By URL',
		name: 'url',
		type: 'string' as const,
		placeholder: 'e.g. https://example.com',
		hint: 'The exact URL the job was created with; it must match one job',
	};
	return {
		displayName: capitalize(noun),
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description: `The ${noun} to use`,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}...`,
				typeOptions: { searchListMethod: SEARCH_METHODS[noun], searchable: true },
			},
			byId,
			...(byUrl ? [byUrlMode] : []),
		],
	};
}

/**
 * The record an operation acts on; a job can also be picked By URL,
 * which must match exactly one job.
 */
export function recordLocatorProperty(
	noun: Resource,
	name: string,
	show: Record<string, string[]> = {},
): INodeProperties {
	const displayOptions = Object.keys(show).length > 0 ? { displayOptions: { show } } : {};
	return { ...locatorProperty(noun, name, noun === 'job'), required: true, ...displayOptions };
}

/**
 * The Job ID of a collection (options and downloads belong to a job): no By URL, as a URL may name
 * several jobs.
 */
export const jobIdOption = (description: string): INodeProperties => ({
	...locatorProperty('job', 'jobId', false),
	description,
});

/**
 * The picked record's ID and how it was picked;
 * a plain value (e.g. an AI tool's argument) counts as By ID.
 */
export function readLocatorValue(raw: unknown): { mode: string; value: unknown } {
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw) {
		const locator = raw as { mode?: string; value?: unknown };
		return { mode: locator.mode ?? 'id', value: locator.value };
	}
	return { mode: 'id', value: raw };
}

/** A Job ID option's value, for validation with `recordId`; empty means not given. */
export const readJobId = (raw: unknown): unknown => nonEmpty(readLocatorValue(raw).value);
