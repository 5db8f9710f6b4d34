import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import type { ResourceName } from '../../shared/constants';
import type { Filter } from '../../shared/transport';
import { recordId, text, validate } from '../../shared/validation';
import type { ItemRun } from './types';

/** An empty parameter counts as not given. */
export const given = <T>(value: T | '' | undefined): T | undefined => (value === '' ? undefined : value);

export const toItems = (records: IDataObject[]): INodeExecutionData[] => records.map((json) => ({ json }));

/**
 * "Select By": the record an operation acts on, by ID (the recommended way, spec rule 1) or by
 * another field that identifies it; the node checks that such a value matches exactly one record.
 */
export function recordSelector(noun: string, fields: Array<{ name: string; value: string }>): INodeProperties[] {
	const defaultField = fields[0].value;
	// Same name and value 'id' in both versions, so stored workflows keep their choice; in version 2
	// that choice is a locator (From List, By ID, By URL), not just an ID.
	const selectBy = (idChoice: { name: string; description: string }, versions: IDisplayOptions['show']): INodeProperties => ({
		displayName: 'Select By',
		name: 'selectBy',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: idChoice.name, value: 'id', description: idChoice.description },
			{ name: 'Another Field', value: 'field', description: `A field whose value identifies one ${noun}` },
		],
		default: 'id',
		displayOptions: { show: versions },
	});
	return [
		selectBy({ name: 'ID', description: `The ${noun}'s ID, as listed by Get Many` }, ONLY_VERSION_1),
		selectBy({ name: 'Record', description: `The ${noun} picked from the list, by ID${noun === 'job' ? ' or by URL' : ''}` }, FROM_VERSION_2),
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
		recordLocator(noun, 'recordId', { selectBy: ['id'] }),
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

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** Version 2 of the node picks records with resource locators; version 1 keeps its plain ID fields. */
export const FROM_VERSION_2 = { '@version': [{ _cnd: { gte: 2 } }] };
export const ONLY_VERSION_1 = { '@version': [1] };

const SEARCH_METHODS: Record<string, string> = { job: 'searchJobs', option: 'searchOptions', download: 'searchDownloads' };

/** A record picked From List (searched and paged by the service, newest first), By ID, or By URL where offered. */
function locator(noun: string, name: string, byUrl: boolean): INodeProperties {
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
				validation: [{ type: 'regex', properties: { regex: '^\\s*[1-9]\\d*\\s*$', errorMessage: 'Not a valid ID: a whole number greater than 0' } }],
			},
			...(byUrl
				? [{ displayName: 'By URL', name: 'url', type: 'string' as const, placeholder: 'e.g. https://example.com', hint: 'The exact URL the job was created with; it must match one job' }]
				: []),
		],
	};
}

/** The record an operation acts on (version 2); a job can also be picked By URL, which must match exactly one job. */
export function recordLocator(noun: string, name: string, show: Record<string, string[]> = {}): INodeProperties {
	return { ...locator(noun, name, noun === 'job'), required: true, displayOptions: { show: { ...show, ...FROM_VERSION_2 } } };
}

/** A resource locator's value as n8n stores it. */
interface Locator {
	__rl?: true;
	mode?: string;
	value?: unknown;
}

/** The picked record's ID and how it was picked: a plain value (version 1) counts as By ID. */
export function readLocator(raw: unknown): { mode: string; value: unknown } {
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw) {
		const locator = raw as Locator;
		return { mode: locator.mode ?? 'id', value: locator.value };
	}
	return { mode: 'id', value: raw };
}

const selection = z.discriminatedUnion('selectBy', [
	z.object({ selectBy: z.literal('id'), recordId }),
	z.object({ selectBy: z.literal('url'), url: text(2048).trim().min(1, 'is required') }),
	z.object({ selectBy: z.literal('field'), selectField: z.string().min(1), selectValue: text(2048).min(1, 'is required') }),
]);

export interface Selection {
	filters: Filter[];
	/** How the record is named in messages, e.g. `job with ID 5`. */
	label: string;
	byId: boolean;
}

/** Select By ID's value, from a plain ID (version 1) or a resource locator (version 2). */
function readRecordId(raw: unknown): { selectBy: 'id'; recordId: unknown } | { selectBy: 'url'; url: unknown } {
	const locator = readLocator(raw);
	return locator.mode === 'url' ? { selectBy: 'url', url: locator.value } : { selectBy: 'id', recordId: locator.value };
}

/** Reads and validates the Select By parameters of one item. */
export function readSelection(this: IExecuteFunctions, noun: string, itemIndex: number): Selection {
	const selectBy = this.getNodeParameter('selectBy', itemIndex, 'id') as string;
	const raw =
		selectBy === 'field'
			? {
					selectBy,
					selectField: this.getNodeParameter('selectField', itemIndex),
					selectValue: String(this.getNodeParameter('selectValue', itemIndex, '')),
				}
			: readRecordId(this.getNodeParameter('recordId', itemIndex));
	const parsed = validate(this, selection, raw, itemIndex, {
		recordId: `${capitalize(noun)} ID`,
		url: `${capitalize(noun)} URL`,
		selectValue: 'Value',
		selectField: 'Field',
	});
	if (parsed.selectBy === 'url') {
		return { filters: [{ column: 'url', operator: 'eq', value: parsed.url }], label: `${noun} with URL "${parsed.url}"`, byId: false };
	}
	if (parsed.selectBy === 'id') {
		return { filters: [{ column: 'id', operator: 'eq', value: parsed.recordId }], label: `${noun} with ID ${parsed.recordId}`, byId: true };
	}
	return {
		filters: [{ column: parsed.selectField, operator: 'eq', value: parsed.selectValue }],
		label: `${noun} with ${parsed.selectField} "${parsed.selectValue}"`,
		byId: false,
	};
}

/**
 * The one record a selection names. Under row-level security a record of another account is
 * invisible, so "not found" covers both cases; a field value shared by several records is
 * refused rather than guessed.
 */
export function requireOne<T extends IDataObject>(this: IExecuteFunctions, rows: T[], selection: Selection, itemIndex: number): T {
	if (rows.length === 1) return rows[0];
	const missing = rows.length === 0;
	throw new NodeApiError(
		this.getNode(),
		{ message: missing ? 'not found' : 'ambiguous' },
		{
			message: missing ? `No ${selection.label} was found` : `${rows.length} records match the ${selection.label}`,
			description: missing
				? 'It does not exist, or it belongs to another account (the service only shows your own records).'
				: 'Select By must identify exactly one record: use the ID, or a field whose value is unique.',
			httpCode: missing ? '404' : '409',
			itemIndex,
		},
	);
}

/**
 * Filters that target exactly the selected record. By ID they are used as they are; by another
 * field, the record is looked up first so that an update or delete never touches several.
 */
export async function resolveTarget(
	this: IExecuteFunctions,
	run: ItemRun<unknown>,
	resource: ResourceName,
	selection: Selection,
): Promise<Filter[]> {
	if (selection.byId) return selection.filters;
	const record = await fetchOne.call(this, run, resource, selection, ['id']);
	return [{ column: 'id', operator: 'eq', value: record.id as number }];
}

/**
 * A collection whose options include a Job ID (options and downloads belong to a job), once per
 * version under the same name: version 1 keeps the plain string field, version 2 picks the job
 * From List or By ID. Two collections rather than two `jobId` entries in one: n8n's editor adds
 * a collection entry with the default of the first entry of that name, whatever its version.
 */
export function withJobId(collection: INodeProperties, jobIdDescription: string, otherOptions: INodeProperties[] = []): INodeProperties[] {
	const jobIdField: INodeProperties = { displayName: 'Job ID', name: 'jobId', type: 'string', default: '', placeholder: 'e.g. 42', description: jobIdDescription };
	// No By URL here: a URL may name several jobs, and a Job ID names one.
	const jobLocator: INodeProperties = { ...locator('job', 'jobId', false), description: jobIdDescription };
	return [
		{ ...collection, displayOptions: { show: ONLY_VERSION_1 }, options: [jobIdField, ...otherOptions] },
		{ ...collection, displayOptions: { show: FROM_VERSION_2 }, options: [jobLocator, ...otherOptions] },
	];
}

/** A Job ID from either version's field, for validation with `recordId`; empty means not given. */
export const readJobId = (raw: unknown): unknown => given(readLocator(raw).value);

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
export function readMax(this: IExecuteFunctions, itemIndex: number): number | undefined {
	if (this.getNodeParameter('returnAll', itemIndex, false)) return undefined;
	const limit = validate(this, z.number().int('must be a whole number').positive('must be at least 1'), this.getNodeParameter('limit', itemIndex, 50), itemIndex, { '': 'Limit' });
	return limit;
}

/** The one record a selection names: one request of 2 rows at most, enough to tell an ambiguous one. */
export async function fetchOne(this: IExecuteFunctions, run: ItemRun<unknown>, resource: ResourceName, selection: Selection, select?: string[]): Promise<IDataObject> {
	const page = await run.client.select(resource, { select, filters: selection.filters, limit: 2 }, { itemIndex: run.itemIndex });
	return requireOne.call(this, page.rows, selection, run.itemIndex);
}

/** `prepare` of the operations that only pick a record (Get, Delete): what Select By names. */
export function selectionOf(noun: string) {
	return function (this: IExecuteFunctions, itemIndex: number): Selection {
		return readSelection.call(this, noun, itemIndex);
	};
}

export interface SelectedPatch {
	selection: Selection;
	patch: IDataObject;
}

/** Update's input: the record Select By names and an already validated patch, which must change something. */
export function readSelectedPatch(this: IExecuteFunctions, noun: string, itemIndex: number, patch: IDataObject): SelectedPatch {
	// An empty PATCH would be a request that changes nothing: an input error, caught before sending.
	if (Object.values(patch).every((value) => value === undefined)) {
		throw new NodeOperationError(this.getNode(), 'Nothing to update: add at least one field under Update Fields', { itemIndex });
	}
	return { selection: readSelection.call(this, noun, itemIndex), patch };
}

/** Update: applies the patch to the selected record and returns it as stored. */
export async function updateSelected(this: IExecuteFunctions, run: ItemRun<SelectedPatch>, resource: ResourceName): Promise<IDataObject> {
	const { selection, patch } = run.input;
	const target = await resolveTarget.call(this, run, resource, selection);
	const rows = await run.client.update(resource, target, patch, { itemIndex: run.itemIndex });
	return requireOne.call(this, rows, selection, run.itemIndex);
}

/** Delete: removes the selected record and returns it, marked `deleted: true`. */
export async function deleteSelected(this: IExecuteFunctions, run: ItemRun<Selection>, resource: ResourceName): Promise<IDataObject> {
	const selection = run.input;
	const target = await resolveTarget.call(this, run, resource, selection);
	const rows = await run.client.remove(resource, target, { itemIndex: run.itemIndex });
	return { deleted: true, ...requireOne.call(this, rows, selection, run.itemIndex) };
}
