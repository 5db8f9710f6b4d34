// Why: Download → Download Archive: the ZIP of an export as binary data, by download ID or by link.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { recordId, validate, webAddress } from '../../../shared/validation';
import { readLocatorValue, recordLocatorProperty } from '../selectBy';
import { shownFor } from '../resourceDescription';
import { forEachItem, runGroups } from '../groups';
import { readSelected } from '../selectedRecord';
import type { ItemResult, ItemTask, RunSettings } from '../types';
import type { Selection } from '../selectBy';
import { downloadArchive, type ArchiveInput } from './archive';

const properties: INodeProperties[] = [
	{
		displayName: 'Download By',
		name: 'downloadBy',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'ID',
				value: 'id',
				description:
					'Look the download up by its ID first (one extra request), which also tells whether its link has expired',
			},
			{
				name: 'Link',
				value: 'link',
				description:
					'Use a download link from the input, e.g. from the trigger or Get Many (no extra request)',
			},
		],
		default: 'id',
	},
	recordLocatorProperty('download', 'downloadId', { downloadBy: ['id'] }),
	{
		displayName: 'Download Link',
		name: 'downloadLink',
		type: 'string',
		required: true,
		default: '={{ $json.download_link }}',
		placeholder: 'e.g. https://<project>.supabase.co/storage/v1/object/public/exports/site.zip',
		description: 'Address of the archive; by default the download_link field of the input item',
		displayOptions: { show: { downloadBy: ['link'] } },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the output binary field to put the archive in',
	},
];

export const description = shownFor('download', 'downloadArchive', properties);

const binaryProperty = z
	.string()
	.trim()
	.min(1, 'is required, e.g. data')
	.max(200, 'is longer than 200 characters')
	.regex(/^\S+$/, 'must not contain spaces, e.g. data or archive_zip');

const schema = z.intersection(
	z.object({ binaryPropertyName: binaryProperty }),
	z.discriminatedUnion('downloadBy', [
		z.object({ downloadBy: z.literal('id'), downloadId: recordId }),
		z.object({ downloadBy: z.literal('link'), downloadLink: webAddress }),
	]),
);

const LABELS = {
	binaryPropertyName: 'Put Output File in Field',
	downloadId: 'Download ID',
	downloadLink: 'Download Link',
};

export function prepare(this: IExecuteFunctions, itemIndex: number): ArchiveInput {
	const read = (name: string, fallback: string) => this.getNodeParameter(name, itemIndex, fallback);
	const downloadBy = read('downloadBy', 'id');
	const binaryPropertyName = read('binaryPropertyName', 'data');
	const source =
		downloadBy === 'link'
			? { downloadLink: read('downloadLink', '') }
			: { downloadId: readLocatorValue(read('downloadId', '')).value };
	return validate(this, schema, { downloadBy, binaryPropertyName, ...source }, itemIndex, LABELS);
}

/** The download an item By ID names (one By Link is never read). */
function archiveSelection(input: ArchiveInput): Selection {
	const id = input.downloadBy === 'id' ? input.downloadId : 0;
	return {
		filters: [{ column: 'id', operator: 'eq', value: id }],
		label: `download with ID ${id}`,
		field: 'Download ID',
	};
}

/** Per group: its download rows By ID in one read, then each archive on its own (forEachItem). */
export async function execute(
	this: IExecuteFunctions,
	tasks: Array<ItemTask<ArchiveInput>>,
	settings: RunSettings,
): Promise<ItemResult[]> {
	return await runGroups(tasks, { ...settings, writes: false }, async (group) => {
		const byId = group.filter((task) => task.input.downloadBy === 'id');
		const found = byId.length
			? await readSelected(this, byId, 'downloads', archiveSelection, settings)
			: [];
		const rows = new Map(byId.map((task, index) => [task.itemIndex, found[index]]));
		return await forEachItem(group, settings, async (task) => {
			const row = rows.get(task.itemIndex);
			if (row instanceof Error) throw row;
			return await downloadArchive.call(this, task, row);
		});
	});
}
