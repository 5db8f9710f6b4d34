// Why: Job → Get: the one export job Select By names.
import { getOperation } from '../selectedRecord';

export const { description, prepare, execute } = getOperation('job');
