// Why: the scenarios that need neither the trigger's minute polls nor n8n's editor run on one
// `n8n start` of their own (each start costs about 7 s of CPU), each file's tests and hooks in a
// describe block of their own; its host is in Pacific/Chatham (UTC+12:45/+13:45), so that no
// timestamp may depend on the host's zone.
/* eslint-disable @typescript-eslint/no-require-imports -- a file required inside describe() registers its tests and hooks there */
import { onN8n1, useOwnStack } from './suite';

/**
 * Only on n8n 2.x: bulk (200 creates and 200 gets timed beside the HTTP Request node) and grouped
 * (Batching inside the node) run the same node code on the same request helper in n8n 1.x; what
 * can differ there (the credential and its token, the node types, the trigger, binary data, tool
 * calls, errors of the request helper) the 1.x suite checks in editor-n8n, adverse and MCP.
 */
const on2x = onN8n1 ? describe.skip : describe;

useOwnStack({ hostEnv: { TZ: 'Pacific/Chatham' } });

describe('adverse: a world that is not ideal', () => {
	require('./adverse.scenarios');
});
on2x('bulk beside the HTTP Request node', () => {
	require('./bulk.scenarios');
});
on2x('grouped gives one by one', () => {
	require('./grouped.scenarios');
});
describe('MCP tools', () => {
	require('./mcp.scenarios');
});
