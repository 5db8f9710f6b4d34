import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

const packageCode = ['nodes/**/*.ts', 'credentials/**/*.ts'];

export default [
	{ ignores: ['dist/**', '.build/**', '.tools/**', 'node_modules/**', 'coverage/**', '.e2e/**', '.n8n-cache/**', '.n8n-local/**'] },
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
	},
	// The rule sets n8n's package scanner applies, on the code that ships.
	{ ...n8nCommunityNodesPlugin.configs.recommended, files: packageCode },
	{
		files: packageCode,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These two demand `['main']` literals, which the community rule
			// `node-connection-type-literal` (the scanner's) forbids in favour of NodeConnectionTypes.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// "Only applicable to nodes in the main repository" (its own docs): a community
			// credential links to a full URL, as the community rule `credential-documentation-url` asks.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
];
