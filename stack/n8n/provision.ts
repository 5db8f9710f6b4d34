/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** The pinned n8n + Node 24 that every real-n8n run uses, installed once by provision.sh. */

import path from 'node:path';
import { run } from './process';

const PROVISION_SH = path.join(__dirname, 'provision.sh');

export type Provisioned = {
	nodeBin: string;
	n8nBin: string;
	nodeDir: string;
	prefix: string;
	n8nVersion: string;
	nodeVersion: string;
};

/** This process's answer, reused by every later call. */
let provisioned: Provisioned | null = null;

/**
 * Install (first time, ~6 min) or reuse (~0.01 s) the pinned n8n + Node 24.
 * Progress goes to this process's stderr. Set WEX_CACHE_DIR to move the cache.
 * WEX_N8N selects another n8n: '1' = 1.123.81 beside the 2.x default, '2' (the default pin) or
 * an exact version.
 */
export async function provision(): Promise<Provisioned> {
	if (provisioned) return provisioned;
	const n8n = process.env.WEX_N8N;
	const res = await run('bash', [PROVISION_SH, '--json', ...(n8n ? ['--n8n', n8n] : [])], {
		stdio: ['ignore', 'pipe', 'inherit'],
		timeoutMs: 30 * 60 * 1000,
	});
	if (res.code !== 0) throw new Error(`provision.sh failed with code ${res.code}`);
	const j: Record<string, string> = JSON.parse(res.stdout.trim().split('\n').pop() || '');
	provisioned = {
		nodeBin: j.N8N_NODE_BIN,
		n8nBin: j.N8N_BIN,
		nodeDir: j.N8N_NODE_DIR,
		prefix: j.N8N_PREFIX,
		n8nVersion: j.N8N_PINNED_VERSION,
		nodeVersion: j.N8N_NODE_VERSION,
	};
	return provisioned;
}

/** n8n 1.x differs from 2.x in commands, variables and defaults. */
export function isN8n1(n8nVersion: string) {
	return /^1\./.test(n8nVersion);
}
