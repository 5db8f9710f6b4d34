// Why this exists: every temporary folder of a jest run (each worker's N8N_USER_FOLDER, n8n-core's
// binary data, the tests' own mkdtemp folders) goes under one folder that global-teardown.js removes.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async function globalSetup() {
	const root = mkdtempSync(join(tmpdir(), 'wex-jest-'));
	process.env.WEX_JEST_TMP_ROOT = root;
	process.env.WEX_JEST_TMP_SAVED = process.env.TMPDIR ?? '';
	// Workers start after this and inherit it: os.tmpdir() is this folder in every test.
	process.env.TMPDIR = root;
};
