// Why: Wait for Completion of Job → Create: polls the job until it finishes, fails or the wait runs out.
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import { z } from 'zod';

import { withExpiry, type DownloadRecord } from '../../../shared/downloads';
import { NEWEST_FIRST } from '../../../shared/transport';
import { validate } from '../../../shared/validation';
import { fetchOne } from '../selectedRecord';
import type { ItemRun } from '../types';
import type { JobRecord } from './fields';

export const waitProperties: INodeProperties[] = [
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait until the export has finished or failed, and output the job with its download link',
		hint: 'Items wait one after another unless Options → Requests in Flight runs more at once',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 86400 },
		default: 600,
		description: 'How long to wait at most for the export to finish',
		hint: 'Then the item fails with the job ID; the export goes on and Get can fetch it later',
		displayOptions: { show: { waitForCompletion: [true] } },
	},
	{
		displayName: 'Check Every (Seconds)',
		name: 'pollInterval',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5,
		description: "How often to ask the service for the job's status while waiting",
		displayOptions: { show: { waitForCompletion: [true] } },
	},
];

export interface WaitSettings {
	timeoutSeconds: number;
	intervalSeconds: number;
}

const waitSchema = z.object({
	timeoutSeconds: z
		.number()
		.int('must be a whole number')
		.min(1, 'must be at least 1')
		.max(86400, 'must be at most 86400 (24 hours)'),
	intervalSeconds: z
		.number()
		.min(1, 'must be at least 1')
		.max(86400, 'must be at most 86400 (24 hours)'),
});

/** The wait settings of one item, or undefined when Wait for Completion is off. */
export function readWait(this: IExecuteFunctions, itemIndex: number): WaitSettings | undefined {
	if (!this.getNodeParameter('waitForCompletion', itemIndex, false)) return undefined;
	return validate(
		this,
		waitSchema,
		{
			timeoutSeconds: this.getNodeParameter('timeout', itemIndex, 600),
			intervalSeconds: this.getNodeParameter('pollInterval', itemIndex, 5),
		},
		itemIndex,
		{ timeoutSeconds: 'Timeout (Seconds)', intervalSeconds: 'Check Every (Seconds)' },
	);
}

/**
 * Polls the job until it is finished or failed, then returns it with its download. The service
 * may write the download row a moment after the job turns finished: the node waits for it too,
 * within the same timeout. A failed export is a NodeApiError (the service's verdict); running
 * out of time is a NodeOperationError that tells how to pick the job up later.
 */
export async function waitForJob(
	this: IExecuteFunctions,
	run: ItemRun<unknown>,
	created: JobRecord,
	settings: WaitSettings,
): Promise<IDataObject> {
	const { client, itemIndex } = run;
	const id = created.id;
	const selection = {
		filters: [{ column: 'id', operator: 'eq' as const, value: id }],
		label: `job with ID ${id}`,
		byId: true,
	};
	const deadline = Date.now() + settings.timeoutSeconds * 1000;
	const signal = this.getExecutionCancelSignal?.();
	let job = created;
	let download: DownloadRecord | undefined;
	for (let checked = false; ; checked = true) {
		if (checked) {
			job = (await fetchOne.call(this, run, 'jobs', selection)) as JobRecord;
		}
		if (job.status === 'failed') break;
		if (job.status === 'finished') {
			download = await latestDownload(run, id);
			if (download) break;
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) throw timedOut(this, job, settings, itemIndex);
		await sleep(Math.min(settings.intervalSeconds * 1000, remaining), signal);
		// n8n 2.x's sleep rejects on abort; n8n 1.x's takes no signal and resolves: this stops the loop there.
		if (signal?.aborted)
			throw new NodeOperationError(
				this.getNode(),
				`Stopped waiting for job ${id}: the execution was cancelled`,
				{ itemIndex },
			);
	}

	if (job.status === 'failed') throw exportFailed(this, job, itemIndex);
	return { ...job, download: withExpiry(download as DownloadRecord, client.serviceNow()) };
}

/** Out of time: the job goes on, and the error tells how to fetch it later. */
function timedOut(
	context: IExecuteFunctions,
	job: JobRecord,
	settings: WaitSettings,
	itemIndex: number,
): NodeOperationError {
	const { id } = job;
	const state =
		job.status === 'finished'
			? 'finished, but its download link is not there yet,'
			: `still ${job.status}`;
	return new NodeOperationError(
		context.getNode(),
		`Job ${id} is ${state} after ${settings.timeoutSeconds} s`,
		{
			itemIndex,
			description: `The export goes on without the node. Use Job → Get with ID ${id}, or Download → Get Many with Job ID ${id}, later to fetch it, or raise Timeout (Seconds).`,
		},
	);
}

/** The service's verdict that the export failed. */
function exportFailed(context: IExecuteFunctions, job: JobRecord, itemIndex: number): NodeApiError {
	return new NodeApiError(
		context.getNode(),
		{ message: 'failed', job_id: job.id, status: job.status } as JsonObject,
		{
			message: `The export of job ${job.id} failed`,
			description: `The service could not export ${job.url}. Check that the address is public and reachable, then create a new job.`,
			itemIndex,
		},
	);
}

/** The newest download row of a job, if the service has written one. */
async function latestDownload(
	{ client, itemIndex }: ItemRun<unknown>,
	jobId: number,
): Promise<DownloadRecord | undefined> {
	const page = await client.select<DownloadRecord>(
		'downloads',
		{
			filters: [{ column: 'job_id', operator: 'eq', value: jobId }],
			order: NEWEST_FIRST,
			limit: 1,
		},
		{ itemIndex },
	);
	return page.rows[0];
}
