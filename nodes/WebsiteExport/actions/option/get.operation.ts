// Why: Option → Get: the one export option Select By names.
import { getOperation } from '../selectedRecord';

export const { description, prepare, execute } = getOperation('option');
