// Why: Job → Create: starts an export, optionally with its option, optionally waiting for its end.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { InsertRequest } from '../../../shared/transport';
import { errorForItem } from '../../../shared/itemError';
import { validate } from '../../../shared/validation';
import { createInGroups, groupedExecute, resultsAfterFailure, stopAtFailure } from '../groups';
import { optionInsert } from '../option/create.operation';
import {
	MODE_LABELS,
	MODE_OPTIONS,
	modeFields,
	modeProperties,
	readModeFields,
} from '../option/mode';
import { shownFor } from '../resourceDescription';
import type { ItemResult, ItemTask, RunSettings } from '../types';
import { JOB_LABELS, jobFields, type JobRecord } from './fields';
import { readWait, waitForJobs, waitProperties, type WaitSettings } from './wait';

// The option's Mode field becomes "Export Option", with None (no option) first.
const [modeProperty, ...modeDependents] = modeProperties('option');

const properties: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com',
		description: 'Address of the website to download',
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'name@email.com',
		description: 'Address that receives the download link',
	},
	{
		...modeProperty,
		displayName: 'Export Option',
		options: [
			{ name: 'None', value: 'none', description: 'Create the job without an option' },
			...MODE_OPTIONS,
		],
		default: 'none',
		description:
			'Creates an export option for the job in the same step: how links inside the exported site are treated',
	},
	...modeDependents,
	...waitProperties,
];

export const description = shownFor('job', 'create', properties);

/** The export option of one item, or undefined for None. */
function readOption(this: IExecuteFunctions, itemIndex: number): IDataObject | undefined {
	const mode = this.getNodeParameter('optionMode', itemIndex, 'none') as string;
	if (mode === 'none') return undefined;
	return validate(this, modeFields, readModeFields.call(this, itemIndex, 'option'), itemIndex, {
		...MODE_LABELS,
		mode: 'Export Option',
	});
}

interface CreateInput {
	body: IDataObject;
	option?: IDataObject;
	wait?: WaitSettings;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): CreateInput {
	const body = validate(
		this,
		jobFields,
		{
			url: this.getNodeParameter('url', itemIndex, ''),
			email: this.getNodeParameter('email', itemIndex, ''),
		},
		itemIndex,
		JOB_LABELS,
	);
	return { body, option: readOption.call(this, itemIndex), wait: readWait.call(this, itemIndex) };
}

/** How a job is sent, with how messages name it and where to look for it if its answer was lost. */
const jobInsert = ({ input, itemIndex }: ItemTask<CreateInput>): InsertRequest => ({
	body: input.body,
	options: {
		itemIndex,
		noun: 'job',
		findHint:
			`Job → Get Many with the filters URL "${String(input.body.url)}"` +
			` and Email "${String(input.body.email)}"`,
	},
});

/**
 * Group after group (Items per Request; One Request per Item: item after item): the group's jobs
 * in one POST, then their export options in one POST, then the jobs of the items that wait,
 * waited for together. Without Continue On Fail the run stops at the group of the first failed
 * item, and what was created for the items after it in that group is deleted again.
 */
export const execute = groupedExecute(true, createGroup);

/** One group's jobs, options and waits (see execute). */
async function createGroup(
	this: IExecuteFunctions,
	tasks: Array<ItemTask<CreateInput>>,
	settings: RunSettings,
): Promise<ItemResult[]> {
	const jobs = await createInGroups(tasks, 'jobs', jobInsert, settings);
	const created = await addOptions.call(this, tasks, jobs, settings);
	const waits = tasks
		.map((task, index) => ({ task, index, result: created[index] }))
		.filter(({ task, result }) => task.input.wait && Array.isArray(result));
	const finished = [...created];
	if (waits.length > 0) {
		const waited = await waitForJobs.call(
			this,
			waits.map(({ task }) => task),
			waits.map(({ result }) => recordOf(result)),
			waits.map(({ task }) => task.input.wait as WaitSettings),
			settings,
		);
		waits.forEach(({ index, result }, position) => {
			const done = waited[position];
			// A job found after its create's answer was lost stays marked so once waited for.
			const { option, recovered } = recordOf(result);
			finished[index] =
				done &&
				(done instanceof Error
					? done
					: [{ json: withOption(recovered ? { ...done, recovered } : done, option) }]);
		});
	}
	if (settings.continueOnFail) return finished;
	return await undoAfterFailure(tasks, finished, { jobs, options: created });
}

const recordOf = (result: ItemResult) => (result as INodeExecutionData[])[0].json as JobRecord;

/** The job with the option created for it, as the item shows them. */
const withOption = (job: IDataObject, option: unknown): IDataObject =>
	option ? { ...job, option } : job;

/** The export options of the items whose job was created, in one POST per group. */
async function addOptions(
	this: IExecuteFunctions,
	tasks: Array<ItemTask<CreateInput>>,
	jobs: ItemResult[],
	settings: RunSettings,
): Promise<ItemResult[]> {
	const pending = tasks.flatMap((task, index) =>
		task.input.option && Array.isArray(jobs[index]) ? [index] : [],
	);
	if (pending.length === 0) return jobs;
	const optionTasks = pending.map((index) => ({
		...tasks[index],
		input: { ...tasks[index].input.option, job_id: recordOf(jobs[index]).id },
	}));
	const options = await createInGroups(optionTasks, 'options', optionInsert, settings);
	const results = [...jobs];
	pending.forEach((index, position) => {
		const option = options[position];
		const job = recordOf(jobs[index]);
		// The job itself exists: the item's error says so, so that the item is not simply run again.
		const note =
			`The job itself was created (ID ${job.id}): rather than running this item again, ` +
			`add the option with Option → Create and Job ID ${job.id}.`;
		results[index] =
			option instanceof Error
				? errorForItem(this.getNode(), option, tasks[index].itemIndex, { note })
				: option && [{ json: withOption(job, option[0].json) }];
	});
	return results;
}

/**
 * Without Continue On Fail: the run stops at the first failed item (stopAtFailure), and the jobs
 * its group created for the items after it are deleted again, with the options sent for them. A
 * job a lookup found may be another client's: it is left, and only the options the node knows it
 * created for it are deleted (by their ids, never by the job's).
 */
async function undoAfterFailure(
	tasks: Array<ItemTask<CreateInput>>,
	results: ItemResult[],
	created: { jobs: ItemResult[]; options: ItemResult[] },
): Promise<ItemResult[]> {
	return await stopAtFailure(tasks, results, (failed) => {
		const { ids, recovered, failedItems } = resultsAfterFailure(tasks, created.jobs, failed);
		const optionsOf: number[] = [];
		const options: number[] = [];
		const found = recovered.map((id) => `job ${id}`);
		tasks.forEach(({ input }, index) => {
			const option = created.options[index];
			if (index <= failed || !input.option || !Array.isArray(created.jobs[index]) || !option)
				return;
			const job = recordOf(created.jobs[index]);
			if (!job.recovered) optionsOf.push(job.id);
			else if (option instanceof Error) found.push(`any option of job ${job.id}`);
			else {
				const { id, recovered: lookedUp } = recordOf(option).option as IDataObject;
				if (lookedUp) found.push(`option ${String(id)}`);
				else options.push(id as number);
			}
		});
		return {
			jobs: ids,
			options,
			optionsOf,
			found,
			unread: { table: 'jobs', itemIndexes: failedItems },
		};
	});
}
