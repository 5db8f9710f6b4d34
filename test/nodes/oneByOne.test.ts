// Why: issue 43's findings, each as a test against the real PostgREST: every item's error is its own, One Request per Item goes item after item, a silent row cap is read past, identical creates each get their own row.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { serviceEachTest, type Service } from '../support';
import {
	addJobs,
	byId,
	itemsOf,
	perItem,
	restSince,
	runError,
	runJson,
	runNode,
	sites,
} from './helpers';

const createWithOption = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'job',
	operation: 'create',
	url: '={{ $json.url }}',
	email: '={{ $json.email }}',
	optionMode: 'offline',
	...extra,
});

/** The method and table of each REST request since `since`, e.g. `POST jobs`. */
const calls = (service: Service, since: number) =>
	restSince(service, since).map((e) => `${e.method} ${e.path.split('?')[0].split('/').pop()}`);

describe('Website Export node: each item one by one', () => {
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	it("gives each item of a refused group an error of its own that names only the item's job", async () => {
		// Every option POST answered 429 with a Retry-After longer than the node waits.
		service.emulator.fault({
			match: { method: 'POST', path: /\/options/ },
			status: 429,
			retryAfter: 600,
		});
		const output = await runNode(service, createWithOption(), {
			items: itemsOf(...sites(5)),
			onError: 'continueRegularOutput',
		});
		const jobs = (await service.emulator.rows('jobs')) as IDataObject[];
		expect(jobs).toHaveLength(5);
		output.forEach((item, index) => {
			const details = String(item.json.details);
			const own = jobs.find((job) => job.url === sites(5)[index].url)?.id;
			expect(details.match(/\(ID \d+\)/g)).toEqual([`(ID ${String(own)})`]);
		});
	});

	it('One Request per Item sends nothing after the item whose option was refused', async () => {
		service.emulator.fault({ match: { method: 'POST', path: /\/options/ }, status: 400, times: 1 });
		const since = service.emulator.log.length;
		const error = await runError(service, perItem(createWithOption()), {
			items: itemsOf(...sites(4)),
		});
		expect(error.message).toMatch(/./);
		expect(calls(service, since)).toEqual(['POST jobs', 'POST options']);
		expect(await service.emulator.rows('jobs')).toHaveLength(1);
	});

	it('One Request per Item waits for each job before the next item is created', async () => {
		// The first export fails (the service fails `.invalid` hosts): the items after it are never created.
		service.emulator.settings.jobDurationMs = 200;
		const since = service.emulator.log.length;
		const parameters = perItem(
			createWithOption({ optionMode: 'none', waitForCompletion: true, pollInterval: 1 }),
		);
		const items = itemsOf({ url: 'https://site.invalid', email: 'a@example.com' }, ...sites(2));
		const error = await runError(service, parameters, { items });
		expect(error.message).toMatch(/export of job \d+ failed/);
		expect(calls(service, since).filter((call) => call === 'POST jobs')).toHaveLength(1);
		expect(await service.emulator.rows('jobs')).toHaveLength(1);
	});

	it.each([['get', ['GET jobs', 'GET jobs']]])(
		'%s: One Request per Item sends nothing after the first failing item without Continue On Fail',
		async (operation, expected) => {
			const jobs = await addJobs(service, sites(3));
			const ids = [jobs[0].id, 999_999_999, jobs[1].id, jobs[2].id];
			const since = service.emulator.log.length;
			// One request at a time: a read started after the failed item's would show.
			const parameters = byId('job', operation, '={{ $json.id }}', {
				options: { batching: 'perItem', requestsInFlight: 1 },
			});
			const error = await runError(service, parameters, {
				items: itemsOf(...ids.map((id) => ({ id }))),
			});
			expect(error.message).toBe('No job with ID 999999999 was found');
			expect(calls(service, since)).toEqual(expected);
		},
	);

	it('starts no more than Requests in Flight − 1 items after a failing one whose answer is slow', async () => {
		// The first read (item 0's, the missing job) answers last: the reads of items 1 and 2 free
		// their places long before, and must not let items 3 and after start meanwhile.
		const jobs = await addJobs(service, sites(8));
		const parameters = byId('job', 'get', '={{ $json.id }}', {
			options: { batching: 'perItem', requestsInFlight: 3 },
		});
		// A run that logs in first: with a valid token stored, the reads go side by side at once.
		await runJson(service, parameters, { items: itemsOf({ id: jobs[0].id }) });
		service.emulator.fault({ match: { method: 'GET', path: /\/jobs/ }, delayMs: 1500 });
		const since = service.emulator.log.length;
		const ids = [999_999_999, ...jobs.map((job) => job.id)];
		const error = await runError(service, parameters, {
			items: itemsOf(...ids.map((id) => ({ id }))),
		});
		expect(error.message).toBe('No job with ID 999999999 was found');
		expect(calls(service, since).length).toBeLessThanOrEqual(3);
	});

	it('finds every record behind a silent row cap that comes without a count', async () => {
		// A proxy that drops `Prefer` (no count=exact) in front of a service capping answers at 50 rows.
		service.emulator.settings.maxRows = 50;
		service.emulator.settings.ignorePrefer = true;
		const jobs = await addJobs(service, sites(120));
		const ids = jobs.map((job) => job.id);
		const got = await runJson(service, byId('job', 'get', '={{ $json.id }}'), {
			items: itemsOf(...ids.map((id) => ({ id }))),
		});
		expect(got.map((job) => job.id)).toEqual(ids);
		const all = await runJson(service, { resource: 'job', operation: 'getAll', returnAll: true });
		expect(all).toHaveLength(120);
	});

	it('gives identical creates each their own row when answers carry none', async () => {
		service.emulator.settings.ignorePrefer = true;
		const same = { url: 'https://twin.example.com', email: 'a@example.com' };
		const parameters = perItem(createWithOption({ optionMode: 'none' }));
		const created = await runJson(
			service,
			{ ...parameters, options: { ...(parameters.options as IDataObject), requestsInFlight: 8 } },
			{
				items: itemsOf(...Array.from({ length: 6 }, () => same)),
				onError: 'continueRegularOutput',
			},
		);
		expect(created.map((job) => job.error)).toEqual(Array(6).fill(undefined));
		const rows = (await service.emulator.rows('jobs')) as IDataObject[];
		expect(new Set(created.map((job) => job.id))).toEqual(new Set(rows.map((row) => row.id)));
		expect(rows).toHaveLength(6);
	});

	const optionCreate: INodeParameters = {
		resource: 'option',
		operation: 'create',
		mode: 'offline',
		additionalFields: { jobId: '={{ $json.jobId }}' },
	};

	it('names the items after a failed one whose rows no answer told', async () => {
		// A proxy that drops `Prefer` (answers without rows), and every lookup of options refused.
		service.emulator.settings.ignorePrefer = true;
		service.emulator.fault({
			match: { method: 'GET', path: /\/options/ },
			status: 503,
			retryAfter: 600,
		});
		const items = itemsOf({ jobId: '' }, { jobId: '' }, { jobId: '' });
		const error = await runError(service, optionCreate, { items });
		expect(error.description).toMatch(
			/The same request carried the options of \[item 1\], \[item 2\], and no answer said whether it created them/,
		);
		expect(await service.emulator.count('options')).toBe(3);
	});

	it('One Request per Item: a failed read fails only its own item, not the next one naming the same job', async () => {
		// Oracle seed 42: two items select the same job; the first read meets a 503 the node does
		// not wait out. One by one, the second item reads again and goes on.
		const [job] = await addJobs(service, sites(1));
		service.emulator.fault({
			match: { method: 'GET', path: /\/jobs/ },
			status: 503,
			retryAfter: 600,
			times: 1,
		});
		const byUrl = { __rl: true, mode: 'url', value: String(job.url) };
		const output = await runNode(
			service,
			perItem({ resource: 'job', operation: 'delete', selectBy: 'id', recordId: byUrl } as never),
			{ items: itemsOf({}, {}), onError: 'continueRegularOutput' },
		);
		expect(output.map((item) => item.json.error ?? 'ok')).toEqual(['Service Unavailable', 'ok']);
		expect(output[1].json).toMatchObject({ deleted: true, id: job.id });
		expect(await service.emulator.count('jobs')).toBe(0);
	});
});
