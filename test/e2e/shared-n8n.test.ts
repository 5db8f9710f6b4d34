// Why: the scenarios that need neither the trigger's minute polls nor n8n's editor run on one
// `n8n start` of their own (each start costs about 7 s of CPU), each group in its describe block
// with its own hooks; its host is in Pacific/Chatham (UTC+12:45/+13:45), so that no timestamp
// may depend on the host's zone.
import { adverseScenarios } from './adverse.scenarios';
import { bulkScenarios } from './bulk.scenarios';
import { groupedScenarios } from './grouped.scenarios';
import { mcpScenarios } from './mcp.scenarios';
import { useOwnStack } from './suite';

useOwnStack({ hostEnv: { TZ: 'Pacific/Chatham' } });

describe('adverse: a world that is not ideal', adverseScenarios);
describe('bulk beside the HTTP Request node', bulkScenarios);
describe('grouped gives one by one', groupedScenarios);
describe('MCP tools', mcpScenarios);
