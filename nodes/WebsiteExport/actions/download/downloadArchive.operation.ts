// Why: Download → Download Archive: the ZIP of an export as binary data, by download ID or by link.
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { z } from 'zod';

import type { Archive } from '../../../shared/transport';
import { recordId, validate, webAddress } from '../../../shared/validation';
import { readLocatorValue } from '../parameters';
import { ONLY_VERSION_1, recordLocatorProperty, shownFor } from '../properties';
import type { ItemRun } from '../types';
import { fetchDownload } from './record';

const MIME_TYPE = 'application/zip';

const VALIDITY_NOTE =
	'Links are valid for 24 hours after the job finished: run the job again to get a new link.';

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
	{
		displayName: 'Download ID',
		name: 'downloadId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 42',
		description: 'ID of the download, as listed by Get Many',
		displayOptions: { show: { downloadBy: ['id'], ...ONLY_VERSION_1 } },
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

const formatDate = (ms: number) =>
	new Date(ms)
		.toISOString()
		.replace('T', ' ')
		.replace(/\.\d+Z$/, ' UTC');

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
	const { itemIndex, input } = run;
	const { json, link, subject, fallbackName } =
		input.downloadBy === 'id'
			? await linkOfDownload.call(this, run, input.downloadId)
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

interface Target {
	/** The output item's JSON, before the file's name and size. */
	json: INodeExecutionData['json'];
	link: string;
	/** How messages name the link. */
	subject: string;
	fallbackName: string;
}

/** Download By: ID. The record is looked up (one request), and an expired link refused. */
async function linkOfDownload(this: IExecuteFunctions, run: ItemRun, id: number): Promise<Target> {
	const { itemIndex } = run;
	const filters = [{ column: 'id', operator: 'eq' as const, value: id }];
	const download = await fetchDownload.call(this, run, {
		filters,
		label: `download with ID ${id}`,
		byId: true,
	});
	const subject = `The download link of download ${id}`;
	if (download.is_expired) {
		throw new NodeApiError(
			this.getNode(),
			{ message: 'link expired' },
			{
				message: `${subject} expired on ${formatDate(Date.parse(download.expires_at!))}`,
				description: VALIDITY_NOTE,
				httpCode: '410',
				itemIndex,
			},
		);
	}
	if (!webAddress.safeParse(download.download_link).success) {
		throw new NodeApiError(
			this.getNode(),
			{ message: 'no link' },
			{
				message: `Download ${id} has no valid download link`,
				description: 'The service stored no http(s) address for it.',
				itemIndex,
			},
		);
	}
	return {
		json: download,
		link: download.download_link,
		subject,
		fallbackName: `website-export-${id}.zip`,
	};
}

/** Download By: Link. No request; whether the link still works shows when it is opened. */
function linkFromInput(link: string): Target {
	return {
		json: { download_link: link },
		link,
		subject: 'The download link',
		fallbackName: 'website-export.zip',
	};
}

/** Opens the archive; storage's "not found" (400/404) means the link has expired or was removed. */
async function openArchive(
	this: IExecuteFunctions,
	{ client, itemIndex }: ItemRun,
	link: string,
	subject: string,
): Promise<Archive> {
	try {
		return await client.openArchive(link, { itemIndex });
	} catch (error) {
		if (error instanceof NodeApiError && (error.httpCode === '400' || error.httpCode === '404')) {
			throw new NodeApiError(
				this.getNode(),
				{ message: error.message },
				{
					message: `${subject} no longer works: the storage answered "${error.message}"`,
					description: `The archive has expired or was removed. ${VALIDITY_NOTE}`,
					httpCode: error.httpCode,
					itemIndex,
				},
			);
		}
		throw new NodeApiError(this.getNode(), error as JsonObject); // hands back `error` itself
	}
}
