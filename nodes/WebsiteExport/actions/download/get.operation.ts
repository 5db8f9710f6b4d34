// Why: Download → Get: the one download Select By names, with its link's expiry.
import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { getOperation } from '../selectedRecord';

export const { description, prepare, execute } = getOperation('download', (row, task) =>
	withExpiry(row as DownloadRecord, task.client.serviceNow()),
);
