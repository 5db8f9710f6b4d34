/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', }] },
	// Types are checked once for the whole tree by `npm run typecheck`; jest only transpiles.
	testTimeout: 30000,
	// n8n-core writes its config under N8N_USER_FOLDER; each worker gets a throwaway one.
	setupFiles: ['<rootDir>/test/setup-env.ts'],
};
