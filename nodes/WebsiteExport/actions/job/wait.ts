// Why: Job → Create's Wait for Completion: polls a run's jobs at once until each ends or times out.
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import { z } from 'zod';

import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { validate } from '../../../shared/validation';
import type { Table } from '../../../shared/constants';
import { parseTimestamp } from '../../../shared/timestamps';
import { readValues } from '../groups';
import type { ItemTask, RunSettings } from '../types';
import type { JobRecord } from './fields';

const whileWaiting = { show: { waitForCompletion: [true] } };

export const waitProperties: INodeProperties[] = [
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait until the export has finished or failed, and output the job with its download link',
		hint: 'The jobs of one request are created, then waited for together, before the next request is sent',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		default: 600,
		typeOptions: { minValue: 1, maxValue: 86400 },
		description: 'How long to wait at most for the export to finish',
		hint: 'Then the item fails with the job ID; the export goes on and Get can fetch it later',
		displayOptions: whileWaiting,
	},
	{
		displayName: 'Check Every (Seconds)',
		name: 'pollInterval',
		type: 'number',
		default: 5,
		typeOptions: { minValue: 1 },
		description: "How often to ask the service for the job's status while waiting",
		displayOptions: whileWaiting,
	},
];

export interface WaitSettings {
	timeoutSeconds: number;
	intervalSeconds: number;
}

/** From 1 s to 24 h, checked after what `seconds` checks first. */
const upToADay = (seconds: z.ZodNumber) =>
	seconds.min(1, 'must be at least 1').max(86400, 'must be at most 86400 (24 hours)');
const waitSchema = z.object({
	timeoutSeconds: upToADay(z.number().int('must be a whole number')),
	intervalSeconds: upToADay(z.number()),
});

/** The wait settings of one item, or undefined when Wait for Completion is off. */
export function readWait(this: IExecuteFunctions, itemIndex: number): WaitSettings | undefined {
	if (!this.getNodeParameter('waitForCompletion', itemIndex, false)) return undefined;
	const values = {
		timeoutSeconds: this.getNodeParameter('timeout', itemIndex, 600),
		intervalSeconds: this.getNodeParameter('pollInterval', itemIndex, 5),
	};
	const labels = { timeoutSeconds: 'Timeout (Seconds)', intervalSeconds: 'Check Every (Seconds)' };
	return validate(this, waitSchema, values, itemIndex, labels);
}

/** Out of time: the job goes on, and the error tells how to fetch it later. */
function timedOut(
	context: IExecuteFunctions,
	{ id, status }: JobRecord,
	wait: WaitSettings,
	itemIndex: number,
): NodeOperationError {
	const state =
		status === 'finished' ? 'finished, but its download link is not there yet,' : `still ${status}`;
	const message = `Job ${id} is ${state} after ${wait.timeoutSeconds} s`;
	const description =
		'The export goes on without the node. ' +
		`Use Job → Get with ID ${id}, or Download → Get Many with Job ID ${id}, ` +
		'later to fetch it, or raise Timeout (Seconds).';
	return new NodeOperationError(context.getNode(), message, { itemIndex, description });
}

/** The service's verdict that the export failed. */
function exportFailed(context: IExecuteFunctions, job: JobRecord, itemIndex: number): NodeApiError {
	const answer = { message: 'failed', job_id: job.id, status: job.status } as JsonObject;
	return new NodeApiError(context.getNode(), answer, {
		message: `The export of job ${job.id} failed`,
		description:
			`The service could not export ${job.url}. ` +
			'Check that the address is public and reachable, then create a new job.',
		itemIndex,
	});
}

/**
 * The jobs waited for together, as each check leaves them: the newest row of each, and each result
 * once settled.
 */
interface JobsWait {
	tasks: Array<ItemTask<unknown>>;
	jobs: JobRecord[];
	results: Array<IDataObject | Error | undefined>;
	settings: RunSettings;
}

/**
 * The jobs still waited for: all those unsettled; without Continue On Fail only those before the
 * first failed one (the items after it stop there, as one by one).
 */
function stillWaiting({ tasks, results, settings }: JobsWait): number[] {
	const failed = results.findIndex((result) => result instanceof Error);
	const end = settings.continueOnFail || failed < 0 ? tasks.length : failed;
	return tasks.map((_, index) => index).filter((index) => index < end && !results[index]);
}

/**
 * The rows of `table` whose `column` is the job ID of each of `indexes`,
 * read in groups (groups.ts).
 */
async function readFor(wait: JobsWait, table: Table, column: string, indexes: number[]) {
	const wanted = indexes.map((index) => ({
		column,
		value: wait.jobs[index].id,
		itemIndex: wait.tasks[index].itemIndex,
	}));
	return await readValues(wait.tasks[0].client, table, wanted, wait.settings);
}

/**
 * One check: the jobs still waiting read again (after the first), the downloads of those finished.
 */
async function checkJobs(wait: JobsWait, first: boolean): Promise<void> {
	const { jobs, results } = wait;
	if (!first) {
		const indexes = stillWaiting(wait);
		(await readFor(wait, 'jobs', 'id', indexes)).forEach((rows, position) => {
			if (rows instanceof Error) results[indexes[position]] = rows;
			else if (rows[0]) jobs[indexes[position]] = rows[0] as JobRecord;
		});
	}
	const finished = stillWaiting(wait).filter((index) => jobs[index].status === 'finished');
	const downloads = finished.length ? await readFor(wait, 'downloads', 'job_id', finished) : [];
	const serviceNow = wait.tasks[0].client.serviceNow();
	finished.forEach((index, position) => {
		const rows = downloads[position];
		if (rows instanceof Error) results[index] = rows;
		else if (rows.length > 0)
			results[index] = { ...jobs[index], download: withExpiry(newest(rows), serviceNow) };
	});
}

/**
 * Waits for jobs together: per check, one read per group of the jobs still waiting and one of
 * the downloads of those finished, each job bounded by its own timeout; the shortest Check Every
 * of the jobs still waiting paces the checks. Jobs no longer waited for (after a failed one,
 * without Continue On Fail) are left `undefined`.
 */
export async function waitForJobs(
	this: IExecuteFunctions,
	tasks: Array<ItemTask<unknown>>,
	created: JobRecord[],
	waits: WaitSettings[],
	settings: RunSettings,
): Promise<Array<IDataObject | Error | undefined>> {
	const deadlines = waits.map(({ timeoutSeconds }) => Date.now() + timeoutSeconds * 1000);
	const signal = this.getExecutionCancelSignal?.();
	const wait: JobsWait = { tasks, jobs: [...created], results: new Array(tasks.length), settings };
	const { jobs, results } = wait;
	for (let first = true; stillWaiting(wait).length > 0; first = false) {
		await checkJobs(wait, first);
		for (const index of stillWaiting(wait)) {
			const { itemIndex } = tasks[index];
			if (jobs[index].status === 'failed')
				results[index] = exportFailed(this, jobs[index], itemIndex);
			else if (Date.now() >= deadlines[index])
				results[index] = timedOut(this, jobs[index], waits[index], itemIndex);
		}
		const left = stillWaiting(wait);
		if (left.length === 0) break;
		const until = (index: number) =>
			Math.min(waits[index].intervalSeconds * 1000, deadlines[index] - Date.now());
		await sleep(Math.max(0, Math.min(...left.map(until))), signal);
		// n8n 2.x's sleep rejects on abort; n8n 1.x's takes no signal and resolves:
		// this stops the loop there.
		if (signal?.aborted)
			throw new NodeOperationError(
				this.getNode(),
				'Stopped waiting for the jobs: the execution was cancelled',
			);
	}
	return results;
}

/** The newest of a job's download rows. */
const newest = (rows: IDataObject[]) =>
	rows.reduce((a, b) =>
		parseTimestamp(b.created_at) > parseTimestamp(a.created_at) ||
		(parseTimestamp(b.created_at) === parseTimestamp(a.created_at) && Number(b.id) > Number(a.id))
			? b
			: a,
	) as DownloadRecord;
