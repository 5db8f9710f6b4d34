/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
		// ESM-only libraries of the tooling (jose), turned into CommonJS for jest's module system.
		'^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' } }],
	},
	transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
	// Types are checked once for the whole tree by `npm run typecheck`; jest only transpiles.
	testTimeout: 30000,
	// n8n-core writes its config under N8N_USER_FOLDER; each worker gets a throwaway one.
	setupFiles: ['<rootDir>/test/setup-env.ts'],
	// The emulators of a test file reuse databases and PostgREST processes, dropped after the file.
	setupFilesAfterEnv: ['<rootDir>/test/harness/reuse-backends.ts'],
	// One temporary folder per run (TMPDIR for the workers), removed at the end: nothing left in /tmp.
	globalSetup: '<rootDir>/test/harness/global-setup.js',
	globalTeardown: '<rootDir>/test/harness/global-teardown.js',
	// jest's transform cache: kept between runs, but in node_modules (gitignored), not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
};
