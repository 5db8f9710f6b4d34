// Why: the scenarios that read the node types n8n serves its editor (its files: /types/nodes.json)
// share one `n8n start` with the editor (each start costs about 7 s of CPU): every workflow run
// first, then the live trigger, activated only once those runs (and their request counts) are done.
import { triggerScenarios } from './trigger.scenarios';
import { useOwnStack } from './suite';
import { workflowsScenarios } from './workflows.scenarios';

useOwnStack({ editor: true });

describe('every operation inside n8n', workflowsScenarios);
describe('the live trigger', triggerScenarios);
