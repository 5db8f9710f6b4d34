// Why: Job → Get: the one export job Select By names.
import { getOperation } from '../selectedRecord';
import { JOB_SELECT_BY_FIELDS } from './fields';

export const { description, prepare, execute } = getOperation('job', JOB_SELECT_BY_FIELDS);
