// Why: an archive link may live on another host and redirect: it is followed here one hop at a time, so the credential decides anew for each host whether to add the key and the token.
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { CallOptions, ServiceRequests } from './request';

/** A readable byte stream, as n8n's prepareBinaryData takes it ('stream' may not be imported here). */
export type ByteStream = Exclude<
	Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0],
	Buffer
>;

export interface Archive {
	stream: ByteStream;
	contentType?: string;
	contentLength?: number;
}

const MAX_ARCHIVE_REDIRECTS = 5;

/**
 * Opens an archive link as a stream: the caller hands it to n8n's binary data store, so an
 * archive of any size never sits in memory. n8n's own redirect handling would carry the key and
 * the token along to wherever the link points; here each hop is a request of its own.
 */
export async function openArchive(
	node: INode,
	requests: ServiceRequests,
	url: string,
	options: CallOptions = {},
): Promise<Archive> {
	let target = url;
	let response = await requests.send('GET', target, { ...options, stream: true });
	for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400; hops++) {
		const location = String(response.headers.location);
		const next = URL.canParse(location, target) ? new URL(location, target) : undefined;
		if (
			hops === MAX_ARCHIVE_REDIRECTS ||
			!next ||
			(next.protocol !== 'https:' && next.protocol !== 'http:')
		) {
			throw new NodeApiError(
				node,
				{ message: 'redirect refused' },
				{
					message:
						'The archive link redirects too often, or to something that is not an http(s) address',
					httpCode: String(response.statusCode),
					itemIndex: options.itemIndex,
				},
			);
		}
		target = next.toString();
		response = await requests.send('GET', target, { ...options, stream: true });
	}
	const length = Number(response.headers['content-length']);
	return {
		stream: response.body as ByteStream,
		contentType:
			typeof response.headers['content-type'] === 'string'
				? response.headers['content-type']
				: undefined,
		contentLength: Number.isFinite(length) ? length : undefined,
	};
}
