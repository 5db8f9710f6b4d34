// Why this exists: removes the folder global-setup.js made for the run, with all it holds.
const { rmSync } = require('node:fs');

module.exports = async function globalTeardown() {
	const root = process.env.WEX_JEST_TMP_ROOT;
	if (process.env.WEX_JEST_TMP_SAVED) process.env.TMPDIR = process.env.WEX_JEST_TMP_SAVED;
	else delete process.env.TMPDIR;
	if (root) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
};
