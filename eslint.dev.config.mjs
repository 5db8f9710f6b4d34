// Lints the JavaScript that never ships (build files, configs, jest's sequencer). Every .ts file
// (the shipped nodes/ and credentials/, and the tests, the local stack, the benchmarks) is linted by
// `npx n8n-node lint` with eslint.config.mjs, which n8n's strict mode requires to stay exactly
// n8n-node's default and which holds every rule this file held for TypeScript but prefer-spread:
// one parse of each .ts file instead of two. `npm run lint` runs both.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';

const devCode = ['test/**', 'bench/**', 'stack/**', '*.js', '*.mjs'];

export default defineConfig(
	{
		ignores: [
			'dist/**',
			'.build/**',
			'.tools/**',
			'node_modules/**',
			'coverage/**',
			'.e2e/**',
			'.n8n-cache/**',
			'.n8n-local/**',
			'nodes/**',
			'credentials/**',
		],
	},
	{
		files: devCode.map((p) => (p.endsWith('**') ? `${p}/*.{js,mjs}` : p)),
		extends: [js.configs.recommended],
		languageOptions: { globals: { ...globals.node } },
		// `const { omitted, ...rest } = obj` is how the scripts drop fields.
		rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true }] },
	},
);
