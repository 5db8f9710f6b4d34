// Why: Option → Update: changes the mode, its path or address, or the job of the option picked.
import { z } from 'zod';

import { nonEmpty, recordId, validate, webAddress } from '../../../shared/validation';
import { jobIdOption, readJobId } from '../selectBy';
import { updateOperation } from '../selectedRecord';
import { MODE_LABELS, MODE_OPTIONS, relativePath } from './mode';

const patchSchema = z
	.object({
		mode: z.enum(['offline', 'relative', 'absolute']).optional(),
		relative_path: relativePath.optional(),
		replace_url: webAddress.optional(),
		job_id: recordId.optional(),
	})
	// The same rules as on create: a new mode brings the field it needs.
	.refine((patch) => patch.mode !== 'relative' || patch.relative_path !== undefined, {
		message: 'is required when the mode is changed to Relative',
		path: ['relative_path'],
	})
	.refine((patch) => patch.mode !== 'absolute' || patch.replace_url !== undefined, {
		message: 'is required when the mode is changed to Absolute',
		path: ['replace_url'],
	});

export const { description, prepare, execute } = updateOperation(
	'option',
	[
		jobIdOption('Job the option belongs to'),
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'options',
			options: MODE_OPTIONS,
			default: 'offline',
			description: 'How links inside the exported site are treated',
			hint: 'Relative needs a Relative Path, Absolute a Replace URL',
		},
		{
			displayName: 'Relative Path',
			name: 'relativePath',
			type: 'string',
			default: '',
			placeholder: 'e.g. /docs/',
			description: 'Path the links are made relative to (mode Relative)',
		},
		{
			displayName: 'Replace URL',
			name: 'replaceUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://mirror.example.com',
			description: 'Address the links are rewritten to (mode Absolute)',
		},
	],
	function (fields, itemIndex) {
		return validate(
			this,
			patchSchema,
			{
				mode: nonEmpty(fields.mode),
				relative_path: nonEmpty(fields.relativePath),
				replace_url: nonEmpty(fields.replaceUrl),
				job_id: readJobId(fields.jobId),
			},
			itemIndex,
			MODE_LABELS,
		);
	},
);
