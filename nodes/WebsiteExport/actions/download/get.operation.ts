// Why: Download → Get: the one download Select By names, with its link's expiry.
import { getOperation } from '../selectedRecord';
import { DOWNLOAD_SELECT_BY_FIELDS, fetchDownload } from './record';

export const { description, prepare, execute } = getOperation(
	'download',
	DOWNLOAD_SELECT_BY_FIELDS,
	async function (run) {
		return await fetchDownload.call(this, run, run.input);
	},
);
