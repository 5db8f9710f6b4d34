// Why: the polling trigger: emits each new finished download once, while its 24-hour link is valid.
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { collection } from '../shared/collection';
import { readTimeout, timeoutProperty } from '../shared/timeout';
import { websiteExportApiTest } from '../shared/auth/credentialTest';
import {
	createdMs,
	UnreadableTimestampError,
	unreadableTimestampApiError,
	windowFilter,
	withExpiry,
	type DownloadRecord,
} from '../shared/downloads';
import { WebsiteExportClient, type Filter } from '../shared/transport';
import {
	advance,
	DOWNLOAD_ORDER,
	isValid,
	queryFilters,
	readState,
	stateLossLookbackMs,
	writeState,
} from './cursor';
import { longestPollGapMs } from './pollGap';
import { beginPoll, endPoll, triggerKey } from './runningPolls';

/** Job ids per `id=in.(…)` request at most (fewer where the request line would pass 8 KiB). */
const JOBS_PER_REQUEST = 1000;

/** Downloads Fetch Test Event looks through for one whose job URL matches. */
const SAMPLE_SCAN = 1000;

/** The job columns a download item shows (and the filter reads). */
const JOB_COLUMNS = ['id', 'url', 'email', 'status', 'files'];

type Settings = ReturnType<typeof readSettings>;

function readSettings(ctx: IPollFunctions) {
	const event = ctx.getNodeParameter('event', 'downloadReady') as string;
	if (event !== 'downloadReady')
		throw new NodeOperationError(ctx.getNode(), `Unknown event "${event}"`, {
			description: 'Choose Download Ready as the Event.',
		});
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const contains = options.jobUrlContains;
	if (contains !== undefined && typeof contains !== 'string')
		throw new NodeOperationError(ctx.getNode(), 'Invalid input: Job URL Contains must be text');
	return {
		includeJob: ctx.getNodeParameter('includeJob', true) as boolean,
		/** Lower-cased; empty when the filter is off. */
		jobUrlContains: (contains ?? '').trim().toLowerCase(),
		emitExisting: options.emitExisting === true,
		timeoutMs: readTimeout(options.timeout),
	};
}

/**
 * The output items for `downloads`: their fields with `expires_at` and `is_expired`, and the
 * job's when asked for. Downloads whose job URL does not contain the filter text are left out
 * (the URL is on the job, another table: so the filter needs the jobs, fetched in one batch).
 */
async function downloadItems(
	client: WebsiteExportClient,
	downloads: DownloadRecord[],
	settings: Settings,
	serviceNow: number,
): Promise<INodeExecutionData[]> {
	const jobs = new Map<number, IDataObject>();
	const ids = [...new Set(downloads.map((d) => d.job_id).filter((id) => typeof id === 'number'))];
	// One `id=in.(…)` request for any usual poll (client.inGroups), none when no job is needed.
	const needJobs = settings.includeJob || settings.jobUrlContains !== '';
	for (const group of needJobs ? client.inGroups('jobs', 'id', ids, JOBS_PER_REQUEST) : []) {
		const filters: Filter[] = [{ column: 'id', operator: 'in', value: group }];
		const query = { select: JOB_COLUMNS, filters, order: [{ column: 'id' }] };
		for (const row of await client.selectAll('jobs', query)) jobs.set(row.id as number, row);
	}
	const items: INodeExecutionData[] = [];
	for (const download of downloads) {
		const job = download.job_id === null ? undefined : jobs.get(download.job_id);
		const url = String(job?.url ?? '').toLowerCase();
		if (!url.includes(settings.jobUrlContains)) continue; // a filter that is off is '': always in
		const json: IDataObject = withExpiry(download, serviceNow);
		if (settings.includeJob)
			json.job = job
				? { url: job.url, email: job.email, status: job.status, files: job.files }
				: null;
		items.push({ json });
	}
	return items;
}

/**
 * The service's time, the latest it can be (the Date header counts whole seconds): a link is
 * emitted only if still valid then. Read from the service's answers, so that this machine's clock
 * being off neither emits expired links nor drops valid ones. Without a Date header (a proxy
 * strips it) only this machine's clock is left: one that is ahead drops links in their last
 * minutes, one that is behind emits links that expired as many minutes ago.
 */
const latestServiceNow = (client: WebsiteExportClient) => client.serviceNow() + 1_000;

/** Fetch Test Event: the most recent download with a valid link (and a matching job), if any. */
async function sample(
	ctx: IPollFunctions,
	client: WebsiteExportClient,
	settings: Settings,
): Promise<INodeExecutionData[]> {
	const order = DOWNLOAD_ORDER.map((o) => ({ ...o, descending: true }));
	const recent = await client.selectAll<DownloadRecord>(
		'downloads',
		{ filters: [windowFilter(Date.now())], order },
		{ max: settings.jobUrlContains ? SAMPLE_SCAN : 1 },
	);
	const serviceNow = latestServiceNow(client);
	const valid = recent.filter((download) => isValid(download, serviceNow));
	const items = await downloadItems(client, valid, settings, serviceNow);
	if (items.length > 0) return items.slice(0, 1);
	const matching = settings.jobUrlContains
		? ` whose job URL contains "${settings.jobUrlContains}"`
		: '';
	throw new NodeOperationError(ctx.getNode(), `No download with a valid link${matching}`, {
		description:
			'Fetch Test Event shows the most recent download whose link still works ' +
			'(links last 24 hours), and there is none right now. ' +
			'Create a job with the Website Export node (Job → Create), ' +
			'wait until it has finished, then fetch again.',
	});
}

/**
 * One poll of the active trigger: the new downloads' items, and every download it handled (the
 * new ones, emitted or left out by the filter).
 */
async function newDownloads(
	ctx: IPollFunctions,
	client: WebsiteExportClient,
	settings: Settings,
	handedOn: Record<string, number>,
): Promise<{ items: INodeExecutionData[]; fresh: DownloadRecord[] }> {
	const staticData = ctx.getWorkflowStaticData('node');
	const state = readState(staticData);
	const rows = await client.selectAll<DownloadRecord>('downloads', {
		filters: queryFilters(state, Date.now()),
		order: DOWNLOAD_ORDER,
	});
	const serviceNow = latestServiceNow(client);
	// Poll Times is n8n's own parameter of every polling node (not in this description).
	const lookbackMs = stateLossLookbackMs(longestPollGapMs(ctx.getNode().parameters.pollTimes));
	const { emitExisting } = settings;
	const { fresh, next } = advance(state, rows, serviceNow, { emitExisting, lookbackMs, handedOn });
	const items = await downloadItems(client, fresh, settings, serviceNow);
	// Only now, with every request done: a poll that fails leaves the state as it was.
	writeState(staticData, next);
	return { items, fresh };
}

/** Whether the poll ended within the time n8n gives it (n8n 1.x gives none: no limit). */
function withinBudget(ctx: IPollFunctions, startedAt: number): boolean {
	const budgetMs = (ctx as Partial<Pick<IPollFunctions, 'getPollBudgetMs'>>).getPollBudgetMs?.();
	return budgetMs === undefined || Date.now() - startedAt <= budgetMs;
}

export class WebsiteExportTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Website Export Trigger',
		name: 'websiteExportTrigger',
		icon: { light: 'file:websiteExportTrigger.svg', dark: 'file:websiteExportTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{$parameter["event"] === "downloadReady" ? "Download Ready" : $parameter["event"]}}',
		description:
			'Starts the workflow when a website export has finished and its download link is ready',
		documentationUrl: 'https://github.com/website-export/n8n-nodes-website-export#trigger',
		defaults: { name: 'Website Export Trigger' },
		credentials: [{ name: 'websiteExportApi', required: true, testedBy: 'websiteExportApiTest' }],
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				required: true,
				options: [
					{
						name: 'Download Ready',
						value: 'downloadReady',
						description:
							'An export has finished: one item per new download link, while the link is valid (24 hours)',
					},
				],
				default: 'downloadReady',
			},
			{
				displayName: 'Include Job',
				name: 'includeJob',
				type: 'boolean',
				default: true,
				description:
					'Whether to add the job\'s URL, email, status and file count to each download, under "job" ' +
					'(one extra request per poll that finds new downloads)',
			},
			collection('Options', 'options', 'Add Option', [
				{
					displayName: 'Emit Downloads Already Available',
					name: 'emitExisting',
					type: 'boolean',
					default: false,
					description:
						'Whether to also emit the downloads that already exist and are still valid, at the poll after activation',
					hint: 'Off: only downloads that finish from about one poll interval before activation on',
				},
				{
					displayName: 'Job URL Contains',
					name: 'jobUrlContains',
					type: 'string',
					default: '',
					placeholder: 'e.g. example.com',
					description: "Only downloads whose job's URL contains this text (not case-sensitive)",
					hint: 'Reads the jobs of new downloads for it, one request per poll, even with Include Job off',
				},
				timeoutProperty,
			]),
		],
	};

	methods = { credentialTest: { websiteExportApiTest } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const startedAt = Date.now();
		const settings = readSettings(this);
		const client = await WebsiteExportClient.connect(this, { timeoutMs: settings.timeoutMs });
		if (this.getMode() === 'manual') return [await sample(this, client, settings)];

		const node = this.getNode();
		const key = triggerKey(this.getWorkflow().id, node.id || node.name, client.baseUrl);
		const running = beginPoll(key, startedAt);
		// Another poll of this trigger is under way: it emits what it finds, and the first poll after
		// it everything since (the state is a cursor). Waiting for it would pile polls up behind a
		// slow service.
		if (running === undefined) return null;
		let handed: Record<string, number> | undefined;
		try {
			const { items, fresh } = await newDownloads(this, client, settings, running.handedOn);
			// Past its budget, n8n's task scheduler may drop what this poll returns: then it handed
			// nothing on, and later polls must not take its downloads as seen.
			if (withinBudget(this, startedAt))
				handed = Object.fromEntries(fresh.map((row) => [String(row.id), createdMs(row)]));
			return items.length > 0 ? [items] : null;
		} catch (error) {
			// A download the trigger cannot date (`advance` reads every row's first) is never skipped
			// silently: the poll fails and names it.
			throw error instanceof UnreadableTimestampError
				? unreadableTimestampApiError(node, error)
				: error;
		} finally {
			endPoll(key, running.token, Date.now(), handed);
		}
	}
}
