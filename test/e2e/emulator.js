'use strict';
/**
 * The Website Export emulator as a child process (`node .build/test/emulator/cli.js`), driven
 * through its HTTP control API (/__emulator/*, see test/emulator/README.md). The compiled CLI
 * comes from `npm run -s build:tools`.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const { getFreePort, httpRequest, sleep } = require('../../scripts/n8n/lib');
const { REPO } = require('./suite');

const CLI = path.join(REPO, '.build/test/emulator/cli.js');

/** @typedef {import('./types').Emulator} Emulator */
/** @typedef {import('./types').EmulatorHealth} EmulatorHealth */

/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
process.on('exit', () => {
	for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts the emulator on a free port; resolves once /__emulator/health answers.
 * @param {{ jobMs?: number, readyTimeoutMs?: number }} [options]
 * @returns {Promise<Emulator>}
 */
async function startEmulatorProcess({ jobMs = 2000, readyTimeoutMs = 20000 } = {}) {
	let lastError;
	// getFreePort() closes its probe before the emulator binds: another process may take the
	// port in between. Then the emulator exits at once (EADDRINUSE) and another port is tried.
	for (let attempt = 1; attempt <= 3; attempt++) {
		const port = await getFreePort();
		const child = spawn(
			process.execPath,
			[CLI, '--port', String(port), '--job-ms', String(jobMs)],
			{
				cwd: REPO,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		running.add(child);
		let output = '';
		child.stdout.on('data', (d) => (output += d));
		child.stderr.on('data', (d) => (output += d));
		/** @type {{ code: number | null, signal: NodeJS.Signals | null } | null} */
		let exited = null;
		/** @type {Promise<unknown>} */
		const exitPromise = new Promise((resolve) =>
			child.on('exit', (code, signal) => {
				exited = { code, signal };
				running.delete(child);
				resolve(exited);
			}),
		);
		const baseUrl = `http://127.0.0.1:${port}`;
		const deadline = Date.now() + readyTimeoutMs;
		while (!exited && Date.now() < deadline) {
			try {
				const res = await httpRequest('GET', `${baseUrl}/__emulator/health`, { timeoutMs: 2000 });
				if (res.status === 200 && res.json && res.json.ok)
					return handle(child, exitPromise, res.json, () => output);
			} catch {
				/* not listening yet */
			}
			await sleep(100);
		}
		if (!exited) child.kill('SIGKILL');
		lastError = new Error(
			`emulator on port ${port} did not start (${exited ? `exited ${JSON.stringify(exited)}` : 'timed out'}): ${output.trim().slice(-2000)}`,
		);
	}
	throw lastError;
}

/**
 * The control API of a started emulator.
 * @param {import('node:child_process').ChildProcess} child
 * @param {Promise<unknown>} exitPromise settles when the child has exited
 * @param {EmulatorHealth} health
 * @param {() => string} output what the emulator printed so far
 * @returns {Emulator}
 */
function handle(child, exitPromise, health, output) {
	/**
	 * @param {string} method
	 * @param {string} p
	 * @param {unknown} [body]
	 * @returns {Promise<import('./types').Json>} the answer's JSON
	 */
	const call = async (method, p, body) => {
		const res = await httpRequest(method, health.baseUrl + p, { body, timeoutMs: 15000 });
		if (res.status < 200 || res.status >= 300)
			throw new Error(`emulator ${method} ${p} → ${res.status} ${res.text.slice(0, 500)}`);
		return res.json;
	};
	/** @returns {Promise<import('./types').LogEntry[]>} */
	const log = async () => (await call('GET', '/__emulator/log')).log;
	return {
		baseUrl: health.baseUrl,
		apiKey: health.apiKey,
		demoUser: health.demoUser,
		/** A login whose account has no Business plan: the API refuses it (403, 42501). */
		freeUser: health.freeUser,
		pid: child.pid,
		output,
		/** The emulator's clock (ms): created_at of rows, token expiry, link validity. */
		now: async () => (await call('GET', '/__emulator/clock')).now,
		/** Inserts rows (owner: the demo user); resolves to the stored rows. */
		insert: async (table, rows) =>
			asArray(await call('POST', `/__emulator/rows/${table}`, { rows })),
		rows: async (table) => asArray(await call('GET', `/__emulator/rows/${table}`)),
		settings: () => call('GET', '/__emulator/settings'),
		/** Changes settings: maxRows, latencyMs, ignorePrefer, downloadTimestamps, downloadDelayMs, … */
		patchSettings: (patch) => call('PATCH', '/__emulator/settings', patch),
		/** Adds a fault: { match: { method, pathRegex }, status, applyAfterHandling, reset, times, delayMs }. */
		fault: (spec) => call('POST', '/__emulator/faults', spec),
		clearFaults: () => call('DELETE', '/__emulator/faults'),
		advanceClock: (ms) => call('POST', '/__emulator/clock', { advanceMs: ms }),
		/** Every request the service received, in order: { seq, at, method, path, query, status, kind, table }. */
		log,
		/** The seq of the newest request logged (0 before any): what came later has a greater one. */
		lastSeq: async () => (await log()).reduce((max, e) => Math.max(max, e.seq), 0),
		async stop() {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
			await exitPromise;
			clearTimeout(timer);
		},
	};
}

/** Rows of an answer: the answer itself when it is an array, else its `rows`. */
const asArray = (/** @type {import('./types').Json} */ body) =>
	Array.isArray(body) ? body : (body && body.rows) || [];

module.exports = { startEmulatorProcess };
