'use strict';
// Why: the emulator as a child process, started and watched one way for `npm start` and the e2e suites.
const fs = require('node:fs');
const path = require('node:path');

const { httpRequest } = require('./n8n/http');
const { killGroup, spawnServer, waitForHealth } = require('./n8n/process');

const REPO = path.resolve(__dirname, '..');

/**
 * @typedef {{ ok: boolean, baseUrl: string, apiKey: string,
 *   demoUser: { email: string, password: string }, freeUser: { email: string, password: string } }} EmulatorHealth
 * @typedef {{ server: import('./n8n/process').ServerProcess, health: EmulatorHealth, baseUrl: string,
 *   stop: (options?: { timeoutMs?: number }) => Promise<void> }} EmulatorServer
 */

/**
 * The compiled emulator CLI (`cli`) on 127.0.0.1:`port`, in its own process group (a terminal's
 * Ctrl-C reaches only the caller, which stops it in order) and killed if this process exits
 * first. Resolves once /__emulator/health answers; on failure the emulator is stopped and the
 * error says how it ended, with the end of its log.
 * @param {{ cli: string, port: number, logFile: string, args?: string[], timeoutMs: number }} options
 * @returns {Promise<EmulatorServer>}
 */
async function startEmulatorServer({ cli, port, logFile, args = [], timeoutMs }) {
	const server = spawnServer(process.execPath, [cli, '--port', String(port), ...args], {
		cwd: REPO,
		logFile,
		append: false,
	});
	const killOnExit = () => server.exited() || killGroup(server.pid, 'SIGKILL'); // 'exit' handlers must be synchronous
	process.on('exit', killOnExit);
	/** @param {{ timeoutMs?: number }} [options] */
	const stop = async ({ timeoutMs: stopMs = 5000 } = {}) => {
		process.removeListener('exit', killOnExit);
		await server.stop({ timeoutMs: stopMs });
	};
	const baseUrl = `http://127.0.0.1:${port}`;
	const logTail = () =>
		fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
	try {
		/** @type {EmulatorHealth} */
		const health = await waitForHealth(server, {
			timeoutMs,
			intervalMs: 100,
			probe: async () => {
				const r = await httpRequest('GET', `${baseUrl}/__emulator/health`, { timeoutMs: 1000 });
				return r.status === 200 && r.json && r.json.ok ? r.json : undefined;
			},
			failure: (exited) =>
				new Error(
					exited
						? `The emulator stopped at start (${JSON.stringify(exited)}):\n${logTail()}`
						: `The emulator did not answer on ${baseUrl} within ${timeoutMs / 1000} s:\n${logTail()}`,
				),
		});
		return { server, health, baseUrl, stop };
	} catch (error) {
		await stop({ timeoutMs: 2000 });
		throw error;
	}
}

module.exports = { startEmulatorServer };
