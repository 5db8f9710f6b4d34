// Queue mode on jest (npm run test:queue): its own n8n cluster (Postgres, Redis, main + workers),
// started once by the test file; no shared n8n of the e2e run.
const e2e = require('../e2e/jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...e2e,
	roots: ['<rootDir>/test/queue'],
	globalSetup: undefined,
	globalTeardown: undefined,
};
