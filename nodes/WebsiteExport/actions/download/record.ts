import type { IExecuteFunctions } from 'n8n-workflow';

import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { requireOne, type Selection } from '../common';
import type { ItemRun } from '../types';

/** Download fields that Select By may use besides the ID. */
export const DOWNLOAD_FIELDS = [
	{ name: 'Job ID', value: 'job_id' },
	{ name: 'Download Link', value: 'download_link' },
];

/** The one download record a selection names (one request), with its expiry. */
export async function fetchDownload(this: IExecuteFunctions, { client, itemIndex }: ItemRun, selection: Selection) {
	const page = await client.select<DownloadRecord>('downloads', { filters: selection.filters, limit: 2 }, { itemIndex });
	const download = requireOne.call(this, page.rows, selection, itemIndex) as DownloadRecord;
	return withExpiry(download, client.serverNow());
}
