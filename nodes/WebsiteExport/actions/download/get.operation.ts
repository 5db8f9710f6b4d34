// Why: Download → Get: the one download Select By names, with its link's expiry.
import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { getOperation } from '../selectedRecord';

export const { description, prepare, run } = getOperation('download', (row, run) =>
	withExpiry(row as DownloadRecord, run.client.serviceNow()),
);
