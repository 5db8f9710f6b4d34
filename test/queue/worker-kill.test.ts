/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: a queue-mode worker SIGKILLed while it runs Wait-for-Completion executions must not make the
// pack create a job twice; on a cluster of its own (cluster.ts), so that no other test runs on the
// cluster it leaves one worker short.
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import { report, seconds, type Json } from '../e2e/suite';
import {
	CREATE,
	JOB_MS,
	WAIT,
	countBy,
	fire,
	useCluster,
	waitExecutions,
	webhookWorkflow,
} from './cluster';

const KILL_RUNS = 10;
const EMAIL = 'queue-d@e2e.example.com';
const kill = webhookWorkflow(
	'wexQueueKill0001',
	'Queue: webhook → create a job and wait (a worker is killed meanwhile)',
	'wex-queue-kill',
	[{ name: 'Create And Wait', parameters: { ...CREATE, ...WAIT } }],
);
const q = useCluster([kill]);

/** Resolves once every run the workers started has created its job (each creates it first). */
async function untilEveryRunCreatedItsJob(jobsOfRuns: () => Promise<Json[]>) {
	await n8n.waitFor(
		async () => {
			const runs = q.cluster.workers.flatMap((w: Json) => w.started());
			return (await jobsOfRuns()).length >= runs.length;
		},
		{ timeoutMs: 30_000, intervalMs: 50, failure: () => new Error('the runs created no jobs') },
	);
}

test(`a worker SIGKILLed during ${KILL_RUNS} Wait-for-Completion runs: no job doubled`, async () => {
	const { cluster, service } = q;
	const victim = cluster.workers[cluster.workers.length - 1];
	const jobsOfRuns = async () => (await service.rows('jobs')).filter((j) => j.email === EMAIL);
	const urls = Array.from({ length: KILL_RUNS }, (_, i) => `https://d-${i}.queue.e2e.example.com/`);
	await Promise.all(urls.map((url) => fire(cluster, kill, { url, email: EMAIL })));
	await n8n.waitFor(() => victim.started().length > 0, {
		timeoutMs: 30_000,
		intervalMs: 50,
		failure: () => new Error(`worker ${victim.index} started none of the runs`),
	});
	// Kill the worker while its runs wait for their jobs to finish (JOB_MS).
	await untilEveryRunCreatedItsJob(jobsOfRuns);
	const held: string[] = victim.started();
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
