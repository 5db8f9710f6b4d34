// Queue mode on jest (npm run test:queue): each test file starts its own n8n cluster (Postgres,
// Redis, main + workers, cluster.ts), two side by side; no shared n8n of the e2e run.
const e2e = require('../e2e/jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...e2e,
	roots: ['<rootDir>/test/queue'],
	globalSetup: '<rootDir>/test/queue/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
};
