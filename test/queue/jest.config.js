// Queue mode on jest (npm run test:queue): one test file on one n8n cluster (Postgres, Redis, main
// + workers, cluster.ts), a worker killed last; no shared n8n of the e2e run.
const e2e = require('../e2e/jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...e2e,
	roots: ['<rootDir>/test/queue'],
	globalSetup: '<rootDir>/test/queue/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
};
