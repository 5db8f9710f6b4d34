// Why: Job → Delete: removes the one export job Select By names and returns it.
import { deleteOperation } from '../selectedRecord';

export const { description, prepare, execute } = deleteOperation('job');
