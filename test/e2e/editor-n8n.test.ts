// Why: the scenarios that read the node types n8n serves its editor (its files: /types/nodes.json)
// share one `n8n start` with the editor (each start costs about 7 s of CPU): every workflow run
// first, then the live trigger, activated only once those runs (and their request counts) are done.
/* eslint-disable @typescript-eslint/no-require-imports -- a file required inside describe() registers its tests and hooks there */
import { useOwnStack } from './suite';

useOwnStack({ editor: true });

describe('every operation inside n8n', () => {
	require('./workflows.scenarios');
});
describe('the live trigger', () => {
	require('./trigger.scenarios');
});
