// Why: the one entry to the real-n8n helpers for the e2e suites and `npm start`: provision a pinned
// n8n + Node 24, pack this repo, make throwaway n8n user folders with the package installed as a
// community package, and drive the n8n CLI / a started instance (each concern in its own module
// beside this file; see README.md). n8n itself always runs on the provisioned Node 24.
export { setTimeout as sleep } from 'node:timers/promises';
export { waitFor, getFreePort, killActiveRuns, isAlive, onInterrupt } from './process';
export { httpRequest } from './http';
export { provision, isN8n1 } from './provision';
export { n8nEnv, webhookUrlVariable, type N8nEnvExtra } from './env';
export { packPackage, makeUserFolder } from './community-package';
export { importData, executeWorkflow, nodeItems, type RunOutcome } from './cli';
export { startN8n } from './server';
