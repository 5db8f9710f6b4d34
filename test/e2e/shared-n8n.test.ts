// Why: the scenarios that need neither the trigger's minute polls nor n8n's editor run on one
// `n8n start` of their own (each start costs about 7 s of CPU), each file's tests and hooks in a
// describe block of their own; its host is in Pacific/Chatham (UTC+12:45/+13:45), so that no
// timestamp may depend on the host's zone.
/* eslint-disable @typescript-eslint/no-require-imports -- a file required inside describe() registers its tests and hooks there */
import { useOwnStack } from './suite';

useOwnStack({ hostEnv: { TZ: 'Pacific/Chatham' } });

describe('adverse: a world that is not ideal', () => {
	require('./adverse.scenarios');
});
describe('bulk beside the HTTP Request node', () => {
	require('./bulk.scenarios');
});
describe('grouped gives one by one', () => {
	require('./grouped.scenarios');
});
describe('MCP tools', () => {
	require('./mcp.scenarios');
});
