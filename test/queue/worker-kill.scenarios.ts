/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: a queue-mode worker SIGKILLed while it runs Wait-for-Completion executions must not make the
// pack create a job twice. Registered by queue.test.ts last, on its cluster (a cluster costs
// three n8n start-ups, about 30 s of CPU): no test runs after it on a cluster a worker short.
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import { report, seconds, type Json } from '../e2e/suite';
import {
	CREATE,
	JOB_MS,
	WAIT,
	countBy,
	dbExecutions,
	fire,
	waitExecutions,
	webhookWorkflow,
	type useCluster,
} from './cluster';

const KILL_RUNS = 10;
const EMAIL = 'queue-d@e2e.example.com';
export const kill = webhookWorkflow(
	'wexQueueKill0001',
	'Queue: webhook → create a job and wait (a worker is killed meanwhile)',
	'wex-queue-kill',
	[{ name: 'Create And Wait', parameters: { ...CREATE, ...WAIT } }],
);
type Queue = ReturnType<typeof useCluster>;

/** The executions of `kill` a worker started (its log names every execution it started). */
async function killRunsStarted(q: Queue, worker: Json): Promise<string[]> {
	const ofKill = new Set((await dbExecutions(q.cluster, kill.id)).map((e) => e.id));
	return worker.started().filter((id: string) => ofKill.has(id));
}

/** Resolves once every run of `kill` the workers started has created its job (each does it first). */
async function untilEveryRunCreatedItsJob(q: Queue, jobsOfRuns: () => Promise<Json[]>) {
	await n8n.waitFor(
		async () => {
			const started = await Promise.all(q.cluster.workers.map((w) => killRunsStarted(q, w)));
			return (await jobsOfRuns()).length >= started.flat().length;
		},
		{ timeoutMs: 30_000, intervalMs: 50, failure: () => new Error('the runs created no jobs') },
	);
}

/** The test, on `q`'s cluster (its workflows include `kill`). */
export function workerKill(q: Queue): void {
	test(`a worker SIGKILLed during ${KILL_RUNS} Wait-for-Completion runs: no job doubled`, async () => {
		const { cluster, service } = q;
		const victim = cluster.workers[cluster.workers.length - 1];
		const jobsOfRuns = async () => (await service.rows('jobs')).filter((j) => j.email === EMAIL);
		const urls = Array.from(
			{ length: KILL_RUNS },
			(_, i) => `https://d-${i}.queue.e2e.example.com/`,
		);
		await Promise.all(urls.map((url) => fire(cluster, kill, { url, email: EMAIL })));
		await n8n.waitFor(async () => (await killRunsStarted(q, victim)).length > 0, {
			timeoutMs: 30_000,
			intervalMs: 50,
			failure: () => new Error(`worker ${victim.index} started none of the runs`),
		});
		// Kill the worker while its runs wait for their jobs to finish (JOB_MS).
		await untilEveryRunCreatedItsJob(q, jobsOfRuns);
		const held = await killRunsStarted(q, victim);
		const killedAt = Date.now();
		victim.kill('SIGKILL');
		await victim.whenExited;
		const all = await waitExecutions(cluster, kill.id, KILL_RUNS, 120_000);
		const settledMs = Date.now() - killedAt;
		// A quiet time for a negative (no create arrives late), not a wait for an event.
		await n8n.sleep(JOB_MS + 1000);
		const jobs = await jobsOfRuns();
		assert.deepEqual(
			Object.entries(countBy(jobs, (j) => j.url)).filter(([, c]) => c > 1),
			[],
			'jobs created twice',
		);
		assert.ok(jobs.length <= KILL_RUNS, `jobs ${jobs.length}`);
		const status = (mine: boolean) =>
			JSON.stringify(
				countBy(
					all.filter((e) => held.includes(e.id) === mine),
					(e) => e.status,
				),
			);
		report(
			`worker ${victim.index} held ${held.length} execution(s) when killed: n8n reports ${status(true)} ${seconds(settledMs)} after the kill; the others ${status(false)}; ${jobs.length} jobs for ${KILL_RUNS} runs, none twice`,
		);
	});
}
