'use strict';
/**
 * The trigger exactly once in every way n8n 2.41 runs poll triggers (issue 10): its task
 * scheduler (each poll rebuilds the workflow from the database), the scheduler with durable
 * poll cursors (the activation poll commits nothing), and n8n's default mode across a restart.
 * Each scenario has its own copy of the trigger workflow (its own static data), watching only its
 * own downloads (Job URL Contains), and its own `n8n start`.
 */
const assert = require('node:assert/strict');

const n8n = require('../../stack/n8n/lib');
const {
	collectFinishedExecutions,
	countIds,
	insertFinishedDownloads,
	waitForTriggerPoll,
} = require('./trigger-runs');

/** @typedef {import('./types').Json} Json */

const SCHEDULER = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true' };
/** @type {Scenario[]} */
const SCENARIOS = [
	{ key: 'sched', name: 'task scheduler', env: SCHEDULER, restart: false },
	{
		key: 'durable',
		name: 'task scheduler + durable poll cursors, and a restart',
		env: { ...SCHEDULER, N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' },
		restart: true,
	},
	{ key: 'restart', name: "n8n's default mode across a restart", env: {}, restart: true },
];
const MINUTE = 60_000;
const CYCLE_TIMEOUT_MS = 150_000;

/**
 * The scenario's copy of the trigger example: its own id, and only its own downloads.
 * @param {Json} template
 * @param {Scenario} scenario
 * @returns {Json}
 */
function scenarioWorkflow(template, scenario) {
	const copy = JSON.parse(JSON.stringify(template));
	copy.id = `wexE2eTrigMode${scenario.key}`;
	copy.name = `e2e: trigger, ${scenario.name}`;
	const trigger = copy.nodes.find((/** @type {Json} */ node) =>
		node.type.endsWith('.websiteExportTrigger'),
	);
	trigger.parameters.options = {
		...trigger.parameters.options,
		jobUrlContains: `mode-${scenario.key}-`,
	};
	return copy;
}

/**
 * Runs the scenarios one after another. `triggerWorkflowId`: the suite's own trigger workflow,
 * unpublished first so that only one trigger polls at a time.
 * @param {ModeSuite & { template: Json, triggerWorkflowId: string }} suite
 */
async function runTriggerModes({ emu, env, check, note, template, triggerWorkflowId }) {
	await n8n.runN8n(['unpublish:workflow', `--id=${triggerWorkflowId}`], { env, check: true });
	for (const scenario of SCENARIOS) {
		const workflow = scenarioWorkflow(template, scenario);
		await n8n.importWorkflows([workflow], { env });
		await n8n.publishWorkflow(workflow.id, { env });
		try {
			await runScenario({ emu, env: { ...env, ...scenario.env }, check, note, scenario, workflow });
		} finally {
			await n8n.runN8n(['unpublish:workflow', `--id=${workflow.id}`], { env, check: true });
		}
	}
}

/**
 * @typedef {{
 *   emu: import('./types').Emulator,
 *   env: import('./types').Env,
 *   check: import('./types').Check,
 *   note: import('./types').Note,
 * }} ModeSuite
 * @typedef {{ key: string, name: string, env: import('./types').Env, restart: boolean }} Scenario
 * @typedef {{ status: string, ids: number[] }} Emission what one execution of the trigger emitted
 * @typedef {{ srv: import('./types').ExecutionSource & { stop(): Promise<unknown> }, emitted: Map<string, Emission> }} Live
 *   the running `n8n start` (replaced on a restart) and the executions seen so far
 * @typedef {(label: string, ageMs?: number) => Promise<Json>} Finish
 */

/**
 * Adds the trigger's finished executions to `live.emitted`.
 * @param {Live} live
 * @param {string} workflowId
 */
const collect = (live, workflowId) =>
	collectFinishedExecutions(live.srv, workflowId, live.emitted, (full) => ({
		status: full.status,
		ids: (n8n.nodeItems(full, 'Website Export Trigger') || []).map((json) => json.id),
	}));

/**
 * Waits until the trigger emitted `download`.
 * @param {Live} live
 * @param {string} workflowId
 * @param {Json} download
 */
async function waitForEmission(live, workflowId, download) {
	const deadline = Date.now() + CYCLE_TIMEOUT_MS;
	for (;;) {
		await collect(live, workflowId);
		if ([...live.emitted.values()].some((x) => x.ids.includes(download.id))) return;
		if (Date.now() > deadline)
			throw new Error(
				`download #${download.id} not emitted within ${CYCLE_TIMEOUT_MS / 1000} s; executions: ${JSON.stringify([...live.emitted])}`,
			);
		await n8n.sleep(1000);
	}
}

/**
 * After activation: one download finished while n8n runs, then one more (while n8n is stopped
 * when the scenario restarts it); resolves once both were emitted.
 * @param {ModeSuite & { scenario: Scenario, workflow: Json }} options
 * @param {Live} live
 * @param {Finish} finish
 * @param {number} since the request before n8n started
 */
async function emitTwo({ emu, env, scenario, workflow }, live, finish, since) {
	await waitForTriggerPoll(emu, since, 90_000, 'no activation poll of the trigger within 90 s');
	const activatedAt = Date.now();
	// Finished after activation: the poll that finds it may start without the activation's state.
	const first = await finish('first');
	await waitForEmission(live, workflow.id, first);
	const firstAfter = Date.now() - activatedAt;
	let second;
	if (scenario.restart) {
		await live.srv.stop();
		second = await finish('while-down');
		await n8n.sleep(5000);
		const beforeRestart = await emu.lastSeq();
		live.srv = await n8n.startN8n({ env, timeoutMs: 180_000 });
		await waitForTriggerPoll(
			emu,
			beforeRestart,
			90_000,
			'no poll after the restart of the trigger within 90 s',
		);
	} else {
		second = await finish('second');
	}
	await waitForEmission(live, workflow.id, second);
	return { first, second, firstAfter };
}

/**
 * Asserts that each new download was emitted exactly once, and nothing else; returns the details.
 * @param {Scenario} scenario
 * @param {Map<string, Emission>} emitted
 * @param {{ baseline: Json, first: Json, second: Json, firstAfter: number }} downloads
 */
function assertExactlyOnce(scenario, emitted, { baseline, first, second, firstAfter }) {
	const counts = countIds([...emitted.values()].map((x) => x.ids));
	assert.ok(
		[...emitted.values()].every((x) => x.status === 'success'),
		`execution statuses ${[...emitted.values()].map((x) => x.status)}`,
	);
	assert.equal(
		counts.get(first.id),
		1,
		`download #${first.id} (finished after activation) emitted ${counts.get(first.id) || 0} times`,
	);
	assert.equal(
		counts.get(second.id),
		1,
		`download #${second.id} emitted ${counts.get(second.id) || 0} times`,
	);
	assert.ok(!counts.has(baseline.id), `download #${baseline.id} (there at activation) was emitted`);
	assert.deepEqual(
		[...counts.keys()].sort((a, b) => a - b),
		[first.id, second.id].sort((a, b) => a - b),
		"only the scenario's new downloads",
	);
	return `#${first.id} (finished after activation) emitted once, ${(firstAfter / 1000).toFixed(0)} s after activation; #${second.id} (${scenario.restart ? 'finished while n8n was stopped' : 'the next one'}) once${scenario.restart ? ' after the restart' : ''}; #${baseline.id} (there at activation) never; ${emitted.size} executions`;
}

/** @param {ModeSuite & { scenario: Scenario, workflow: Json }} options */
async function runScenario(options) {
	const { emu, env, check, note, scenario, workflow } = options;
	let serial = 0;
	/** @type {Finish} A finished job of this scenario and its download, created `ageMs` ago by the service's clock. */
	const finish = async (label, ageMs = 0) => {
		const [download] = await insertFinishedDownloads(emu, [`mode-${scenario.key}-${label}`], {
			email: 'modes@e2e.example.com',
			nextFiles: () => ++serial,
			ageMs,
			jobMs: 2000,
		});
		return download;
	};

	// Existed at activation, older than the look-back of a poll without state (1 min + 10 min).
	const baseline = await finish('baseline', 30 * MINUTE);
	const since = await emu.lastSeq();
	/** @type {Live} */
	const live = { srv: await n8n.startN8n({ env, timeoutMs: 180_000 }), emitted: new Map() };
	try {
		const emissions = await emitTwo(options, live, finish, since);
		// One more poll cycle: nothing may come twice.
		await n8n.sleep(65_000);
		await collect(live, workflow.id);
		await check(`trigger exactly once: ${scenario.name} (live)`, () =>
			assertExactlyOnce(scenario, live.emitted, { baseline, ...emissions }),
		);
	} finally {
		await live.srv.stop();
	}
	note(`trigger scenario "${scenario.name}" done`);
}

module.exports = { runTriggerModes };
