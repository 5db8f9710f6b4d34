// Why: picking a record in the editor (From List, searched by the service; By ID; a job also By URL) and reading what was picked.
import type { INodeProperties } from 'n8n-workflow';

import { nonEmpty } from '../../shared/validation';
import type { Resource } from './types';

export const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

const SEARCH_METHODS: Record<Resource, string> = {
	job: 'searchJobs',
	option: 'searchOptions',
	download: 'searchDownloads',
};

/** A record picked From List (searched and paged by the service, newest first), By ID, or By URL where offered. */
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
					regex: '^\\s*[1-9]\\d*\\s*$',
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

/** The record an operation acts on; a job can also be picked By URL, which must match exactly one job. */
export function recordLocatorProperty(
	noun: Resource,
	name: string,
	show: Record<string, string[]> = {},
): INodeProperties {
	const displayOptions = Object.keys(show).length > 0 ? { displayOptions: { show } } : {};
	return { ...locatorProperty(noun, name, noun === 'job'), required: true, ...displayOptions };
}

/** The Job ID of a collection (options and downloads belong to a job): no By URL, as a URL may name several jobs. */
export const jobIdOption = (description: string): INodeProperties => ({
	...locatorProperty('job', 'jobId', false),
	description,
});

/** The picked record's ID and how it was picked; a plain value (e.g. an AI tool's argument) counts as By ID. */
export function readLocatorValue(raw: unknown): { mode: string; value: unknown } {
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw) {
		const locator = raw as { mode?: string; value?: unknown };
		return { mode: locator.mode ?? 'id', value: locator.value };
	}
	return { mode: 'id', value: raw };
}

/** A Job ID option's value, for validation with `recordId`; empty means not given. */
export const readJobId = (raw: unknown): unknown => nonEmpty(readLocatorValue(raw).value);
