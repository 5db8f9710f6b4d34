'use strict';
/**
 * What the real-n8n suites (run.js, queue.js) share: one line per check ("ok  name: details" /
 * "FAIL name: details"), notes, and the ending: stop what the suite started,
 * print "N passed, N failed" last, exit 1 on any failure (also on SIGINT/SIGTERM).
 */
const assert = require('node:assert/strict');
const path = require('node:path');

const { isN8n1 } = require('../../stack/n8n/provision');

const REPO = path.resolve(__dirname, '../..');
const started = Date.now();
const counts = { passed: 0, failed: 0 };

const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

/** A duration for a report line: `12.3 s`. */
const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * @param {boolean} ok
 * @param {string} name
 * @param {unknown} detail
 */
function report(ok, name, detail) {
	if (ok) counts.passed++;
	else counts.failed++;
	console.log(`${ok ? 'ok  ' : 'FAIL '}${name}: ${String(detail).split('\n').join('\n      ')}`);
}

/**
 * Runs fn (which throws on a failed expectation and returns the details), prints one line.
 * @param {string} name
 * @param {() => unknown} fn
 * @returns {Promise<boolean>}
 */
async function check(name, fn) {
	try {
		report(true, name, await fn());
		return true;
	} catch (error) {
		report(
			false,
			name,
			error instanceof assert.AssertionError ? error.message : error.stack || String(error),
		);
		return false;
	}
}

const note = (/** @type {string} */ text) => console.log(`--   ${text}`);

/**
 * Runs `main`, then `finish` (which stops what the suite started) and the summary. Returns
 * `end(exitCode?)`, for a timer that gives up on a hung suite.
 * @param {() => Promise<unknown>} main
 * @param {{ finish: () => Promise<unknown>, summary?: () => string[] }} ending
 * @returns {(exitCode?: number) => Promise<void>}
 */
function runSuite(main, { finish, summary = () => [] }) {
	let ending = false;
	/** @param {number} [exitCode] */
	const end = async (exitCode) => {
		if (ending) return;
		ending = true;
		await finish();
		for (const line of summary()) note(line);
		console.log(`${counts.passed} passed, ${counts.failed} failed`);
		process.exit(exitCode ?? (counts.failed > 0 ? 1 : 0));
	};
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.on(signal, () => {
			report(false, 'suite', `interrupted by ${signal}`);
			void end(130);
		});
	}
	main()
		.catch((error) => report(false, 'suite', error.stack || String(error)))
		.then(() => end());
	return end;
}

module.exports = {
	REPO,
	started,
	counts,
	elapsed,
	seconds,
	isN8n1,
	report,
	check,
	note,
	runSuite,
};
