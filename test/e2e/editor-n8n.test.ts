// Why: every scenario that needs no n8n of its own shares one `n8n start` with its editor (each
// start costs about 10 s of CPU; the node types n8n serves are the editor's files), its host in
// Pacific/Chatham (UTC+12:45/+13:45) so that no timestamp may depend on the host's zone: the live
// trigger polls a service of its own every 10 s (started by its hook before the first test) while
// every workflow runs, then the trigger's tests, then the MCP tools.
/* eslint-disable @typescript-eslint/no-require-imports -- a file required inside describe() registers its tests and hooks there */
import { onN8n1, useOwnStack } from './suite';

/**
 * Only on n8n 2.x: bulk (200 creates and 200 gets timed beside the HTTP Request node) and grouped
 * (Batching inside the node) run the same node code on the same request helper in n8n 1.x; what
 * can differ there (the credential and its token, the node types, the trigger, binary data, tool
 * calls, errors of the request helper) the 1.x suite checks in the workflows, adverse, trigger
 * and MCP scenarios.
 */
const on2x = onN8n1 ? describe.skip : describe;

useOwnStack({ editor: true, hostEnv: { TZ: 'Pacific/Chatham' } });

describe('every operation inside n8n', () => {
	require('./workflows.scenarios');
});
describe('adverse: a world that is not ideal', () => {
	require('./adverse.scenarios');
});
on2x('bulk beside the HTTP Request node', () => {
	require('./bulk.scenarios');
});
on2x('grouped gives one by one', () => {
	require('./grouped.scenarios');
});
// At the top level: its hook runs before the first test of the file, its tests after the runs.
require('./trigger.scenarios');
// After the trigger's tests, once the polls a proxy breaks (in the background after the third
// poll cycle) are over: the MCP tests allow in n8n's log only the errors of the calls they fail.
describe('MCP tools', () => {
	require('./mcp.scenarios');
});
