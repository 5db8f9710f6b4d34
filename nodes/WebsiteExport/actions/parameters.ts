// Why: the readers of the parameters several operations share, each validated before any request: Select By, record locators, Job ID, Limit and Update Fields.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import type { Filter } from '../../shared/transport';
import { recordId, text, validate } from '../../shared/validation';
import { capitalize } from './properties';

/** An empty parameter counts as not given. */
export const nonEmpty = <T>(value: T | '' | undefined): T | undefined =>
	value === '' ? undefined : value;

/** A resource locator's value as n8n stores it. */
interface Locator {
	__rl?: true;
	mode?: string;
	value?: unknown;
}

/** The picked record's ID and how it was picked: a plain value (version 1) counts as By ID. */
export function readLocatorValue(raw: unknown): { mode: string; value: unknown } {
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw) {
		const locator = raw as Locator;
		return { mode: locator.mode ?? 'id', value: locator.value };
	}
	return { mode: 'id', value: raw };
}

const selection = z.discriminatedUnion('selectBy', [
	z.object({ selectBy: z.literal('id'), recordId }),
	z.object({ selectBy: z.literal('url'), url: text(2048).trim().min(1, 'is required') }),
	z.object({
		selectBy: z.literal('field'),
		selectField: z.string().min(1),
		selectValue: text(2048).min(1, 'is required'),
	}),
]);

export interface Selection {
	filters: Filter[];
	/** How the record is named in messages, e.g. `job with ID 5`. */
	label: string;
	byId: boolean;
}

/** Select By ID's value, from a plain ID (version 1) or a resource locator (version 2). */
function readRecordId(
	raw: unknown,
): { selectBy: 'id'; recordId: unknown } | { selectBy: 'url'; url: unknown } {
	const locator = readLocatorValue(raw);
	return locator.mode === 'url'
		? { selectBy: 'url', url: locator.value }
		: { selectBy: 'id', recordId: locator.value };
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
		return {
			filters: [{ column: 'url', operator: 'eq', value: parsed.url }],
			label: `${noun} with URL "${parsed.url}"`,
			byId: false,
		};
	}
	if (parsed.selectBy === 'id') {
		return {
			filters: [{ column: 'id', operator: 'eq', value: parsed.recordId }],
			label: `${noun} with ID ${parsed.recordId}`,
			byId: true,
		};
	}
	return {
		filters: [{ column: parsed.selectField, operator: 'eq', value: parsed.selectValue }],
		label: `${noun} with ${parsed.selectField} "${parsed.selectValue}"`,
		byId: false,
	};
}

/** A Job ID from either version's field, for validation with `recordId`; empty means not given. */
export const readJobId = (raw: unknown): unknown => nonEmpty(readLocatorValue(raw).value);

/** The row cap of a Get Many item: undefined means all of them. */
export function readResultLimit(this: IExecuteFunctions, itemIndex: number): number | undefined {
	if (this.getNodeParameter('returnAll', itemIndex, false)) return undefined;
	const limit = validate(
		this,
		z.number().int('must be a whole number').positive('must be at least 1'),
		this.getNodeParameter('limit', itemIndex, 50),
		itemIndex,
		{ '': 'Limit' },
	);
	return limit;
}

export interface SelectedPatch {
	selection: Selection;
	patch: IDataObject;
}

/** Update's input: the record Select By names and an already validated patch, which must change something. */
export function readSelectedPatch(
	this: IExecuteFunctions,
	noun: string,
	itemIndex: number,
	patch: IDataObject,
): SelectedPatch {
	// An empty PATCH would be a request that changes nothing: an input error, caught before sending.
	if (Object.values(patch).every((value) => value === undefined)) {
		throw new NodeOperationError(
			this.getNode(),
			'Nothing to update: add at least one field under Update Fields',
			{ itemIndex },
		);
	}
	return { selection: readSelection.call(this, noun, itemIndex), patch };
}
