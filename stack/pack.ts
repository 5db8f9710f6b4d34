/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the run's one build and pack (`.ci/test-all`): dist/ afresh and its tarball in the folder
// given, whose path it prints for WEX_TARBALL (every consumer then uses that tarball and dist/).
// `--typecheck`: the build also type-checks everything, in one program (stack/typecheck-build.ts).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { buildAndPack } from './n8n/community-package';

const { positionals, values } = parseArgs({
	allowPositionals: true,
	options: { typecheck: { type: 'boolean', default: false } },
});
if (positionals.length !== 1)
	throw new Error('usage: stack/pack.ts [--typecheck] <folder for the tarball>');
const build = values.typecheck ? 'build:typechecked' : 'build';
buildAndPack(resolve(__dirname, '..'), resolve(positionals[0]), build).then(
	(tarball) => process.stdout.write(`${tarball}\n`),
	(error: unknown) => {
		process.stderr.write(`[pack] ${String(error)}\n`);
		process.exitCode = 1;
	},
);
