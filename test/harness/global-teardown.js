// Why this exists: stops the run's Postgres cluster and removes the folder global-setup.js made for the run.
const { rmSync } = require('node:fs');

module.exports = async function globalTeardown() {
	const root = process.env.WEX_JEST_TMP_ROOT;
	if (process.env.WEX_JEST_TMP_SAVED) process.env.TMPDIR = process.env.WEX_JEST_TMP_SAVED;
	else delete process.env.TMPDIR;
	if (root) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
	await globalThis.__wexCluster?.stop();
};
