'use strict';
/**
 * The trigger exactly once in every way n8n 2.41 runs poll triggers (issue 10): its task
 * scheduler (each poll rebuilds the workflow from the database), the scheduler with durable
 * poll cursors (the activation poll commits nothing), and n8n's default mode across a restart.
 * Each scenario has its own copy of the trigger workflow (its own static data), watching only its
 * own downloads (Job URL Contains), and its own `n8n start`.
 */
const assert = require('node:assert/strict');

const n8n = require('../../scripts/n8n/lib');
const { isTriggerPoll } = require('./emulator');

const SCHEDULER = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true' };
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
const iso = (t) => new Date(t).toISOString();

/** The scenario's copy of the trigger example: its own id, and only its own downloads. */
function scenarioWorkflow(template, scenario) {
	const copy = JSON.parse(JSON.stringify(template));
	copy.id = `wexE2eTrigMode${scenario.key}`;
	copy.name = `e2e: trigger, ${scenario.name}`;
	const trigger = copy.nodes.find((node) => node.type.endsWith('.websiteExportTrigger'));
	trigger.parameters.options = {
		...trigger.parameters.options,
		jobUrlContains: `mode-${scenario.key}-`,
	};
	return copy;
}

/**
 * Runs the scenarios one after another. `triggerWorkflowId`: the suite's own trigger workflow,
 * unpublished first so that only one trigger polls at a time.
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

async function runScenario({ emu, env, check, note, scenario, workflow }) {
	let serial = 0;
	/** A finished job of this scenario and its download, created `ageMs` ago by the service's clock. */
	const finish = async (label, ageMs = 0) => {
		const now = await emu.now();
		const [job] = await emu.insert('jobs', [
			{
				url: `https://mode-${scenario.key}-${label}.trigger.e2e.example.com/`,
				email: 'modes@e2e.example.com',
				status: 'finished',
				files: ++serial,
				created_at: iso(now - ageMs - 2000),
			},
		]);
		const [download] = await emu.insert('downloads', [
			{ job_id: job.id, created_at: iso(now - ageMs) },
		]);
		return download;
	};
	const waitForPoll = async (since, what) => {
		const deadline = Date.now() + 90_000;
		while (!(await emu.log()).some((e) => e.seq > since && isTriggerPoll(e))) {
			if (Date.now() > deadline) throw new Error(`no ${what} of the trigger within 90 s`);
			await n8n.sleep(250);
		}
	};

	// Existed at activation, older than the look-back of a poll without state (1 min + 10 min).
	const baseline = await finish('baseline', 30 * MINUTE);
	let since = await emu.lastSeq();
	let srv = await n8n.startN8n({ env, timeoutMs: 180_000 });
	const emitted = new Map(); // execution id → download ids
	const collect = async () => {
		for (const e of await srv.executions({ workflowId: workflow.id })) {
			if (emitted.has(e.id) || ['new', 'running', 'waiting'].includes(e.status)) continue;
			const full = await srv.execution(e.id);
			const runData = (full.data && full.data.resultData && full.data.resultData.runData) || {};
			const out = runData['Website Export Trigger'];
			emitted.set(e.id, {
				status: full.status,
				ids: ((out && out[0] && out[0].data && out[0].data.main[0]) || []).map((i) => i.json.id),
			});
		}
	};
	const waitFor = async (download) => {
		const deadline = Date.now() + CYCLE_TIMEOUT_MS;
		for (;;) {
			await collect();
			if ([...emitted.values()].some((x) => x.ids.includes(download.id))) return;
			if (Date.now() > deadline)
				throw new Error(
					`download #${download.id} not emitted within ${CYCLE_TIMEOUT_MS / 1000} s; executions: ${JSON.stringify([...emitted])}`,
				);
			await n8n.sleep(1000);
		}
	};
	try {
		await waitForPoll(since, 'activation poll');
		const activatedAt = Date.now();
		// Finished after activation: the poll that finds it may start without the activation's state.
		const first = await finish('first');
		await waitFor(first);
		const firstAfter = Date.now() - activatedAt;
		let second;
		if (scenario.restart) {
			await srv.stop();
			second = await finish('while-down');
			await n8n.sleep(5000);
			since = await emu.lastSeq();
			srv = await n8n.startN8n({ env, timeoutMs: 180_000 });
			await waitForPoll(since, 'poll after the restart');
		} else {
			second = await finish('second');
		}
		await waitFor(second);
		// One more poll cycle: nothing may come twice.
		await n8n.sleep(65_000);
		await collect();
		await check(`trigger exactly once: ${scenario.name} (live)`, () => {
			const counts = new Map();
			for (const x of emitted.values())
				for (const id of x.ids) counts.set(id, (counts.get(id) || 0) + 1);
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
			assert.ok(
				!counts.has(baseline.id),
				`download #${baseline.id} (there at activation) was emitted`,
			);
			assert.deepEqual(
				[...counts.keys()].sort((a, b) => a - b),
				[first.id, second.id].sort((a, b) => a - b),
				"only the scenario's new downloads",
			);
			return `#${first.id} (finished after activation) emitted once, ${(firstAfter / 1000).toFixed(0)} s after activation; #${second.id} (${scenario.restart ? 'finished while n8n was stopped' : 'the next one'}) once${scenario.restart ? ' after the restart' : ''}; #${baseline.id} (there at activation) never; ${emitted.size} executions`;
		});
	} finally {
		await srv.stop();
	}
	note(`trigger scenario "${scenario.name}" done`);
}

module.exports = { runTriggerModes };
