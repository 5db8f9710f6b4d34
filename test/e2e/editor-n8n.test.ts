// Why: the scenarios that read the node types n8n serves its editor (its files: /types/nodes.json)
// share one `n8n start` with the editor (each start costs about 7 s of CPU): every workflow run,
// while the live trigger polls a service of its own every 10 s (started by its hook before the
// first test), then the trigger's tests.
/* eslint-disable @typescript-eslint/no-require-imports -- a file required inside describe() registers its tests and hooks there */
import { useOwnStack } from './suite';

useOwnStack({ editor: true });

describe('every operation inside n8n', () => {
	require('./workflows.scenarios');
});
// At the top level: its hook runs before the first test of the file, its tests after the runs.
require('./trigger.scenarios');
