// Why: what Select By may name a download by, and the one read of a download with its expiry.
import type { IExecuteFunctions } from 'n8n-workflow';

import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { type Selection } from '../parameters';
import { fetchOne } from '../records';
import type { ItemRun } from '../types';

/** Download fields that Select By may use besides the ID. */
export const DOWNLOAD_SELECT_BY_FIELDS = [
	{ name: 'Job ID', value: 'job_id' },
	{ name: 'Download Link', value: 'download_link' },
];

/** The one download record a selection names (one request), with its expiry. */
export async function fetchDownload(this: IExecuteFunctions, run: ItemRun, selection: Selection) {
	const download = (await fetchOne.call(this, run, 'downloads', selection)) as DownloadRecord;
	return withExpiry(download, run.client.serviceNow());
}
