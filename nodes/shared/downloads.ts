import type { IDataObject } from 'n8n-workflow';

import { DOWNLOAD_VALIDITY_MS } from './constants';

export interface DownloadRecord extends IDataObject {
	id: number;
	created_at: string;
	job_id: number | null;
	download_link: string;
}

/** Milliseconds since the epoch of a PostgREST timestamp (microseconds are dropped). */
export function timestampMs(value: unknown): number {
	return typeof value === 'string' ? Date.parse(value) : NaN;
}

/** When the link of a download stops working: created_at + 24 h (spec §3). */
export function expiresAt(download: Pick<DownloadRecord, 'created_at'>): number {
	return timestampMs(download.created_at) + DOWNLOAD_VALIDITY_MS;
}

/** The download as the nodes output it: its fields plus `expires_at` and `is_expired`. */
export function withExpiry<T extends Pick<DownloadRecord, 'created_at'>>(download: T, now = Date.now()) {
	const expires = expiresAt(download);
	return {
		...download,
		expires_at: Number.isNaN(expires) ? null : new Date(expires).toISOString(),
		is_expired: Number.isNaN(expires) ? false : now >= expires,
	};
}
