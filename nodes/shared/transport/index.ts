// Why: the client the operations use, one per execution: it checks the credential's Base URL and puts the request sender, the tables and the archive download together.
import { NodeOperationError } from 'n8n-workflow';

import { checkBaseUrl } from '../baseUrl';
import { CREDENTIAL_NAME } from '../constants';
import { openArchive, type Archive } from './archive';
import { tokenExpiry } from './renewalGate';
import { ServiceRequests, type CallOptions, type TransportContext } from './request';
import type { RetryPolicy } from './retry';
import { PostgrestTables } from './tables';

export { NEWEST_FIRST } from './query';
export type { Filter, FilterOperator, ListQuery, OrderBy } from './query';
export type { RetryPolicy } from './retry';
export type { Archive, ByteStream } from './archive';
export type { InsertOptions } from './lostAnswer';
export type { CallOptions, TransportContext } from './request';
export type { Page } from './tables';
export { tokenExpiry } from './renewalGate';

export interface ClientOptions {
	retry?: RetryPolicy;
	/** Per-request timeout for API calls. */
	timeoutMs?: number;
	/** Rows asked for per page; Supabase's default `max-rows` is 1000. */
	pageSize?: number;
}

/** The only code that talks to the Website Export service (see request.ts for how it sends). */
export class WebsiteExportClient extends PostgrestTables {
	/** Reads the credential's base URL once per execution and checks it before any request. */
	static async connect(
		ctx: TransportContext,
		options: ClientOptions = {},
	): Promise<WebsiteExportClient> {
		const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
		const baseUrl = checkBaseUrl(credentials?.baseUrl);
		if (!baseUrl.ok) {
			throw new NodeOperationError(ctx.getNode(), baseUrl.reason, {
				description: 'Open the Website Export credential and correct its Base URL.',
			});
		}
		const requests = new ServiceRequests(
			ctx,
			tokenExpiry(credentials.accessToken),
			options.retry,
			options.timeoutMs,
		);
		return new WebsiteExportClient(ctx, requests, baseUrl.url, options.pageSize);
	}

	/** Opens an archive link as a stream (archive.ts). */
	async openArchive(url: string, options: CallOptions = {}): Promise<Archive> {
		return await openArchive(this.ctx.getNode(), this.requests, url, options);
	}

	/** The service's current time (its clock expires links and tokens): see serviceClock.ts. */
	serviceNow(): number {
		return this.requests.clock.now();
	}
}
