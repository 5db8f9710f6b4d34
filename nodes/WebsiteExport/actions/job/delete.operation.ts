// Why: Job → Delete: removes the one export job Select By names and returns it.
import { deleteOperation } from '../selectedRecord';
import { JOB_SELECT_BY_FIELDS } from './fields';

export const { description, prepare, execute, writes } = deleteOperation(
	'job',
	JOB_SELECT_BY_FIELDS,
);
