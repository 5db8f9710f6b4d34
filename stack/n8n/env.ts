/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** The environment every n8n command runs in: hermetic, offline, quiet, loopback only. */

import fs from 'node:fs';
import path from 'node:path';
import { isN8n1 } from './provision';

/** Fixed, not secret: throwaway user folders only. A folder keeps the key it was created with. */
const DEFAULT_ENCRYPTION_KEY = 'n8n-nodes-website-export-e2e-not-a-secret';
/** Backend modules that are not needed and/or phone home (mcp-registry calls api.n8n.io). */
const DISABLED_MODULES = [
	'mcp-registry',
	'instance-ai',
	'agents',
	'chat-hub',
	'workflow-builder',
	'insights',
];

/**
 * Variables to set (a value of undefined/null removes one), and { codeNode: true } to start the
 * internal JS task runner so that Code nodes work.
 */
export type N8nEnvExtra = { codeNode?: boolean } & Record<
	string,
	string | number | boolean | null | undefined
>;

/** What n8n reads besides the inherited environment, for the (absolute) `userFolder`. */
function fixedVariables(
	userFolder: string,
	tmp: string,
	codeNode: boolean,
): Record<string, string> {
	return {
		TMPDIR: tmp,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: DEFAULT_ENCRYPTION_KEY,
		// quiet + offline
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_DISABLED_MODULES: DISABLED_MODULES.join(','),
		// community packages: load what is in nodes/node_modules, never fetch or reinstall
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// task runners: a broker always starts (port chosen per process by runN8n/startN8n);
		// "external" mode = no JS/Python runner child. Code nodes need { codeNode: true }.
		N8N_RUNNERS_MODE: codeNode ? 'internal' : 'external',
		N8N_RUNNERS_AUTH_TOKEN: 'wex-e2e-runner-token',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_TASK_TIMEOUT: '300',
		N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 * 1024 * 1024),
		N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
		// nodes must reach the emulator on 127.0.0.1
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		// server: loopback, http
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		// logs: one JSON object per stdout line; `execute --rawOutput` prints its result at
		// level info, so never raise N8N_LOG_LEVEL above info for `execute`.
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_OUTPUT: 'console',
		NO_COLOR: '1',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		DB_TYPE: 'sqlite',
		// n8n pings its database every 2 s and, when a ping takes over 5 s, answers every REST call
		// 503 "Database is not ready" until the next one: on a loaded 2-core machine a `SELECT 1`
		// queued behind the pool's other queries took that long (an e2e run failed on it). The
		// databases here are local files or a local Postgres: the ping waits a day, past any run.
		DB_PING_INTERVAL_SECONDS: '86400',
		NO_PROXY: [process.env.NO_PROXY, '127.0.0.1,localhost'].filter(Boolean).join(','),
	};
}

/**
 * The environment for any n8n command against userFolder: hermetic (inherited N8N_*, DB_*,
 * EXECUTIONS_*, QUEUE_* variables are dropped), offline, quiet, loopback only.
 * `extra` is applied last (use it for N8N_PORT, N8N_LOG_LEVEL=debug, …).
 */
export function n8nEnv(userFolder: string, extra: N8nEnvExtra = {}): NodeJS.ProcessEnv {
	const { codeNode, ...vars } = extra;
	const env: NodeJS.ProcessEnv = {};
	const inheritedN8n =
		/^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_ENV$)/;
	for (const [k, v] of Object.entries(process.env)) if (!inheritedN8n.test(k)) env[k] = v;
	// n8n puts some files in os.tmpdir() (e.g. /tmp/n8nDataTableUploads): keep them in the folder.
	const tmp = path.join(path.resolve(userFolder), '.tmp');
	fs.mkdirSync(tmp, { recursive: true });
	Object.assign(env, fixedVariables(path.resolve(userFolder), tmp, !!codeNode));
	for (const [k, v] of Object.entries(vars)) {
		if (v === undefined || v === null) delete env[k];
		else env[k] = String(v);
	}
	return env;
}

/** Where this n8n reads its webhook base URL: 2.x deprecates WEBHOOK_URL for N8N_WEBHOOK_URL (1.x knows only the former). */
export function webhookUrlVariable(n8nVersion: string) {
	return isN8n1(n8nVersion) ? 'WEBHOOK_URL' : 'N8N_WEBHOOK_URL';
}

/** Module names per n8n install (its prefix): null when its list cannot be read. */
const moduleNamesCache: Map<string, string[] | null> = new Map();

/**
 * Keeps only the backend module names this n8n knows: n8n refuses to start on an unknown one
 * (`Unknown module "mcp-registry"` in 1.123.81, whose list is shorter than 2.41's). An n8n whose
 * list cannot be read (an unknown layout) gets the (comma-separated) list as it is.
 */
function knownModules(prefix: string, list: string) {
	if (!moduleNamesCache.has(prefix)) {
		const file = path.join(
			prefix,
			'node_modules/@n8n/backend-common/dist/modules/modules.config.js',
		);
		const m =
			fs.existsSync(file) && /MODULE_NAMES = \[([^\]]*)\]/.exec(fs.readFileSync(file, 'utf8'));
		moduleNamesCache.set(prefix, m ? [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]) : null);
	}
	const names = moduleNamesCache.get(prefix);
	return names
		? list
				.split(',')
				.filter((n) => names.includes(n.trim()))
				.join(',')
		: list;
}

/** env for a spawned n8n: a copy of `source` (from n8nEnv) for this n8n; Node 24 first on PATH. */
export function envFor(
	source: NodeJS.ProcessEnv,
	p: import('./provision').Provisioned,
): NodeJS.ProcessEnv {
	const env = { ...source };
	if (env.N8N_DISABLED_MODULES)
		env.N8N_DISABLED_MODULES = knownModules(p.prefix, env.N8N_DISABLED_MODULES);
	// n8n 1.x keeps binary data in memory ("default") unless told; 2.x defaults to filesystem.
	if (isN8n1(p.n8nVersion) && !env.N8N_DEFAULT_BINARY_DATA_MODE)
		env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';
	return withNodeBinFirst(env, p.nodeDir);
}

/** `env` with the provisioned Node's bin folder first on PATH (n8n's children find Node 24). */
export function withNodeBinFirst(env: NodeJS.ProcessEnv, nodeDir: string) {
	const bin = path.join(nodeDir, 'bin');
	const rest = (env.PATH || '').split(path.delimiter).filter((d) => d && d !== bin);
	env.PATH = [bin, ...rest].join(path.delimiter);
	return env;
}
