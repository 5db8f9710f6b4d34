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
import { createInChunks } from '../batching';
import type { BatchOptions, ItemResult, ItemRun } from '../types';
import { JOB_LABELS, jobFields, type JobRecord } from './fields';
import { optionLookup } from '../option/create.operation';
import { readWait, waitForJob, waitForJobs, waitProperties, type WaitSettings } from './wait';

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
 * Every item's job in one POST per chunk (batching.ts), then, for those that wait, all jobs
 * waited for together (wait.ts). Items with an export option go one by one.
 */
export async function batch(
	this: IExecuteFunctions,
	runs: Array<ItemRun<CreateInput>>,
	how: BatchOptions,
): Promise<ItemResult[] | undefined> {
	if (runs.some(({ input }) => input.option)) return undefined;
	const insertOf = ({ input, itemIndex }: ItemRun<CreateInput>) => ({
		body: input.body,
		options: jobLookup(input.body, itemIndex),
	});
	const created = await createInChunks(runs, 'jobs', insertOf, how);
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
	waits.forEach(({ index }, place) => {
		const done = waited[place];
		created[index] = done instanceof Error ? done : [{ json: done }];
	});
	return created;
}

export async function execute(
	this: IExecuteFunctions,
	run: ItemRun<CreateInput>,
): Promise<INodeExecutionData[]> {
	const { client, itemIndex, input } = run;
	const job = await client.insert<JobRecord>('jobs', input.body, jobLookup(input.body, itemIndex));
	let option: IDataObject | undefined;
	if (input.option) {
		const optionBody = { ...input.option, job_id: job.id };
		try {
			option = await client.insert('options', optionBody, {
				itemIndex,
				...optionLookup(optionBody),
			});
		} catch (error) {
			// The job exists by now: say so, so that the item is not simply run again.
			const note = `The job itself was created (ID ${job.id}): rather than running this item again, add the option with Option → Create and Job ID ${job.id}.`;
			if (error instanceof NodeApiError) {
				error.description = error.description ? `${error.description} ${note}` : note;
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject); // returns `error` itself
			}
			throw new NodeOperationError(this.getNode(), error as Error, {
				itemIndex,
				description: note,
			});
		}
	}
	const result = input.wait ? await waitForJob.call(this, run, job, input.wait) : job;
	return [{ json: { ...result, ...(option ? { option } : {}) } }];
}
