/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the trigger exactly once in every way n8n 2.41 runs poll triggers (issue 10): its task
// scheduler (each poll rebuilds the workflow from the database), the scheduler with durable poll
// cursors (the activation poll commits nothing), and n8n's default mode across a restart; and
// when a poll outlasts the interval, so that the next one starts before it ends (issue 42). Each
// scenario has its own copy of the trigger workflow (its own static data, polling every 10 s), its
// own service and credential; the scenarios of one mode share an `n8n start` (sharedN8n).
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import { startServiceProcess, type ServiceProcess } from '../../stack/service/launch';
import {
	collectFinishedExecutions,
	assertEachOnce,
	countIds,
	insertFinishedDownloads,
	isTriggerPoll,
	POLL_EVERY_MS,
	pollingEvery10s,
	triggerEmission,
	waitForTriggerPoll,
} from './trigger-runs';
import {
	CREDENTIAL_TYPE,
	JOB_MS,
	NO_EDITOR,
	copyUserFolder,
	credentialsFor,
	onN8n1,
	report,
	saveActiveWithCredential,
	workflowFile,
	type Json,
	type N8nServer,
} from './suite';
const SCHEDULER = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true' };
/** n8n's mode: its name (the scenarios of one mode share an `n8n start`) and its variables. */
interface Mode {
	key: string;
	env: NodeJS.ProcessEnv;
}
interface Scenario {
	key: string;
	name: string;
	mode: Mode;
	restart: boolean;
}
const DEFAULT_MODE: Mode = { key: 'default', env: {} };
const SCENARIOS: Scenario[] = [
	{ key: 'sched', name: 'task scheduler', mode: { key: 'sched', env: SCHEDULER }, restart: false },
	{
		key: 'durable',
		name: 'task scheduler + durable poll cursors, and a restart',
		mode: { key: 'durable', env: { ...SCHEDULER, N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' } },
		restart: true,
	},
	{
		key: 'restart',
		name: "n8n's default mode across a restart",
		mode: DEFAULT_MODE,
		restart: true,
	},
];
const MINUTE = 60_000;
// A bound for a failure, not a wait: a download finished after activation may wait for the second
// poll (one without a state leaves it to the next: durable cursors keep no activation state).
const CYCLE_TIMEOUT_MS = 120_000;

/** A scenario's share of its mode's `n8n start` (sharedN8n). */
interface Lease {
	env: NodeJS.ProcessEnv;
	server: () => Promise<N8nServer>;
	/** Resolves once the other scenarios on that n8n are done (before a restart). */
	alone: () => Promise<void>;
	leave: () => Promise<void>;
}

/**
 * One `n8n start` of one copy of the prepared n8n for the scenarios of a mode that run side by
 * side (a boot costs about 8 s of CPU): started by the first that asks, stopped and its copy
 * removed once the last one left. Each scenario joins as its test starts (test.concurrent starts
 * them all at once), before its first wait.
 */
function sharedN8n(mode: Mode): { join: () => Lease } {
	let folder: ReturnType<typeof copyUserFolder> | undefined;
	let server: Promise<N8nServer> | undefined;
	const present = new Set<Promise<void>>();
	return {
		join() {
			folder ??= copyUserFolder(mode.key);
			const env = { ...folder.env, ...NO_EDITOR, ...mode.env };
			let done = (): void => undefined;
			const left = new Promise<void>((resolve) => (done = resolve));
			present.add(left);
			return {
				env,
				server: () => (server ??= n8n.startN8n({ env, timeoutMs: 180_000 })),
				alone: async () => void (await Promise.all([...present].filter((p) => p !== left))),
				async leave() {
					if (!present.delete(left)) return;
					done();
					if (present.size) return;
					const last = server;
					server = undefined;
					await (await last?.catch(() => undefined))?.stop();
					folder?.remove();
					folder = undefined;
				},
			};
		},
	};
}

/**
 * The scenario's copy of the trigger example with a credential of its own for its service,
 * created and activated on its n8n as the editor does (its own id, its own static data), watching
 * only its own downloads.
 */
async function activateScenarioWorkflow(run: Run): Promise<Json> {
	const { nodes, connections, settings } = pollingEvery10s(workflowFile('trigger-download-ready'));
	const trigger = nodes.find((node: Json) => node.type.endsWith('.websiteExportTrigger'));
	trigger.parameters.options = {
		...trigger.parameters.options,
		jobUrlContains: `mode-${run.scenario.key}-`,
	};
	const name = `e2e: trigger, ${run.scenario.name}`;
	const credential = {
		name: `Website Export (${run.scenario.key})`,
		type: CREDENTIAL_TYPE,
		data: credentialsFor(run.service)[0].data,
	};
	const workflow = { name, nodes, connections, settings };
	const [saved] = await saveActiveWithCredential(run.srv, credential, [workflow]);
	return saved;
}

/** One scenario under way: its own service, its n8n (replaced on a restart), what the trigger emitted. */
interface Run {
	scenario: Scenario;
	service: ServiceProcess;
	lease: Lease;
	workflow: Json;
	srv: N8nServer;
	emitted: Map<string, { status: string; ids: number[] }>;
}
type Setup = Pick<Run, 'scenario' | 'service' | 'lease'>;

const collect = (run: Run) =>
	collectFinishedExecutions(run.srv, run.workflow.id, run.emitted, triggerEmission);

async function waitForEmission(run: Run, download: Json): Promise<void> {
	await n8n.waitFor(
		async () => {
			await collect(run);
			return [...run.emitted.values()].some((x) => x.ids.includes(download.id));
		},
		{
			timeoutMs: CYCLE_TIMEOUT_MS,
			intervalMs: 1000,
			failure: () =>
				new Error(
					`download #${download.id} not emitted within ${CYCLE_TIMEOUT_MS / 1000} s; executions: ${JSON.stringify([...run.emitted])}`,
				),
		},
	);
}

/** A finished job of the scenario and its download, created `ageMs` ago by the service's clock. */
async function finish(run: Run, label: string, ageMs = 0): Promise<Json> {
	const [download] = await insertFinishedDownloads(
		run.service,
		[`mode-${run.scenario.key}-${label}`],
		{
			email: 'modes@e2e.example.com',
			nextFiles: () => 1,
			ageMs,
			jobMs: JOB_MS,
		},
	);
	return download;
}

/**
 * After activation: one download finished while n8n runs, then one more (while n8n is stopped
 * when the scenario restarts it); resolves once both were emitted.
 */
async function emitTwo(run: Run, since: number) {
	await waitForTriggerPoll(
		run.service,
		since,
		90_000,
		'no activation poll of the trigger within 90 s',
	);
	const activatedAt = Date.now();
	// Finished after activation: the poll that finds it may start without the activation's state.
	const first = await finish(run, 'first');
	await waitForEmission(run, first);
	const firstAfter = Date.now() - activatedAt;
	let second: Json;
	if (run.scenario.restart) {
		// The other scenarios on this n8n finish first; the restarted n8n is this scenario's own.
		await run.lease.alone();
		await run.srv.stop();
		second = await finish(run, 'while-down');
		const beforeRestart = await run.service.lastSeq();
		run.srv = await n8n.startN8n({ env: run.lease.env, timeoutMs: 180_000 });
		await waitForTriggerPoll(
			run.service,
			beforeRestart,
			90_000,
			'no poll after the restart within 90 s',
		);
	} else {
		second = await finish(run, 'second');
	}
	await waitForEmission(run, second);
	return { first, second, firstAfter };
}

/**
 * The scenario on its mode's n8n, its workflow activated: a download there before it, older than
 * the look-back of a poll without state (1 min + 10 min), and where the service's log stood.
 */
async function startLive(setup: Setup) {
	const baseline = await finish(setup as Run, 'baseline', 30 * MINUTE);
	const since = await setup.service.lastSeq();
	const srv = await setup.lease.server();
	const live: Run = { ...setup, srv, workflow: {}, emitted: new Map() };
	live.workflow = await activateScenarioWorkflow(live);
	return { baseline, since, live };
}

/**
 * The scenario's end on its n8n: its workflow deactivated on its mode's n8n (which may run on for
 * the other scenarios, and polls nothing after the scenario's service stops), its restarted n8n stopped.
 */
async function endLive(live: Run): Promise<void> {
	if (live.srv !== (await live.lease.server())) await live.srv.stop();
	else if (live.workflow.id)
		await live.srv.rest('POST', `/rest/workflows/${live.workflow.id}/deactivate`, {});
}

/** The scenario from activation on: each new download emitted exactly once, nothing else. */
async function runScenario(setup: Setup): Promise<string> {
	const { baseline, since, live } = await startLive(setup);
	try {
		const { first, second, firstAfter } = await emitTwo(live, since);
		// One more poll cycle, seen by what it emits (no fixed wait): a third download, and
		// nothing that came before again.
		const third = await finish(live, 'third');
		await waitForEmission(live, third);
		await collect(live);
		const executions = [...live.emitted.values()];
		const counts = countIds(executions.map((x) => x.ids));
		assert.ok(
			executions.every((x) => x.status === 'success'),
			`statuses ${executions.map((x) => x.status)}`,
		);
		assertEachOnce(counts, [first, second, third]); // the one there at activation never
		return `#${first.id} (finished after activation) once, ${(firstAfter / 1000).toFixed(0)} s after activation; #${second.id} (${setup.scenario.restart ? 'finished while n8n was stopped' : 'the next one'}) once; #${third.id} (the cycle after) once; #${baseline.id} (there at activation) never; ${executions.length} executions`;
	} finally {
		await endLive(live);
	}
}

/** The slow poll's answers, held back by the service: 25 s in all, two and a half poll intervals. */
const SLOW_DOWNLOADS_MS = 15_000;
const SLOW_JOBS_MS = 10_000;

/**
 * Issue 42 in n8n's default mode (n8n fires each poll from its cron tick without waiting for the
 * one before, all on the same static data): the first poll after activation held at the service
 * (its downloads read after 15 s, its jobs read after 10 s) while a download finishes, so that it
 * ends about 25 s after it started and n8n's next ticks poll meanwhile. That download in exactly
 * one execution, and the next one too.
 */
async function runSlowPoll(setup: Setup): Promise<string> {
	const { baseline, since, live } = await startLive(setup);
	try {
		const activation = await waitForTriggerPoll(setup.service, since, 90_000, 'no activation poll');
		const get = (path: string) => ({ method: 'GET', path });
		await setup.service.fault({ match: get('/rest/v1/downloads'), delayMs: SLOW_DOWNLOADS_MS });
		await setup.service.fault({ match: get('/rest/v1/jobs'), delayMs: SLOW_JOBS_MS });
		const slow = await n8n.waitFor(
			async () =>
				(await setup.service.log()).find(
					(e) => e.seq > activation.seq && isTriggerPoll(e) && e.delayedMs > 0,
				),
			{ timeoutMs: 90_000, intervalMs: 250, failure: () => new Error('no slow poll') },
		);
		// Finished while the slow poll waits: the service reads the rows once the wait is over.
		const during = await finish(live, 'during-slow-poll');
		await waitForEmission(live, during);
		// One more poll cycle, seen by what it emits (no fixed wait).
		const after = await finish(live, 'after');
		await waitForEmission(live, after);
		await collect(live);
		const executions = [...live.emitted.values()];
		assert.ok(
			executions.every((x) => x.status === 'success'),
			`statuses ${executions.map((x) => x.status)}`,
		);
		assertEachOnce(countIds(executions.map((x) => x.ids)), [during, after]);
		const log = await setup.service.log();
		const jobs = log.find((e) => e.seq > slow.seq && e.table === 'jobs' && e.delayedMs > 0);
		const lastedMs = (jobs?.at ?? slow.at) + (jobs?.delayedMs ?? 0) - slow.at;
		assert.ok(lastedMs > POLL_EVERY_MS, `the slow poll lasted ${lastedMs} ms: no overlap`);
		const next = log.find((e) => e.seq > slow.seq && isTriggerPoll(e));
		return `the poll held ${SLOW_DOWNLOADS_MS / 1000} s + ${SLOW_JOBS_MS / 1000} s lasted ${(lastedMs / 1000).toFixed(0)} s; the next poll that asked the service came ${(((next?.at ?? NaN) - slow.at) / 1000).toFixed(0)} s after it; #${during.id} (finished during it) once; #${after.id} (the cycle after) once; #${baseline.id} (there at activation) never; ${executions.length} executions`;
	} finally {
		await endLive(live);
	}
}

// The task scheduler and durable poll cursors are n8n 2.41's; 1.x has neither. The scenarios wait
// for n8n's polls side by side, each mode with its own copy of n8n's database and its own n8n (the
// default mode's: the slow poll and the restart's first part, 5 boots, not 6), each scenario with
// its own fresh service (whose request log tells its trigger's polls).
const modeTest = onN8n1 ? test.skip : test.concurrent;
const SLOW_POLL: Scenario = {
	key: 'slow',
	name: "n8n's default mode, a poll slower than the interval (issue 42)",
	mode: DEFAULT_MODE,
	restart: false,
};

function registerScenarios(): void {
	const scenarios = [
		...SCENARIOS.map((x) => [x, runScenario] as const),
		[SLOW_POLL, runSlowPoll] as const,
	];
	const hosts = new Map(scenarios.map(([x]) => [x.mode, sharedN8n(x.mode)]));
	for (const [scenario, run] of scenarios)
		modeTest(
			`the trigger exactly once (live): ${scenario.name}`,
			async () => {
				const lease = hosts.get(scenario.mode)!.join();
				try {
					const service = await startServiceProcess({ jobMs: JOB_MS });
					try {
						report(
							await run({ scenario, service, lease }),
							`the trigger exactly once (live): ${scenario.name}`,
						);
					} finally {
						await service.stop();
					}
				} finally {
					await lease.leave();
				}
			},
			10 * 60_000,
		);
}
registerScenarios();
