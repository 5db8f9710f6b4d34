// Why: what every node says about a download: when its created_at was, when its link expires.
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { DOWNLOAD_VALIDITY_MS } from './constants';
import { isoInstant, parseTimestamp } from './timestamps';
import type { Filter } from './transport';

/**
 * A query's 24 h bound uses this machine's clock, which may be off from the service's (by up to
 * this much): it reaches back further, and the rows expired by the service's clock are dropped.
 */
export const CLOCK_MARGIN_MS = 10 * 60_000;

/**
 * The lower bound of the 24 h window of valid links,
 * with this machine's clock (see CLOCK_MARGIN_MS).
 */
export function windowFilter(localNow: number): Filter {
	return {
		column: 'created_at',
		operator: 'gt',
		value: isoInstant(localNow - DOWNLOAD_VALIDITY_MS - CLOCK_MARGIN_MS),
	};
}

export interface DownloadRecord extends IDataObject {
	id: number;
	created_at: string | number;
	job_id: number | null;
	download_link: string;
}

/** What the times of a download are read from. */
type Dated = Pick<DownloadRecord, 'id' | 'created_at'>;

/** A download whose created_at cannot be read: named, never skipped silently. */
export class UnreadableTimestampError extends Error {
	constructor(readonly download: Dated) {
		super(
			`Download ${String(download.id)} has a created_at the node cannot read: ` +
				`${JSON.stringify(download.created_at)}`,
		);
	}
}

/** The error as n8n shows a service answer: it names the download and the value. */
export function unreadableTimestampApiError(
	node: INode,
	error: UnreadableTimestampError,
	itemIndex?: number,
): NodeApiError {
	return new NodeApiError(
		node,
		{ message: 'unreadable timestamp' },
		{
			message: error.message,
			description:
				'The service answered with a created_at in a form the node does not know: ' +
				'please report the value to the maintainers of this node.',
			itemIndex,
		},
	);
}

/** Milliseconds since the epoch of the download's created_at; throws when it cannot be read. */
export function createdMs(download: Dated): number {
	const ms = parseTimestamp(download.created_at);
	if (Number.isNaN(ms)) throw new UnreadableTimestampError(download);
	return ms;
}

/** When the link of a download stops working: created_at + 24 h (README, Operations). */
export const expiresAt = (download: Dated): number => createdMs(download) + DOWNLOAD_VALIDITY_MS;

/**
 * The download as the nodes output it: its fields plus `expires_at` and `is_expired`, judged at
 * `serviceNow`.
 */
export function withExpiry<T extends Dated>(download: T, serviceNow: number) {
	const expires = expiresAt(download);
	return { ...download, expires_at: isoInstant(expires), is_expired: serviceNow >= expires };
}
