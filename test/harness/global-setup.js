// Why this exists: every temporary folder of a jest run (each worker's N8N_USER_FOLDER, n8n-core's
// binary data, the tests' own mkdtemp folders) goes under one folder that global-teardown.js removes;
// and one embedded Postgres cluster serves the whole run (each emulator clones its own database).
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { CLUSTER_ENV, startCluster } = require('../../stack/service/database');

module.exports = async function globalSetup() {
	// Before TMPDIR moves: Postgres (as root, a `postgres` user) must reach its folder.
	const cluster = await startCluster();
	globalThis.__wexCluster = cluster;
	process.env[CLUSTER_ENV] = cluster.url;
	const root = mkdtempSync(join(tmpdir(), 'wex-jest-'));
	process.env.WEX_JEST_TMP_ROOT = root;
	process.env.WEX_JEST_TMP_SAVED = process.env.TMPDIR ?? '';
	// Workers start after this and inherit it: os.tmpdir() is this folder in every test.
	process.env.TMPDIR = root;
};
