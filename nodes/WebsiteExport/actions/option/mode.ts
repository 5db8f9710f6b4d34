// Why: an option's export mode and the field each mode needs, for Create, Update and Get Many.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { text, webAddress } from '../../../shared/validation';

/** Export modes: how links inside the exported site are treated. */
export const MODE_OPTIONS = [
	{
		name: 'Offline',
		value: 'offline',
		description: 'Rewrite links so the archive browses offline, from disk',
	},
	{
		name: 'Relative',
		value: 'relative',
		description: 'Make links relative to a path, e.g. a subdirectory',
	},
	{ name: 'Absolute', value: 'absolute', description: 'Point links at a replacement address' },
];

/** `prefix` + `name` in camelCase: `relativePath`, or `optionRelativePath` with prefix `option`. */
const prefixed = (prefix: string, name: string) =>
	prefix ? `${prefix}${name.charAt(0).toUpperCase()}${name.slice(1)}` : name;

/**
 * One item's Mode and the field that goes with it, as entered (`prefix`: Job → Create's export
 * option), for modeFields to validate.
 */
export function readModeFields(
	this: IExecuteFunctions,
	itemIndex: number,
	prefix = '',
): IDataObject {
	const entered = (name: string) => this.getNodeParameter(prefixed(prefix, name), itemIndex, '');
	const mode = entered('mode');
	return {
		mode,
		relative_path: mode === 'relative' ? entered('relativePath') : undefined,
		replace_url: mode === 'absolute' ? entered('replaceUrl') : undefined,
	};
}

/**
 * Mode with its dependent field: Relative Path only for relative, Replace URL only for absolute.
 */
export function modeProperties(prefix = ''): INodeProperties[] {
	const modeName = prefixed(prefix, 'mode');
	return [
		{
			displayName: 'Mode',
			name: modeName,
			type: 'options',
			default: 'offline',
			options: MODE_OPTIONS,
			description: 'How links inside the exported site are treated',
		},
		{
			displayName: 'Relative Path',
			name: prefixed(prefix, 'relativePath'),
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. /docs/',
			description: 'Path the links are made relative to',
			displayOptions: { show: { [modeName]: ['relative'] } },
		},
		{
			displayName: 'Replace URL',
			name: prefixed(prefix, 'replaceUrl'),
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://mirror.example.com',
			description: 'Address the links are rewritten to',
			displayOptions: { show: { [modeName]: ['absolute'] } },
		},
	];
}

/** A path such as a subdirectory: always starts with a slash, no parent references. */
export const relativePath = text(1024)
	.trim()
	.min(1, 'is required when the mode is Relative')
	.refine((value) => !value.split('/').includes('..'), 'must not contain ".."')
	.transform((value) => (value.startsWith('/') ? value : `/${value}`));

/** The option's body fields for one mode; the service rejects the other combinations. */
export const modeFields = z.discriminatedUnion('mode', [
	z.object({ mode: z.literal('offline') }),
	z.object({ mode: z.literal('relative'), relative_path: relativePath }),
	z.object({ mode: z.literal('absolute'), replace_url: webAddress }),
]);

/**
 * A new option's row with every column: the service shows `/` and an empty string where a field
 * is not relevant (its defaults), and the rows of one create request must all have the same keys.
 */
export const optionRow = (body: IDataObject): IDataObject => ({
	mode: body.mode,
	relative_path: body.relative_path ?? '/',
	replace_url: body.replace_url ?? '',
	job_id: body.job_id ?? null,
});

export const MODE_LABELS = {
	mode: 'Mode',
	relative_path: 'Relative Path',
	replace_url: 'Replace URL',
	job_id: 'Job ID',
};
