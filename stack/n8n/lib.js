'use strict';
/**
 * The one entry to the real-n8n helpers for the e2e suites and `npm start`: provision a pinned
 * n8n + Node 24, pack this repo, make throwaway n8n user folders with the package installed as a
 * community package, and drive the n8n CLI / a started instance. Each concern lives in its own
 * module beside this file; see README.md.
 *
 * Plain CommonJS, node: modules only; runs on Node 20 or 24. n8n itself always runs on the
 * provisioned Node 24 (n8n 2.x refuses Node < 24).
 */

const {
	run,
	sleep,
	getFreePort,
	killActiveRuns,
	killGroup,
	spawnServer,
	waitForHealth,
} = require('./process');
const { httpRequest } = require('./http');
const { provision } = require('./provision');
const { n8nEnv, webhookUrlVariable } = require('./env');
const { packPackage, makeUserFolder } = require('./community-package');
const cli = require('./cli');
const { DEFAULT_OWNER } = require('./rest');
const { startN8n } = require('./server');

module.exports = {
	DEFAULT_OWNER,
	provision,
	packPackage,
	makeUserFolder,
	n8nEnv,
	webhookUrlVariable,
	runN8n: cli.runN8n,
	importCredentials: cli.importCredentials,
	importWorkflows: cli.importWorkflows,
	publishWorkflow: cli.publishWorkflow,
	executeWorkflow: cli.executeWorkflow,
	nodeItems: cli.nodeItems,
	listLoadedNodeTypes: cli.listLoadedNodeTypes,
	startN8n,
	getFreePort,
	killActiveRuns,
	spawnServer,
	waitForHealth,
	killGroup,
	httpRequest,
	run,
	sleep,
};
