// The real-n8n suites on jest (npm run test:e2e, test:e2e:n8n1, test:queue): one n8n and one
// service stand-in for the run (global-setup.ts), one test file at a time, each scenario its own
// test on a reset service.
const unit = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	transform: unit.transform,
	transformIgnorePatterns: unit.transformIgnorePatterns,
	moduleNameMapper: unit.moduleNameMapper,
	// Each file has its own service and n8n user folder (suite.ts): three run side by side, as
	// they mostly wait for the trigger's minute polls (trigger-modes, editor-n8n) while the others
	// run workflows or start `npm start`.
	maxWorkers: 3,
	// The trigger's scenarios wait for n8n's minute polls.
	testTimeout: 6 * 60_000,
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	verbose: true,
};
