// Why: Option → Delete: removes the one export option Select By names and returns it.
import { deleteOperation } from '../selectedRecord';

export const { description, prepare, execute } = deleteOperation('option');
