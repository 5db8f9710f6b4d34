// Why: the editor properties several operations share: where an operation's properties show, Select By, the record locators of version 2, the Job ID collections and Return All / Limit.
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Resource } from './types';

/** An operation's own properties, shown only while its resource and operation are chosen. */
export const shownFor = (resource: Resource, operation: string, properties: INodeProperties[]) =>
	updateDisplayOptions({ show: { resource: [resource], operation: [operation] } }, properties);

/** The fields besides the ID that Select By may name a record by. */
export type SelectByFields = Array<{ name: string; value: string }>;

export const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * "Select By": the record an operation acts on, by ID (the recommended way) or by
 * another field that identifies it; the node checks that such a value matches exactly one record.
 */
export function selectByProperties(noun: string, fields: SelectByFields): INodeProperties[] {
	return [
		selectByOption(
			noun,
			{ name: 'ID', description: `The ${noun}'s ID, as listed by Get Many` },
			ONLY_VERSION_1,
		),
		selectByOption(
			noun,
			{
				name: 'Record',
				description: `The ${noun} picked from the list, by ID${noun === 'job' ? ' or by URL' : ''}`,
			},
			FROM_VERSION_2,
		),
		{
			displayName: `${capitalize(noun)} ID`,
			name: 'recordId',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 42',
			description: `ID of the ${noun}`,
			displayOptions: { show: { selectBy: ['id'], ...ONLY_VERSION_1 } },
		},
		recordLocatorProperty(noun, 'recordId', { selectBy: ['id'] }),
		...selectByFieldProperties(noun, fields),
	];
}

/**
 * The "Select By" choice itself. Same name and value 'id' in both versions, so stored workflows
 * keep their choice; in version 2 that choice is a locator (From List, By ID, By URL), not just an ID.
 */
function selectByOption(
	noun: string,
	idChoice: { name: string; description: string },
	versions: IDisplayOptions['show'],
): INodeProperties {
	return {
		displayName: 'Select By',
		name: 'selectBy',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: idChoice.name, value: 'id', description: idChoice.description },
			{
				name: 'Another Field',
				value: 'field',
				description: `A field whose value identifies one ${noun}`,
			},
		],
		default: 'id',
		displayOptions: { show: versions },
	};
}

/** Select By "Another Field": which field, and the value it must equal. */
function selectByFieldProperties(noun: string, fields: SelectByFields): INodeProperties[] {
	const defaultField = fields[0].value;
	return [
		{
			displayName: 'Field',
			name: 'selectField',
			type: 'options',
			options: fields,
			default: defaultField,
			description: `Field to find the ${noun} by; its value must match exactly one ${noun}`,
			displayOptions: { show: { selectBy: ['field'] } },
		},
		{
			displayName: 'Value',
			name: 'selectValue',
			type: 'string',
			required: true,
			default: '',
			description: 'Value the field must equal (exact match)',
			displayOptions: { show: { selectBy: ['field'] } },
		},
	];
}

/** Version 2 of the node picks records with resource locators; version 1 keeps its plain ID fields. */
export const FROM_VERSION_2 = { '@version': [{ _cnd: { gte: 2 } }] };
export const ONLY_VERSION_1 = { '@version': [1] };

const SEARCH_METHODS: Record<string, string> = {
	job: 'searchJobs',
	option: 'searchOptions',
	download: 'searchDownloads',
};

/** A record picked From List (searched and paged by the service, newest first), By ID, or By URL where offered. */
function locatorProperty(noun: string, name: string, byUrl: boolean): INodeProperties {
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
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 42',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^\\s*[1-9]\\d*\\s*$',
							errorMessage: 'Not a valid ID: a whole number greater than 0',
						},
					},
				],
			},
			...(byUrl
				? [
						{
							displayName: 'By URL',
							name: 'url',
							type: 'string' as const,
							placeholder: 'e.g. https://example.com',
							hint: 'The exact URL the job was created with; it must match one job',
						},
					]
				: []),
		],
	};
}

/** The record an operation acts on (version 2); a job can also be picked By URL, which must match exactly one job. */
export function recordLocatorProperty(
	noun: string,
	name: string,
	show: Record<string, string[]> = {},
): INodeProperties {
	return {
		...locatorProperty(noun, name, noun === 'job'),
		required: true,
		displayOptions: { show: { ...show, ...FROM_VERSION_2 } },
	};
}

/**
 * A collection whose options include a Job ID (options and downloads belong to a job), once per
 * version under the same name: version 1 keeps the plain string field, version 2 picks the job
 * From List or By ID. Two collections rather than two `jobId` entries in one: n8n's editor adds
 * a collection entry with the default of the first entry of that name, whatever its version.
 */
export function withJobId(
	collection: INodeProperties,
	jobIdDescription: string,
	otherOptions: INodeProperties[] = [],
): INodeProperties[] {
	const jobIdField: INodeProperties = {
		displayName: 'Job ID',
		name: 'jobId',
		type: 'string',
		default: '',
		placeholder: 'e.g. 42',
		description: jobIdDescription,
	};
	// No By URL here: a URL may name several jobs, and a Job ID names one.
	const jobLocator: INodeProperties = {
		...locatorProperty('job', 'jobId', false),
		description: jobIdDescription,
	};
	return [
		{
			...collection,
			displayOptions: { show: ONLY_VERSION_1 },
			options: [jobIdField, ...otherOptions],
		},
		{
			...collection,
			displayOptions: { show: FROM_VERSION_2 },
			options: [jobLocator, ...otherOptions],
		},
	];
}

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
