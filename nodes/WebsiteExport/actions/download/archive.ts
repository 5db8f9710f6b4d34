// Why: the archive download in one place: a download's link and expiry, redirects, storage errors.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { findInChain } from '../../../shared/serviceError';
import type { ServiceResponse } from '../../../shared/transport';
import { webAddress } from '../../../shared/validation';
import type { ItemTask } from '../types';

/** What an item of Download Archive asks for, as downloadArchive.operation.ts reads it. */
export type ArchiveInput = { binaryPropertyName: string } & (
	| { downloadBy: 'id'; downloadId: number }
	| { downloadBy: 'link'; downloadLink: string }
);

/**
 * A readable byte stream, as n8n's prepareBinaryData takes it ('stream' may not be imported here).
 */
type ByteStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

/** Where an item's archive comes from, and how messages name its link. */
interface ArchiveTarget {
	/** The output item's JSON, before the file's name and size. */
	json: INodeExecutionData['json'];
	link: string;
	subject: string;
	fileName: string;
}

const MAX_REDIRECTS = 5;

/** How long the storage may take to start sending an archive when Options → Timeout is not set. */
const ARCHIVE_TIMEOUT_MS = 30 * 60_000;

/** An archive comes as a stream; redirects come back to be followed here. */
const archiveRequest = (timeout: number) =>
	({
		http: { encoding: 'stream', json: false, disableFollowRedirect: true, timeout },
		onFailure: redirectOrErrorBody,
	}) as const;
/** Storage's error bodies are short: this much of one is read for its message. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

const VALIDITY_NOTE =
	'Links are valid for 24 hours after the job finished: run the job again to get a new link.';

type ErrorOptions = ConstructorParameters<typeof NodeApiError>[2];

/** An archive's failure as n8n shows a service answer; `cause` is its short form. */
const archiveError = (ctx: IExecuteFunctions, cause: string, options: ErrorOptions) =>
	new NodeApiError(ctx.getNode(), { message: cause }, options);

/** The link's last path segment, e.g. `site-42.zip`; `fallback` when it has none. */
function archiveFileName(link: string, fallback: string): string {
	try {
		const segment = decodeURIComponent(new URL(link).pathname.split('/').pop() ?? '');
		const name = segment.replace(/[\p{Cc}<>:"/\\|?*]/gu, '_').trim();
		return name && name !== '.' && name !== '..' ? name : fallback;
	} catch {
		return fallback;
	}
}

/**
 * The item's link. By ID its download `row` was read already (downloadArchive.operation.ts) and
 * an expired link is refused; By Link whether the link still works shows when it is opened.
 */
function archiveTarget(
	this: IExecuteFunctions,
	{ client, itemIndex, input }: ItemTask<ArchiveInput>,
	row?: IDataObject,
): ArchiveTarget {
	if (input.downloadBy === 'link') {
		const link = input.downloadLink;
		const fileName = archiveFileName(link, 'website-export.zip');
		return { json: { download_link: link }, link, subject: 'The download link', fileName };
	}
	const id = input.downloadId;
	const download = withExpiry(row as DownloadRecord, client.serviceNow());
	const subject = `The download link of download ${id}`;
	const expiredOn = download.expires_at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
	if (download.is_expired)
		throw archiveError(this, 'link expired', {
			message: `${subject} expired on ${expiredOn}`,
			description: VALIDITY_NOTE,
			httpCode: '410',
			itemIndex,
		});
	const link = download.download_link;
	if (!webAddress.safeParse(link).success)
		throw archiveError(this, 'no link', {
			message: `Download ${id} has no valid download link`,
			description: 'The service stored no http(s) address for it.',
			itemIndex,
		});
	const fileName = archiveFileName(link, `website-export-${id}.zip`);
	return { json: download, link, subject, fileName };
}

/**
 * Opens the link. n8n's own redirect handling would carry the key and the token to wherever the
 * link points; here each hop is a request of its own, so the credential decides for each host.
 */
async function openLink(
	this: IExecuteFunctions,
	{ client, itemIndex }: ItemTask,
	link: string,
	subject: string,
): Promise<ByteStream> {
	const timeout = client.requests.timeoutMs(ARCHIVE_TIMEOUT_MS);
	// A link the storage refuses (400, 404) has expired or was removed; any other error as it is.
	const get = async (url: string) =>
		await client.requests
			.request('GET', url, { ...archiveRequest(timeout), itemIndex })
			.catch((error: Error) => {
				const status = error instanceof NodeApiError ? error.httpCode : null;
				if (status !== '400' && status !== '404') throw error;
				throw archiveError(this, error.message, {
					message: `${subject} no longer works: the storage answered "${error.message}"`,
					description: `The archive has expired or was removed. ${VALIDITY_NOTE}`,
					httpCode: status,
					itemIndex,
				});
			});
	let target = link;
	let response = await get(target);
	for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400; hops++) {
		const location = String(response.headers.location);
		const next = URL.canParse(location, target) ? new URL(location, target) : undefined;
		if (hops === MAX_REDIRECTS || !next || !['https:', 'http:'].includes(next.protocol))
			throw archiveError(this, 'redirect refused', {
				message:
					'The archive link redirects too often, or to something that is not an http(s) address',
				httpCode: String(response.statusCode),
				itemIndex,
			});
		target = next.toString();
		response = await get(target);
	}
	// A proxy's page (a captive portal, a gateway's maintenance page) comes as a 200 too.
	const type = String(response.headers['content-type'] ?? '');
	if (/^text\/|json/i.test(type)) {
		(response.body as { destroy?: () => void }).destroy?.();
		const what = /html/i.test(type) ? 'an HTML page' : `a ${type.split(';')[0]} text`;
		throw archiveError(this, 'not an archive', {
			message: `${subject} answered with ${what}, not an archive: is a proxy in between?`,
			description: 'Nothing was stored. Open the link in a browser from where n8n runs to see it.',
			httpCode: String(response.statusCode),
			itemIndex,
		});
	}
	return response.body as ByteStream;
}

/**
 * One item's archive, streamed into n8n's binary data store: an archive of any size never sits
 * in memory. By ID `row` is its download, read for the group's items at once.
 */
export async function downloadArchive(
	this: IExecuteFunctions,
	task: ItemTask<ArchiveInput>,
	row?: IDataObject,
): Promise<INodeExecutionData[]> {
	const { json, link, subject, fileName } = archiveTarget.call(this, task, row);
	const stream = await openLink.call(this, task, link, subject);
	let binary;
	try {
		binary = await this.helpers.prepareBinaryData(stream, fileName, 'application/zip');
	} catch (error) {
		(stream as { destroy?: () => void }).destroy?.(); // frees the connection when storing failed
		throw archiveError(this, 'interrupted', {
			message: `The archive download was interrupted (${(error as Error).message})`,
			description:
				'The archive did not arrive in full or could not be stored. ' +
				'Run the node again while the link is valid (24 hours after the job finished); ' +
				"if it keeps failing, check the free disk space of n8n's binary data storage.",
			itemIndex: task.itemIndex,
		});
	}
	// What was stored (axios decompresses an encoded response, so Content-Length may differ).
	// n8n 1.x does not count the bytes it stored: its binary data service knows them.
	const fileSize =
		binary.bytes ??
		(binary.id ? (await this.helpers.getBinaryMetadata(binary.id)).fileSize : undefined);
	const output = { ...json, fileName, ...(fileSize !== undefined && { fileSize }) };
	return [{ json: output, binary: { [task.input.binaryPropertyName]: binary } }];
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
	const location = answer.headers?.location ?? answer.headers?.Location;
	if (status >= 300 && status < 400 && location !== undefined)
		return { body: undefined, headers: { location }, statusCode: status };
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
