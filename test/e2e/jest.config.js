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
	// Each file has its own service and n8n user folder (suite.ts): two run side by side, one mostly
	// waiting for the trigger's polls while the other runs workflows (a third worker
	// overloaded the machine under test:all: n8n answered "Database is not ready").
	maxWorkers: 2,
	testSequencer: '<rootDir>/test/e2e/sequencer.js',
	// A bound for a failure: a test waits for events (a poll, an execution), each with its own bound.
	testTimeout: 6 * 60_000,
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	verbose: true,
};
