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
import { readSelections } from '../batching';
import { mapInOrder } from '../mapInOrder';
import { requireOne } from '../selectedRecord';
import type { BatchOptions, ItemResult, ItemRun } from '../types';
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

export async function execute(
	this: IExecuteFunctions,
	run: ItemRun<ArchiveInput>,
): Promise<INodeExecutionData[]> {
	return await downloadOne.call(this, run);
}

/**
 * Many items: the download rows of those By ID in one read per chunk (batching.ts), then each
 * archive on its own, Requests in Flight at once; without Continue On Fail none is started after
 * one failed, as one request per item.
 */
export async function batch(
	this: IExecuteFunctions,
	runs: Array<ItemRun<ArchiveInput>>,
	{ continueOnFail, inFlight }: BatchOptions,
): Promise<ItemResult[] | undefined> {
	const byId = runs.flatMap((run) =>
		run.input.downloadBy === 'id'
			? [{ run, selection: downloadSelection(run.input.downloadId) }]
			: [],
	);
	if (byId.length < 2) return undefined;
	const selections = byId.map(({ run, selection }) => ({ selection, itemIndex: run.itemIndex }));
	const found = await readSelections(runs[0].client, 'downloads', selections, inFlight);
	const rows = new Map<number, IDataObject | Error>();
	byId.forEach(({ run, selection }, index) => {
		const read = found[index];
		rows.set(
			run.itemIndex,
			read instanceof Error
				? read
				: settled(() => requireOne.call(this, read.slice(0, 2), selection, run.itemIndex)),
		);
	});
	const results: ItemResult[] = new Array(runs.length);
	let halted = false;
	await mapInOrder(runs, inFlight, async (run, index) => {
		if (halted) return;
		const known = rows.get(run.itemIndex);
		results[index] = await (
			known instanceof Error ? Promise.reject(known) : downloadOne.call(this, run, known)
		).catch((error: Error) => error);
		if (results[index] instanceof Error && !continueOnFail) halted = true;
	});
	return results;
}

/** A function's result, or the error it threw. */
function settled<T>(work: () => T): T | Error {
	try {
		return work();
	} catch (error) {
		return error as Error;
	}
}

/** One item's archive; its download row `known` when read for many items at once. */
async function downloadOne(
	this: IExecuteFunctions,
	run: ItemRun<ArchiveInput>,
	known?: IDataObject,
): Promise<INodeExecutionData[]> {
	const { itemIndex, input } = run;
	const { json, link, subject, fallbackName } =
		input.downloadBy === 'id'
			? await linkOfDownload.call(this, run, input.downloadId, known)
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
