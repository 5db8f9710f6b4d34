// Why: the archive download in one place: the link (and its expiry) of a download, redirects followed one hop at a time, storage's error bodies read from the stream.
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { findInChain } from '../../../shared/serviceError';
import type { ServiceResponse } from '../../../shared/transport';
import { webAddress } from '../../../shared/validation';
import type { ItemRun } from '../types';
import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import type { Selection } from '../selectBy';

/** A readable byte stream, as n8n's prepareBinaryData takes it ('stream' may not be imported here). */
export type ByteStream = Exclude<
	Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0],
	Buffer
>;

export interface Archive {
	stream: ByteStream;
}

/** Where an archive comes from, and how messages name it. */
export interface ArchiveTarget {
	/** The output item's JSON, before the file's name and size. */
	json: INodeExecutionData['json'];
	link: string;
	subject: string;
	fallbackName: string;
}

const MAX_REDIRECTS = 5;

/** An archive comes as a stream, within 30 minutes; redirects come back to be followed here. */
const ARCHIVE_REQUEST = {
	encoding: 'stream',
	json: false,
	disableFollowRedirect: true,
	timeout: 30 * 60_000,
} as const;
/** Storage's error bodies are short: this much of one is read for its message. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

const VALIDITY_NOTE =
	'Links are valid for 24 hours after the job finished: run the job again to get a new link.';

const formatDate = (ms: number) =>
	new Date(ms)
		.toISOString()
		.replace('T', ' ')
		.replace(/\.\d+Z$/, ' UTC');

/** The download Download By: ID names. */
export const downloadSelection = (id: number): Selection => ({
	filters: [{ column: 'id', operator: 'eq', value: id }],
	label: `download with ID ${id}`,
});

/** Download By: ID, its record read already (downloadArchive.operation.ts); an expired link refused. */
export async function linkOfDownload(
	this: IExecuteFunctions,
	run: ItemRun,
	id: number,
	row: IDataObject,
): Promise<ArchiveTarget> {
	const { itemIndex } = run;
	const download = withExpiry(row as DownloadRecord, run.client.serviceNow());
	const subject = `The download link of download ${id}`;
	if (download.is_expired) {
		throw new NodeApiError(
			this.getNode(),
			{ message: 'link expired' },
			{
				message: `${subject} expired on ${formatDate(Date.parse(download.expires_at))}`,
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
	const fallbackName = `website-export-${id}.zip`;
	return { json: download, link: download.download_link, subject, fallbackName };
}

/** Download By: Link. No request; whether the link still works shows when it is opened. */
export function linkFromInput(link: string): ArchiveTarget {
	const fallbackName = 'website-export.zip';
	return { json: { download_link: link }, link, subject: 'The download link', fallbackName };
}

/**
 * Opens the archive as a stream, for n8n's binary data store: an archive of any size never sits
 * in memory. Storage's "not found" (400/404) means the link has expired or was removed.
 */
export async function openArchive(
	this: IExecuteFunctions,
	{ client, itemIndex }: ItemRun,
	link: string,
	subject: string,
): Promise<Archive> {
	const get = async (url: string) =>
		await client.requests.request('GET', url, {
			itemIndex,
			http: ARCHIVE_REQUEST,
			onFailure: redirectOrErrorBody,
		});
	let response: ServiceResponse;
	try {
		response = await followRedirects.call(this, get, link, itemIndex);
	} catch (error) {
		throw refusedLink(this.getNode(), error, subject, itemIndex);
	}
	return { stream: response.body as ByteStream };
}

/** A link the storage refuses (400, 404) has expired or was removed: said so; any other error as it is. */
function refusedLink(node: INode, error: unknown, subject: string, itemIndex: number): unknown {
	if (!(error instanceof NodeApiError && (error.httpCode === '400' || error.httpCode === '404')))
		return error;
	return new NodeApiError(
		node,
		{ message: error.message },
		{
			message: `${subject} no longer works: the storage answered "${error.message}"`,
			description: `The archive has expired or was removed. ${VALIDITY_NOTE}`,
			httpCode: error.httpCode,
			itemIndex,
		},
	);
}

/**
 * n8n's own redirect handling would carry the key and the token along to wherever the link
 * points; here each hop is a request of its own, so the credential decides anew for each host.
 */
async function followRedirects(
	this: IExecuteFunctions,
	get: (url: string) => Promise<ServiceResponse>,
	link: string,
	itemIndex: number,
): Promise<ServiceResponse> {
	let target = link;
	let response = await get(target);
	for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400; hops++) {
		const location = String(response.headers.location);
		const next = URL.canParse(location, target) ? new URL(location, target) : undefined;
		if (hops === MAX_REDIRECTS || !next || !['https:', 'http:'].includes(next.protocol)) {
			throw new NodeApiError(
				this.getNode(),
				{ message: 'redirect refused' },
				{
					message:
						'The archive link redirects too often, or to something that is not an http(s) address',
					httpCode: String(response.statusCode),
					itemIndex,
				},
			);
		}
		target = next.toString();
		response = await get(target);
	}
	return response;
}

/**
 * A failed archive request: a redirect (n8n throws it, as it follows none here) is the answer;
 * any other error body is still a stream, read in place (up to 16 KiB) so that the transport
 * reads the storage's own words, e.g. "Object not found", and the connection is let go.
 */
async function redirectOrErrorBody(error: unknown): Promise<ServiceResponse | undefined> {
	const answer = findInChain(error, (e) => typeof e.response === 'object')?.response as
		| { status?: unknown; headers?: Record<string, unknown>; data?: unknown }
		| undefined;
	if (!answer) return undefined;
	const status = Number(answer.status);
	if (status >= 300 && status < 400) {
		const headers = answer.headers ?? {};
		const location = headers.location ?? headers.Location;
		if (location !== undefined)
			return { body: undefined, headers: { location }, statusCode: status };
	}
	const body = answer.data as
		| (AsyncIterable<Uint8Array | string> & { destroy?(): void })
		| undefined;
	if (typeof body?.[Symbol.asyncIterator] !== 'function') return undefined;
	const decoder = new TextDecoder();
	let text = '';
	try {
		for await (const chunk of body) {
			text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
			if (text.length >= MAX_ERROR_BODY_BYTES) break;
		}
	} catch {
		// A body cut short still says what it says.
	}
	body.destroy?.();
	answer.data = text.slice(0, MAX_ERROR_BODY_BYTES);
	return undefined;
}
