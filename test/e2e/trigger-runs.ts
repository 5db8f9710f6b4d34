/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: what the live trigger scenarios share: finished downloads put into the service, the wait
// for a poll of the trigger, and the finished executions of a workflow read from n8n's REST API.
import assert from 'node:assert/strict';

import { nodeItems, waitFor } from '../../stack/n8n/lib';
import type { LogEntry } from '../../stack/service/types';
import type { ServiceProcess } from '../../stack/service/launch';
import { iso, type Json } from './suite';

/** The part of a running `n8n start` (stack/n8n/server.js) that lists executions. */
export interface ExecutionSource {
	executions(filter: { workflowId: string }): Promise<Json[]>;
	execution(id: string): Promise<Json>;
}

/** How often the live scenarios' trigger polls: every 10 s (n8n's Every Minute would wait a minute per cycle). */
export const POLL_EVERY_MS = 10_000;

/**
 * `workflow` (a copy of a workflow file) with its trigger polling every 10 s: six Poll Times
 * entries in n8n's Custom mode, `0 * * * * *`, `10 * * * * *`, …, each once a minute. n8n refuses a
 * seconds field other than a single number (2.x: isSubMinuteCron; 1.x: one with `*`), not a list
 * of entries; each still polls once a minute, so the node's look-back is Every Minute's.
 */
export function pollingEvery10s(workflow: Json): Json {
	const item = Array.from({ length: 60_000 / POLL_EVERY_MS }, (_, i) => ({
		mode: 'custom',
		cronExpression: `${(i * POLL_EVERY_MS) / 1000} * * * * *`,
	}));
	const nodes = workflow.nodes.map((node: Json) =>
		node.type.endsWith('.websiteExportTrigger')
			? { ...node, parameters: { ...node.parameters, pollTimes: { item } } }
			: node,
	);
	return { ...workflow, nodes };
}

/** Whether a request-log entry is a trigger poll: downloads in ascending (created_at, id) order — no operation asks for that. */
export const isTriggerPoll = (e: LogEntry): boolean =>
	e.kind === 'rest' &&
	e.table === 'downloads' &&
	e.method === 'GET' &&
	new URLSearchParams(e.query).get('order') === 'created_at.asc,id.asc';

/**
 * One finished job and its download per label (`https://<label>.trigger.e2e.example.com/`), each
 * table in one statement; the downloads created `ageMs` before the service's now, their jobs
 * `jobMs` before that; `nextFiles` tells the jobs apart. Resolves to the stored download rows.
 */
export async function insertFinishedDownloads(
	service: ServiceProcess,
	labels: string[],
	options: { email: string; nextFiles: () => number; ageMs?: number; jobMs: number },
): Promise<Json[]> {
	const now = (await service.now()) - (options.ageMs ?? 0);
	const jobs = await service.insert(
		'jobs',
		labels.map((label) => ({
			url: `https://${label}.trigger.e2e.example.com/`,
			email: options.email,
			status: 'finished',
			files: options.nextFiles(),
			created_at: iso(now - options.jobMs),
		})),
	);
	return service.insert(
		'downloads',
		jobs.map((job) => ({ job_id: job.id, created_at: iso(now) })),
	);
}

/** The first trigger poll the service logged after the request `since`; throws `failure` after `timeoutMs`. */
export async function waitForTriggerPoll(
	service: ServiceProcess,
	since: number,
	timeoutMs: number,
	failure: string,
): Promise<LogEntry> {
	return waitFor(async () => (await service.log()).find((e) => e.seq > since && isTriggerPoll(e)), {
		timeoutMs,
		intervalMs: 250,
		failure: () => new Error(failure),
	});
}

/** Adds the workflow's finished executions that `seen` does not hold yet, each as `describe(execution, id)`. */
export async function collectFinishedExecutions<T>(
	srv: ExecutionSource,
	workflowId: string,
	seen: Map<string, T>,
	describe: (execution: Json, id: string) => T,
): Promise<void> {
	for (const e of await srv.executions({ workflowId })) {
		if (seen.has(e.id) || ['new', 'running', 'waiting'].includes(e.status)) continue;
		seen.set(e.id, describe(await srv.execution(e.id), e.id));
	}
}

/** A finished execution of a trigger workflow: its status and the ids of the downloads it emitted. */
export const triggerEmission = (execution: Json): { status: string; ids: number[] } => ({
	status: execution.status,
	ids: (nodeItems(execution, 'Website Export Trigger') || []).map((json: Json) => json.id),
});

/** How often each id occurs in the lists. */
export function countIds(idLists: Iterable<number[]>): Map<number, number> {
	const counts = new Map<number, number>();
	for (const ids of idLists) for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
	return counts;
}

/** Each of the rows emitted exactly once (`counts`: how often each id was), and nothing else. */
export function assertEachOnce(counts: Map<number, number>, rows: Json[]): void {
	const twice = [...counts].filter(([, c]) => c > 1);
	assert.deepEqual(twice, [], 'downloads emitted more than once');
	const ids = (list: number[]) => list.sort((a, b) => a - b);
	assert.deepEqual(ids([...counts.keys()]), ids(rows.map((d) => d.id)), 'exactly these downloads');
}
