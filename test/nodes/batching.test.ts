// Batching → Automatic against the real PostgREST: many items in the fewest requests, each
// item's result, order and pairedItem exactly as one request per item gives them.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { trackInFlight } from '../concurrency/scenarios';
import { serviceEachTest } from '../support';
import {
	addJobs,
	bothWays,
	byId,
	idItems,
	itemsOf,
	restSince,
	runError,
	runNode,
	sites,
} from './helpers';

describe('Website Export node: Batching → Automatic', () => {
	// Jobs stay queued for the test: both ways must read the same rows.
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	it('gets 200 jobs by ID in one request, each item its own job, duplicates included', async () => {
		const jobs = await addJobs(service, sites(200));
		const ids = [...jobs.map((job) => job.id), jobs[7].id, jobs[0].id];
		const { batched, perItem } = await bothWays(
			service,
			byId('job', 'get', '={{ $json.id }}'),
			itemsOf(...ids.map((id) => ({ id }))),
		);
		expect(batched.requests).toBe(1);
		// One read per item, as one by one: the two repeated IDs are read again.
		expect(perItem.requests).toBe(202);
		expect(batched.output).toEqual(perItem.output);
		expect(batched.output.map((item) => item.json.id)).toEqual(ids);
		expect(batched.output.map((item) => item.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
	});

	it('stays at the limit in bulk: 1 000 creates in 1 request, 2 000 gets in at most 3, 1 000 deletes in 2', async () => {
		const methods = (since: number) => restSince(service, since).map((e) => e.method);
		let since = service.emulator.log.length;
		const create = { resource: 'job', operation: 'create', url: '={{ $json.url }}' };
		const created = await runNode(
			service,
			{ ...create, email: '={{ $json.email }}' },
			{ items: itemsOf(...sites(1000)) },
		);
		expect(methods(since)).toEqual(['POST']);
		const ids = created.map((item) => item.json.id);
		// 2 000 distinct ids: a request line holds some 900 of them within 8 KiB.
		const more = await addJobs(service, sites(1000, 'https://more'));
		since = service.emulator.log.length;
		const got = await runNode(service, byId('job', 'get', '={{ $json.id }}'), {
			items: itemsOf(...[...ids, ...more.map((job) => job.id)].map((id) => ({ id }))),
		});
		expect(got).toHaveLength(2000);
		expect(methods(since).length).toBeLessThanOrEqual(3);
		since = service.emulator.log.length;
		await runNode(service, byId('job', 'delete', '={{ $json.id }}'), {
			items: itemsOf(...ids.map((id) => ({ id }))),
		});
		expect(methods(since)).toEqual(['GET', 'DELETE']);
		expect(await service.emulator.count('jobs')).toBe(1000);
	});

	it('gives each missing or ambiguous selection its own error, as one request per item does', async () => {
		const jobs = await addJobs(service, [
			...sites(3),
			{ url: 'https://twin.example.com', email: 'a@example.com' },
			{ url: 'https://twin.example.com', email: 'b@example.com' },
		]);
		const byUrl = (url: string) => ({ url });
		const items = itemsOf(
			byUrl('https://site1.example.com'),
			byUrl('https://nowhere.example.com'),
			byUrl('https://twin.example.com'),
			byUrl('https://site0.example.com'),
		);
		const parameters: INodeParameters = {
			resource: 'job',
			operation: 'get',
			selectBy: 'id',
			recordId: { __rl: true, mode: 'url', value: '={{ $json.url }}' },
		};
		const { batched, perItem } = await bothWays(
			service,
			parameters,
			items,
			'continueRegularOutput',
		);
		expect(batched.output).toEqual(perItem.output);
		expect(batched.output.map((item) => item.json.error ?? item.json.id)).toEqual([
			jobs[1].id,
			'No job with URL "https://nowhere.example.com" was found',
			'2 records match the job with URL "https://twin.example.com"',
			jobs[0].id,
		]);
		expect(batched.requests).toBe(1);
		// Without Continue On Fail: the first failing item's error, pointing at it.
		const error = await runError(service, parameters, { items });
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as unknown as NodeApiError).context.itemIndex).toBe(1);
		expect(error.message).toBe('No job with URL "https://nowhere.example.com" was found');
	});

	it('cuts the values where a request line would pass 8 KiB, Requests in Flight chunks at once', async () => {
		const long = (i: number) =>
			`https://site${i}.example.com/${'path,with(reserved)"chars"/'.repeat(4)}`;
		const jobs = await addJobs(
			service,
			Array.from({ length: 150 }, (_, i) => ({ url: long(i), email: 'a@example.com' })),
		);
		const parameters: INodeParameters = {
			resource: 'job',
			operation: 'get',
			selectBy: 'field',
			selectField: 'url',
			selectValue: '={{ $json.url }}',
			options: { requestsInFlight: 2 },
		};
		const inFlight = trackInFlight(service.emulator);
		const since = service.emulator.log.length;
		const output = await runNode(service, parameters, {
			items: itemsOf(...jobs.map((job) => ({ url: job.url }))),
		});
		inFlight.stop();
		expect(output.map((item) => item.json.id)).toEqual(jobs.map((job) => job.id));
		const reads = restSince(service, since);
		expect(reads.length).toBeGreaterThan(2);
		expect(reads.every((entry) => entry.status === 200)).toBe(true);
		expect(inFlight.max).toBeLessThanOrEqual(2);
	});

	it('gets downloads with their expiry by the service clock, one request', async () => {
		const downloads = (await service.emulator.insert('downloads', [
			{ job_id: null },
			{ job_id: null },
		])) as IDataObject[];
		const { batched, perItem } = await bothWays(
			service,
			byId('download', 'get', '={{ $json.id }}'),
			itemsOf(...downloads.map(({ id }) => ({ id }))),
		);
		expect(batched.requests).toBe(1);
		expect(batched.output).toEqual(perItem.output);
		expect(batched.output[0].json).toMatchObject({ id: downloads[0].id, is_expired: false });
	});

	describe('creates', () => {
		const POST = (table: string) => ({ method: 'POST', path: `/rest/v1/${table}` });
		const posts = (since: number) => restSince(service, since).filter((e) => e.method === 'POST');
		const jobCreate: INodeParameters = {
			resource: 'job',
			operation: 'create',
			url: '={{ $json.url }}',
			email: '={{ $json.email }}',
		};
		/** Option → Create for each item's job_id: a job that does not exist is refused by its foreign key. */
		const optionCreate: INodeParameters = {
			resource: 'option',
			operation: 'create',
			mode: 'offline',
			additionalFields: { jobId: '={{ $json.jobId }}' },
		};
		const optionItems = async () => {
			const [job] = await addJobs(service, sites(1));
			return itemsOf(
				...Array.from({ length: 8 }, (_, i) => ({ jobId: i === 2 ? 999_999 : job.id })),
			);
		};

		it('creates 200 jobs in one request, each item its row in order', async () => {
			const since = service.emulator.log.length;
			const output = await runNode(service, jobCreate, { items: itemsOf(...sites(200)) });
			expect(posts(since)).toHaveLength(1);
			expect(output.map((item) => item.json.url)).toEqual(sites(200).map((site) => site.url));
			expect(output.map((item) => item.pairedItem)).toEqual(
				sites(200).map((_, item) => ({ item })),
			);
			const stored = (await service.emulator.rows('jobs')) as IDataObject[];
			expect(output.map((item) => item.json.id)).toEqual(stored.map((job) => job.id));
		});

		it('a row refused in the middle: the chunk again one by one, the items before it created once, nothing after it', async () => {
			const items = await optionItems();
			const since = service.emulator.log.length;
			const error = await runError(service, optionCreate, { items });
			expect((error as unknown as NodeApiError).context.itemIndex).toBe(2);
			expect(error.message).toMatch(/foreign key/);
			// The refused chunk, then items 0, 1 and the refused 2: nothing after it.
			expect(posts(since)).toHaveLength(4);
			expect(await service.emulator.count('options')).toBe(2);
		});

		it('a row refused in the middle, with Continue On Fail: every other item created, the refused one an error item', async () => {
			const items = await optionItems();
			const { batched, perItem } = await bothWays(
				service,
				optionCreate,
				items,
				'continueRegularOutput',
			);
			expect(batched.output.map((item) => item.json.error !== undefined)).toEqual(
				items.map((_, i) => i === 2),
			);
			// The same rows apart from what the service assigns (id, created_at).
			const strip = (output: INodeExecutionData[]) =>
				output.map(({ json }) => ({ ...json, id: undefined, created_at: undefined }));
			expect(strip(batched.output)).toEqual(strip(perItem.output));
			expect(await service.emulator.count('options')).toBe(14);
		});

		describe('a job with its export option', () => {
			const withOption: INodeParameters = {
				...jobCreate,
				optionMode: 'relative',
				optionRelativePath: '={{ $json.path }}',
			};
			/** 6 sites; the 3rd one's path holds a NUL, which Postgres refuses in a text column. */
			const items = () =>
				itemsOf(...sites(6).map((site, i) => ({ ...site, path: i === 2 ? '/a\u0000' : `/p${i}` })));
			const strip = (output: INodeExecutionData[]) =>
				output.map(({ json }) => {
					const option = json.option as IDataObject | undefined;
					return {
						...json,
						id: undefined,
						created_at: undefined,
						option: option && {
							...option,
							id: undefined,
							created_at: undefined,
							job_id: undefined,
						},
					};
				});

			it('creates the jobs in one request and their options in one more, as one request per item gives them', async () => {
				const ok = itemsOf(...sites(50).map((site, i) => ({ ...site, path: `/p${i}` })));
				const { batched, perItem } = await bothWays(service, withOption, ok);
				expect(batched.requests).toBe(2);
				expect(perItem.requests).toBe(100);
				expect(strip(batched.output)).toEqual(strip(perItem.output));
				for (const { json } of batched.output)
					expect((json.option as IDataObject).job_id).toBe(json.id);
			});

			it('an option refused in the middle: items before it done, its job named, the later jobs deleted again', async () => {
				const since = service.emulator.log.length;
				const error = await runError(service, withOption, { items: items() });
				expect((error as unknown as NodeApiError).context.itemIndex).toBe(2);
				const jobs = (await service.emulator.rows('jobs')) as IDataObject[];
				const options = (await service.emulator.rows('options')) as IDataObject[];
				// As one by one: the jobs and options of items 0 and 1, and the job of item 2.
				expect(jobs.map((job) => job.url)).toEqual(sites(3).map((site) => site.url));
				expect(options.map((option) => option.job_id)).toEqual([jobs[0].id, jobs[1].id]);
				const described = String(error.description);
				expect(described).toContain(`The job itself was created (ID ${jobs[2].id})`);
				expect(described).toMatch(/items after it \(IDs \d+, \d+, \d+\) were deleted again/);
				// Jobs, the refused options chunk, options 0, 1 and the refused 2, then one DELETE.
				expect(restSince(service, since).map((e) => `${e.method} ${e.table}`)).toEqual([
					'POST jobs',
					...Array(4).fill('POST options'),
					'DELETE jobs',
				]);
			});

			it('an option refused in the middle, with Continue On Fail: every other item done, the refused one an error item naming its job', async () => {
				const { batched, perItem } = await bothWays(
					service,
					withOption,
					items(),
					'continueRegularOutput',
				);
				expect(batched.output.map((item) => item.json.error !== undefined)).toEqual(
					items().map((_, i) => i === 2),
				);
				expect(batched.output[2].json.details).toMatch(/^.*The job itself was created \(ID \d+\)/);
				expect(strip(batched.output)).toEqual(
					strip(perItem.output).map((json, i) =>
						i === 2 ? { ...json, details: expect.any(String) } : json,
					),
				);
				expect(await service.emulator.count('jobs')).toBe(12);
				expect(await service.emulator.count('options')).toBe(10);
			});
		});

		it.each([
			['a 502 after the commit', { status: 502, applyAfterHandling: true }],
			['a connection reset after the commit', { reset: true, applyAfterHandling: true }],
		])('after %s to a chunk, its rows are looked up, never sent again', async (_, fault) => {
			service.emulator.fault({ match: POST('jobs'), ...fault });
			const items = itemsOf(...sites(5), sites(1)[0]);
			const since = service.emulator.log.length;
			const output = await runNode(service, jobCreate, { items });
			expect(posts(since)).toHaveLength(1);
			expect(output.map((item) => [item.json.url, item.json.recovered])).toEqual(
				items.map((item) => [item.json.url, true]),
			);
			const stored = (await service.emulator.rows('jobs')) as IDataObject[];
			expect(new Set(output.map((item) => item.json.id))).toEqual(
				new Set(stored.map((job) => job.id)),
			);
		});
	});

	describe('updates and deletes', () => {
		const methods = (since: number) => restSince(service, since).map((e) => e.method);

		it('deletes 200 jobs with one read and one DELETE, each item its job', async () => {
			const jobs = await addJobs(service, sites(200));
			const since = service.emulator.log.length;
			const output = await runNode(service, byId('job', 'delete', '={{ $json.id }}'), {
				items: idItems(jobs),
			});
			expect(methods(since)).toEqual(['GET', 'DELETE']);
			expect(output.map((item) => item.json)).toEqual(
				jobs.map((job) => ({ deleted: true, ...job })),
			);
			expect(await service.emulator.count('jobs')).toBe(0);
		});

		it('without Continue On Fail, deletes the items before a missing one and none after it', async () => {
			const jobs = await addJobs(service, sites(10));
			const items = idItems(jobs.map((job, i) => (i === 3 ? { id: 424242 } : job)));
			const error = await runError(service, byId('job', 'delete', '={{ $json.id }}'), { items });
			expect(error.message).toBe('No job with ID 424242 was found');
			expect((error as unknown as NodeApiError).context.itemIndex).toBe(3);
			const left = ((await service.emulator.rows('jobs')) as IDataObject[]).map((job) => job.id);
			expect(left).toEqual(jobs.slice(3).map((job) => job.id));
		});

		it('with Continue On Fail, as one request per item after another: every other item deleted, a duplicate not found', async () => {
			const jobs = await addJobs(service, sites(6));
			const twin = await addJobs(service, sites(6));
			const pick = (rows: IDataObject[]) =>
				idItems([rows[0], { id: 424242 }, rows[1], rows[0], rows[2]]);
			const run = (items: INodeExecutionData[], batching: string) =>
				runNode(
					service,
					// One request per item, one after another: the one-by-one outcome.
					{
						...byId('job', 'delete', '={{ $json.id }}'),
						options: { batching, requestsInFlight: 1 },
					},
					{
						items,
						onError: 'continueRegularOutput',
					},
				);
			const batched = await run(pick(jobs), 'automatic');
			const perItem = await run(pick(twin), 'perItem');
			const shape = (output: INodeExecutionData[]) =>
				output.map((item) => item.json.error ?? (item.json.deleted && 'deleted'));
			const withoutIds = (output: INodeExecutionData[]) =>
				shape(output).map((text) => String(text).replace(/ID \d+/, 'ID n'));
			expect(withoutIds(batched)).toEqual(withoutIds(perItem));
			expect(shape(batched)).toEqual([
				'deleted',
				'No job with ID 424242 was found',
				'deleted',
				`No job with ID ${jobs[0].id} was found`,
				'deleted',
			]);
		});

		it('after a lost answer to a DELETE, reports the jobs deleted by the lost attempt', async () => {
			const jobs = await addJobs(service, sites(4));
			service.emulator.fault({
				match: { method: 'DELETE', path: '/rest/v1/jobs' },
				status: 503,
				applyAfterHandling: true,
			});
			const output = await runNode(service, byId('job', 'delete', '={{ $json.id }}'), {
				items: idItems(jobs),
			});
			expect(output.map((item) => item.json)).toEqual(
				jobs.map((job) => ({ deleted: true, ...job })),
			);
			expect(await service.emulator.count('jobs')).toBe(0);
		});

		it('updates 200 jobs with one read and one PATCH, each item its job as one request per item gives it', async () => {
			const jobs = await addJobs(service, sites(200));
			const parameters = byId('job', 'update', '={{ $json.id }}', {
				updateFields: { email: 'new@example.com' },
			});
			const { batched, perItem } = await bothWays(service, parameters, idItems(jobs));
			expect(batched.requests).toBe(2);
			// A read and a PATCH per item: a missing record is known before anything is written.
			expect(perItem.requests).toBe(400);
			expect(batched.output).toEqual(perItem.output);
			expect(batched.output.map((item) => [item.json.id, item.json.email])).toEqual(
				jobs.map((job) => [job.id, 'new@example.com']),
			);
		});

		it('a refused PATCH of many: sent again one item at a time', async () => {
			const jobs = await addJobs(service, sites(3));
			service.emulator.fault({ match: { method: 'PATCH', path: '/rest/v1/jobs' }, status: 409 });
			const since = service.emulator.log.length;
			const output = await runNode(
				service,
				byId('job', 'update', '={{ $json.id }}', { updateFields: { status: 'finished' } }),
				{ items: idItems(jobs) },
			);
			expect(methods(since)).toEqual(['GET', 'PATCH', 'PATCH', 'PATCH', 'PATCH']);
			expect(output.map((item) => item.json.status)).toEqual(['finished', 'finished', 'finished']);
		});
	});

	it('waits for all jobs of the run together: one read per check for those still waiting', async () => {
		service.emulator.settings.jobDurationMs = 1;
		const since = service.emulator.log.length;
		const output = await runNode(
			service,
			{
				resource: 'job',
				operation: 'create',
				url: '={{ $json.url }}',
				email: 'me@example.com',
				waitForCompletion: true,
				timeout: 5,
				pollInterval: 1,
			},
			{
				items: itemsOf(
					{ url: 'https://one.example.com' },
					{ url: 'https://two.invalid' },
					{ url: 'https://three.example.com' },
				),
				onError: 'continueRegularOutput',
			},
		);
		expect(
			output.map(
				(item) =>
					item.json.error ?? [
						item.json.status,
						(item.json.download as IDataObject).job_id === item.json.id,
					],
			),
		).toEqual([
			['finished', true],
			expect.stringMatching(/^The export of job \d+ failed$/),
			['finished', true],
		]);
		const calls = restSince(service, since).map((e) => `${e.method} ${e.table}`);
		expect(calls[0]).toBe('POST jobs');
		expect(calls.filter((call) => call === 'POST jobs')).toHaveLength(1);
		// Each check reads the jobs still waiting, then the downloads of those finished, once each.
		expect(calls.length).toBeLessThanOrEqual(1 + 2 * 2);
	});
});
