// Why: the Download resource: its operations and its Operation selector.
import type { Operation } from '../types';
import { recordOperationOptions, resourceDescription } from '../resourceDescription';
import * as downloadArchive from './downloadArchive.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

// Downloads are created by the service when a job finishes:
// they can only be read (README, Operations).
export const operations: Record<string, Operation> = { get, getAll, downloadArchive };

export const description = resourceDescription(
	'download',
	operations,
	[
		{
			name: 'Download Archive',
			value: 'downloadArchive',
			description: 'Download the exported website as a ZIP file (binary data)',
			action: 'Download the archive of an export',
		},
		...recordOperationOptions({ one: 'a download link', many: 'download links' }).filter(
			(option) => String(option.value) in operations,
		),
	],
	'getAll',
);
