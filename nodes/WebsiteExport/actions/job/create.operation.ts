// Why: Job → Create: starts an export, optionally with its option, and optionally waits for it to finish.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { validate } from '../../../shared/validation';
import { MODE_LABELS, MODE_OPTIONS, modeFields, modeProperties } from '../option/mode';
import { shownFor } from '../resourceDescription';
import { createInChunks, idChunks } from '../batching';
import type { BatchOptions, ItemResult, ItemRun } from '../types';
import { JOB_LABELS, jobFields, type JobRecord } from './fields';
import { optionLookup } from '../option/create.operation';
import { readWait, waitForJob, waitForJobs, waitProperties, type WaitSettings } from './wait';
import type { WebsiteExportClient } from '../../../shared/transport';

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

/** Writes go one item after another unless the user asks for more (router). */
export const writes = true;

export const description = shownFor('job', 'create', properties);

/** The export option of one item, or undefined for None. */
function readOption(this: IExecuteFunctions, itemIndex: number): IDataObject | undefined {
	const mode = this.getNodeParameter('optionMode', itemIndex, 'none') as string;
	if (mode === 'none') return undefined;
	return validate(
		this,
		modeFields,
		{
			mode,
			relative_path:
				mode === 'relative'
					? this.getNodeParameter('optionRelativePath', itemIndex, '')
					: undefined,
			replace_url:
				mode === 'absolute' ? this.getNodeParameter('optionReplaceUrl', itemIndex, '') : undefined,
		},
		itemIndex,
		{ ...MODE_LABELS, mode: 'Export Option' },
	);
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

/** How messages name a job being created, and where to look for it if its answer was lost. */
const jobLookup = ({ url, email }: IDataObject, itemIndex: number) => ({
	itemIndex,
	noun: 'job',
	findHint: `Job → Get Many with the filters URL "${String(url)}" and Email "${String(email)}"`,
});

/**
 * Every item's job in one POST per chunk, then their export options in one POST per chunk
 * (batching.ts), then, for those that wait, all jobs waited for together (wait.ts).
 */
export async function batch(
	this: IExecuteFunctions,
	runs: Array<ItemRun<CreateInput>>,
	how: BatchOptions,
): Promise<ItemResult[]> {
	const insertOf = ({ input, itemIndex }: ItemRun<CreateInput>) => ({
		body: input.body,
		options: jobLookup(input.body, itemIndex),
	});
	const jobs = await createInChunks(runs, 'jobs', insertOf, how);
	const created = await addOptions.call(this, runs, jobs, how);
	const waits = runs
		.map((run, index) => ({ run, index, result: created[index] }))
		.filter(({ run, result }) => run.input.wait && Array.isArray(result));
	if (waits.length === 0) return created;
	const waited = await waitForJobs.call(
		this,
		waits.map(({ run }) => run),
		waits.map(({ result }) => (result as INodeExecutionData[])[0].json as JobRecord),
		waits.map(({ run }) => run.input.wait as WaitSettings),
		how.inFlight,
	);
	waits.forEach(({ index, result }, place) => {
		const done = waited[place];
		const { option } = (result as INodeExecutionData[])[0].json;
		created[index] = done instanceof Error ? done : [{ json: withOption(done, option) }];
	});
	return created;
}

/** The job with the option created for it, as the item shows them. */
const withOption = (job: IDataObject, option: unknown): IDataObject =>
	option ? { ...job, option } : job;

/**
 * The export options of the items whose job was created, in one POST per chunk. Without Continue
 * On Fail, an option refused stops the run at its item, as one by one: the jobs created for the
 * items after it are deleted again, so that nothing after the failing item remains.
 */
async function addOptions(
	this: IExecuteFunctions,
	runs: Array<ItemRun<CreateInput>>,
	jobs: ItemResult[],
	how: BatchOptions,
): Promise<ItemResult[]> {
	const jobOf = (index: number) => (jobs[index] as INodeExecutionData[])[0].json as JobRecord;
	const pending = runs.flatMap((run, index) =>
		run.input.option && Array.isArray(jobs[index]) ? [index] : [],
	);
	if (pending.length === 0) return jobs;
	const optionRuns = pending.map((index) => ({
		...runs[index],
		input: { ...runs[index].input.option, job_id: jobOf(index).id },
	}));
	const options = await createInChunks(optionRuns, 'options', optionInsert, how);
	const results = [...jobs];
	pending.forEach((index, place) => {
		const option = options[place];
		results[index] =
			option instanceof Error
				? jobCreatedNote(this, option, jobOf(index), runs[index].itemIndex)
				: option && [{ json: withOption(jobOf(index), option[0].json) }];
	});
	const failed = results.findIndex((result) => result instanceof Error);
	if (how.continueOnFail || failed < 0) return results;
	const after = jobs.slice(failed + 1).flatMap((job, offset) => {
		results[failed + 1 + offset] = undefined;
		return Array.isArray(job) ? [jobOf(failed + 1 + offset).id] : [];
	});
	results[failed] = await undoJobs(runs[0].client, results[failed] as Error, after);
	return results;
}

/** The jobs created for the items after a failed one, deleted again; the failure says which. */
async function undoJobs(client: WebsiteExportClient, failure: Error, ids: number[]) {
	if (ids.length === 0) return failure;
	const deleted: number[] = [];
	for (const chunk of idChunks(client, 'jobs', ids))
		deleted.push(...(await client.removeByIds('jobs', chunk).catch(() => [])));
	const left = ids.filter((id) => !deleted.includes(id));
	addDescription(
		failure,
		left.length === 0
			? `The jobs created together for the items after it (IDs ${ids.join(', ')}) were deleted again.`
			: `The jobs created together for the items after it could not all be deleted again: delete jobs ${left.join(', ')} with Job → Delete.`,
	);
	return failure;
}

/** How a create of an item's export option is sent (batching.ts). */
const optionInsert = ({ input, itemIndex }: ItemRun<IDataObject>) => ({
	body: input,
	options: { itemIndex, ...optionLookup(input) },
});

/** Appends a sentence to the error's details. */
function addDescription(error: Error & { description?: string | null }, sentence: string) {
	error.description = error.description ? `${error.description} ${sentence}` : sentence;
}

/** The option's error, saying that the job itself exists, so that the item is not simply run again. */
function jobCreatedNote(
	ctx: IExecuteFunctions,
	error: Error,
	job: JobRecord,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	const note = `The job itself was created (ID ${job.id}): rather than running this item again, add the option with Option → Create and Job ID ${job.id}.`;
	if (error instanceof NodeApiError) {
		addDescription(error, note);
		return new NodeApiError(ctx.getNode(), error as unknown as JsonObject); // returns `error` itself
	}
	return new NodeOperationError(ctx.getNode(), error, { itemIndex, description: note });
}

export async function execute(
	this: IExecuteFunctions,
	run: ItemRun<CreateInput>,
): Promise<INodeExecutionData[]> {
	const { client, itemIndex, input } = run;
	const job = await client.insert<JobRecord>('jobs', input.body, jobLookup(input.body, itemIndex));
	let option: IDataObject | undefined;
	if (input.option) {
		const optionRun = { ...run, input: { ...input.option, job_id: job.id } };
		const { body, options } = optionInsert(optionRun);
		option = await client
			.insert('options', body, options)
			.catch((error: Error) => Promise.reject(jobCreatedNote(this, error, job, itemIndex)));
	}
	const result = input.wait ? await waitForJob.call(this, run, job, input.wait) : job;
	return [{ json: withOption(result, option) }];
}
