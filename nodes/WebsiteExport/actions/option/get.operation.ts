// Why: Option → Get: the one export option Select By names.
import { getOperation } from '../selectedRecord';
import { OPTION_SELECT_BY_FIELDS } from './fields';

export const { description, prepare, execute } = getOperation('option', OPTION_SELECT_BY_FIELDS);
