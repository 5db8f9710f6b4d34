// Why: Option → Delete: removes the one export option Select By names and returns it.
import { deleteOperation } from '../selectedRecord';
import { OPTION_SELECT_BY_FIELDS } from './fields';

export const { description, prepare, execute, writes } = deleteOperation(
	'option',
	OPTION_SELECT_BY_FIELDS,
);
