'use strict';
/**
 * What the live trigger checks (run.js's trigger cycles, trigger-modes.js's scenarios) share:
 * finished downloads put into the emulator, the wait for a poll of the trigger, and the
 * finished executions of a workflow read from n8n's REST API.
 */
const { setTimeout: sleep } = require('node:timers/promises');

/** @typedef {import('./types').Emulator} Emulator */
/** @typedef {import('./types').Json} Json */

const safeDecode = (/** @type {string} */ s) => {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
};

/** Whether a request-log entry is a trigger poll: downloads in ascending (created_at, id) order — no operation asks for that. */
const isTriggerPoll = (/** @type {import('./types').LogEntry} */ e) =>
	e.kind === 'rest' &&
	e.table === 'downloads' &&
	e.method === 'GET' &&
	/(^|&)order=created_at\.asc,id\.asc(&|$)/.test(safeDecode(e.query));

/** An ISO timestamp of ms since the epoch. */
const iso = (/** @type {number} */ t) => new Date(t).toISOString();

/**
 * One finished job and its download per label (`https://<label>.trigger.e2e.example.com/`), each
 * table in one statement; the downloads are created `ageMs` before the emulator's now, their jobs
 * `jobMs` before that. Resolves to the stored download rows.
 * @param {Emulator} emu
 * @param {string[]} labels
 * @param {{ email: string, nextFiles: () => number, ageMs?: number, jobMs: number }} options
 *   `nextFiles`: the file count of the next job (tells the jobs apart in the notification)
 * @returns {Promise<Json[]>}
 */
async function insertFinishedDownloads(emu, labels, { email, nextFiles, ageMs = 0, jobMs }) {
	const now = (await emu.now()) - ageMs;
	const jobs = await emu.insert(
		'jobs',
		labels.map((label) => ({
			url: `https://${label}.trigger.e2e.example.com/`,
			email,
			status: 'finished',
			files: nextFiles(),
			created_at: iso(now - jobMs),
		})),
	);
	return emu.insert(
		'downloads',
		jobs.map((job) => ({ job_id: job.id, created_at: iso(now) })),
	);
}

/**
 * Waits for the first trigger poll the emulator logged after the request `since`; throws
 * `failure` after `timeoutMs`.
 * @param {Emulator} emu
 * @param {number} since
 * @param {number} timeoutMs
 * @param {string} failure
 * @returns {Promise<import('./types').LogEntry>}
 */
async function waitForTriggerPoll(emu, since, timeoutMs, failure) {
	const deadline = Date.now() + timeoutMs;
	let poll;
	while (!(poll = (await emu.log()).find((e) => e.seq > since && isTriggerPoll(e)))) {
		if (Date.now() > deadline) throw new Error(failure);
		await sleep(250);
	}
	return poll;
}

/**
 * Adds the workflow's finished executions that `seen` does not hold yet, each as
 * `describe(execution, id)`.
 * @template T
 * @param {import('./types').ExecutionSource} srv
 * @param {string} workflowId
 * @param {Map<string, T>} seen
 * @param {(execution: Json, id: string) => T} describe
 */
async function collectFinishedExecutions(srv, workflowId, seen, describe) {
	for (const e of await srv.executions({ workflowId })) {
		if (seen.has(e.id) || ['new', 'running', 'waiting'].includes(e.status)) continue;
		seen.set(e.id, describe(await srv.execution(e.id), e.id));
	}
}

/**
 * How often each id occurs in the lists.
 * @param {Iterable<number[]>} idLists
 * @returns {Map<number, number>}
 */
function countIds(idLists) {
	const counts = new Map();
	for (const ids of idLists) for (const id of ids) counts.set(id, (counts.get(id) || 0) + 1);
	return counts;
}

module.exports = {
	isTriggerPoll,
	iso,
	insertFinishedDownloads,
	waitForTriggerPoll,
	collectFinishedExecutions,
	countIds,
};
