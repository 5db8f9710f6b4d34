import type { IExecuteFunctions } from 'n8n-workflow';

import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import type { WebsiteExportClient } from '../../../shared/transport';
import { requireOne, type Selection } from '../common';
import type { ItemRun } from '../types';

/** Download fields that Select By may use besides the ID. */
export const DOWNLOAD_FIELDS = [
	{ name: 'Job ID', value: 'job_id' },
	{ name: 'Download Link', value: 'download_link' },
];

/**
 * Now by the service's clock once an answer has told it (storage expires links by that
 * clock, as the trigger judges them), else by this machine's.
 */
export const serviceNow = (client: WebsiteExportClient): number => client.serverNow() ?? Date.now();

/** The one download record a selection names (one request), with its expiry. */
export async function fetchDownload(this: IExecuteFunctions, { client, itemIndex }: ItemRun, selection: Selection) {
	const page = await client.select<DownloadRecord>('downloads', { filters: selection.filters, limit: 2 }, { itemIndex });
	const download = requireOne.call(this, page.rows, selection, itemIndex) as DownloadRecord;
	return withExpiry(download, serviceNow(client));
}
