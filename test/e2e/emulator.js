'use strict';
/**
 * The Website Export emulator as a child process (`node .build/stack/service/cli.js`), driven
 * through its HTTP control API (/__emulator/*, see stack/service/README.md). The compiled CLI
 * comes from `npm run -s build:tools`; it is started by scripts/emulator.js, as `npm start` starts it.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { startEmulatorServer } = require('../../scripts/emulator');
const { httpRequest } = require('../../scripts/n8n/http');
const { getFreePort } = require('../../scripts/n8n/process');
const { REPO } = require('./suite');

const CLI = path.join(REPO, '.build/stack/service/cli.js');

/** @typedef {import('./types').Emulator} Emulator */
/** @typedef {import('./types').EmulatorHealth} EmulatorHealth */
/** @typedef {import('./types').Json} Json */
/** @typedef {import('../../scripts/n8n/process').ServerProcess} ServerProcess */

/**
 * Starts the emulator on a free port; resolves once /__emulator/health answers.
 * getFreePort() closes its probe before the emulator binds: another process may take the port
 * in between. Then the emulator exits at once (EADDRINUSE) and another port is tried.
 * @param {{ jobMs?: number, readyTimeoutMs?: number }} [options]
 * @returns {Promise<Emulator>}
 */
async function startEmulatorProcess({ jobMs = 2000, readyTimeoutMs = 20000 } = {}) {
	for (let attempt = 1; ; attempt++) {
		const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'website-export-emulator-'));
		const logFile = path.join(logDir, 'emulator.log');
		const output = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
		try {
			const started = await startEmulatorServer({
				cli: CLI,
				port: await getFreePort(),
				logFile,
				args: ['--job-ms', String(jobMs)],
				timeoutMs: readyTimeoutMs,
			});
			/** @param {{ timeoutMs?: number }} [options] */
			const stop = async (options) => {
				await started.stop(options);
				fs.rmSync(logDir, { recursive: true, force: true });
			};
			return handle(started.server, started.health, output, stop);
		} catch (error) {
			const portTaken = output().includes('EADDRINUSE');
			fs.rmSync(logDir, { recursive: true, force: true });
			if (!portTaken || attempt === 3) throw error;
		}
	}
}

/**
 * The control API of a started emulator.
 * @param {ServerProcess} server
 * @param {EmulatorHealth} health
 * @param {() => string} output what the emulator printed so far
 * @param {(options?: { timeoutMs?: number }) => Promise<void>} stop stops it, cleans up after it
 * @returns {Emulator}
 */
function handle(server, health, output, stop) {
	/**
	 * @param {string} method
	 * @param {string} p
	 * @param {unknown} [body]
	 * @returns {Promise<Json>} the answer's JSON
	 */
	const call = async (method, p, body) => {
		const res = await httpRequest(method, health.baseUrl + p, { body });
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
		pid: server.pid,
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
		stop: () => stop({ timeoutMs: 5000 }),
	};
}

/** Rows of an answer: the answer itself when it is an array, else its `rows`. */
const asArray = (/** @type {Json} */ body) =>
	Array.isArray(body) ? body : (body && body.rows) || [];

module.exports = { startEmulatorProcess };
