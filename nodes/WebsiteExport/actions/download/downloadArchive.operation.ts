// Why: Download → Download Archive: the ZIP of an export as binary data, by download ID or by link.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { z } from 'zod';

import { recordId, validate, webAddress } from '../../../shared/validation';
import { readLocatorValue, recordLocatorProperty } from '../locator';
import { shownFor } from '../resourceDescription';
import { forEachItem, runGroups } from '../groups';
import { readSelected } from '../selectedRecord';
import type { ItemResult, ItemRun, RunOptions } from '../types';
import { downloadSelection, linkFromInput, linkOfDownload, openArchive } from './archive';

const MIME_TYPE = 'application/zip';

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

/** The link's last path segment, e.g. `site-42.zip`; `fallback` when it has none. */
export function archiveFileName(link: string, fallback: string): string {
	try {
		const segment = new URL(link).pathname.split('/').pop() ?? '';
		const name = decodeURIComponent(segment)
			.replace(/[\p{Cc}<>:"/\\|?*]/gu, '_')
			.trim();
		return name && name !== '.' && name !== '..' ? name : fallback;
	} catch {
		return fallback;
	}
}

type ArchiveInput = z.infer<typeof schema>;

export function prepare(this: IExecuteFunctions, itemIndex: number): ArchiveInput {
	const downloadBy = this.getNodeParameter('downloadBy', itemIndex, 'id') as string;
	return validate(
		this,
		schema,
		{
			downloadBy,
			binaryPropertyName: this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
			...(downloadBy === 'link'
				? { downloadLink: this.getNodeParameter('downloadLink', itemIndex, '') }
				: {
						downloadId: readLocatorValue(this.getNodeParameter('downloadId', itemIndex, '')).value,
					}),
		},
		itemIndex,
		LABELS,
	);
}

/**
 * Group after group (runGroups): the download rows of the group's items By ID in one read, then
 * each archive on its own, Requests in Flight at once; without Continue On Fail nothing is
 * started after a failed item.
 */
export async function run(
	this: IExecuteFunctions,
	runs: Array<ItemRun<ArchiveInput>>,
	how: RunOptions,
): Promise<ItemResult[]> {
	return await runGroups(runs, { ...how, writes: false }, async (group) => {
		const byId = group.filter((run) => run.input.downloadBy === 'id');
		const selectionOf = (input: ArchiveInput) =>
			downloadSelection(input.downloadBy === 'id' ? input.downloadId : 0);
		const found = byId.length ? await readSelected(this, byId, 'downloads', selectionOf, how) : [];
		const rows = new Map(byId.map((run, index) => [run.itemIndex, found[index]]));
		return await forEachItem(group, how, async (run) => {
			const known = rows.get(run.itemIndex);
			if (known instanceof Error) throw known;
			return await downloadOne.call(this, run, known);
		});
	});
}

/** One item's archive; its download row `known` when read for many items at once. */
async function downloadOne(
	this: IExecuteFunctions,
	run: ItemRun<ArchiveInput>,
	known: IDataObject | undefined,
): Promise<INodeExecutionData[]> {
	const { itemIndex, input } = run;
	const { json, link, subject, fallbackName } =
		input.downloadBy === 'id'
			? await linkOfDownload.call(this, run, input.downloadId, known as IDataObject)
			: linkFromInput(input.downloadLink);
	const archive = await openArchive.call(this, run, link, subject);
	const fileName = archiveFileName(link, fallbackName);
	let binary;
	try {
		// Streamed into n8n's binary data store: the archive never sits in memory as a whole.
		binary = await this.helpers.prepareBinaryData(archive.stream, fileName, MIME_TYPE);
	} catch (error) {
		(archive.stream as { destroy?: () => void }).destroy?.(); // frees the connection when storing failed
		throw new NodeApiError(
			this.getNode(),
			{ message: 'interrupted' },
			{
				message: `The archive download was interrupted (${(error as Error).message})`,
				description:
					"The archive did not arrive in full or could not be stored. Run the node again while the link is valid (24 hours after the job finished); if it keeps failing, check the free disk space of n8n's binary data storage.",
				itemIndex,
			},
		);
	}
	// What was stored (axios decompresses an encoded response, so Content-Length may differ).
	// n8n 1.x does not count the bytes it stored: its binary data service knows them.
	const fileSize =
		binary.bytes ??
		(binary.id ? (await this.helpers.getBinaryMetadata(binary.id)).fileSize : undefined);
	return [
		{
			json: { ...json, fileName, ...(fileSize !== undefined ? { fileSize } : {}) },
			binary: { [input.binaryPropertyName]: binary },
		},
	];
}
