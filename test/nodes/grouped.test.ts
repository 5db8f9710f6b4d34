// Tests the ten cases of issue 30 on the real PostgREST: each run with Batching → Automatic and with One Request per Item, both giving the one-by-one outcome.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { trackInFlight } from '../concurrency/scenarios';
import { startService, type Service } from '../support';
import {
	addJobs,
	BATCHINGS,
	byId,
	idItems,
	itemIndexOf,
	itemsOf,
	restSince,
	runError,
	runNode,
	sites,
	withBatching,
	type Batching,
	type RunOptions,
} from './helpers';

const CONTINUE: RunOptions['onError'] = 'continueRegularOutput';
/** Time for a test of many hundred items, each run both ways (one by one: one request per item). */
const LARGE = 180_000;

describe('Website Export node: Automatic gives what One Request per Item gives (issue 30)', () => {
	let service: Service;
	beforeAll(async () => {
		// Jobs stay queued unless a test says otherwise: both runs must read the same rows.
		service = await startService({ jobDurationMs: 3_600_000 });
	});
	afterAll(async () => {
		await service.emulator.close();
	});

	/**
	 * Runs `work` once per Batching setting, each on an emptied service (identities restarted,
	 * settings and log back to the start), and names the setting in a failure; resolves to what
	 * each run resolved to.
	 */
	async function eachWay<T>(
		work: (batching: Batching) => Promise<T>,
	): Promise<Record<Batching, T>> {
		const results = {} as Record<Batching, T>;
		const failures: Error[] = [];
		for (const batching of BATCHINGS) {
			await service.emulator.reset();
			try {
				results[batching] = await work(batching);
			} catch (error) {
				(error as Error).message = `With Batching → ${batching}:\n${(error as Error).message}`;
				failures.push(error as Error);
			}
		}
		// Both settings run, whichever fails: the first failure is thrown, naming the other too.
		if (failures.length > 1) failures[0].message += `\n\n${failures[1].message}`;
		if (failures.length > 0) throw failures[0];
		return results;
	}

	const run = (
		parameters: INodeParameters,
		batching: Batching,
		items: INodeExecutionData[],
		onError?: RunOptions['onError'],
	) => runNode(service, withBatching(parameters, batching), { items, onError });
	const fail = (parameters: INodeParameters, batching: Batching, items: INodeExecutionData[]) =>
		runError(service, withBatching(parameters, batching), { items });

	/**
	 * `n` jobs with sixteen-digit ids (as snowflake-style keys are; still exact in a JS number):
	 * about 430 fill the `id=in.(…)` list of an 8 KiB request line, so that 500 items take two.
	 */
	const addManyJobs = (n: number) =>
		addJobs(
			service,
			sites(n).map((site, i) => ({ id: 1_000_000_000_000_000 + i, ...site })),
		);
	const jobsLeft = async () => (await service.emulator.rows('jobs')) as IDataObject[];
	const jsonOf = (output: INodeExecutionData[]) => output.map((item) => item.json);
	/** Output or table rows without what the service assigns (id, created_at): creates compared by content. */
	const content = (rows: IDataObject[]) =>
		rows.map((row) =>
			Object.fromEntries(
				Object.entries(row).filter(([key]) => !['id', 'created_at'].includes(key)),
			),
		);
	/** The ids a request's `id` filter names (`eq.5`, `in.(1,2)`). */
	const idsOf = (query: string) =>
		(new URLSearchParams(query).get('id')?.match(/\d+/g) ?? []).map(Number);

	const byField = (
		resource: string,
		operation: string,
		selectField: string,
		selectValue: string,
		parameters: INodeParameters = {},
	): INodeParameters => ({
		resource,
		operation,
		selectBy: 'field',
		selectField,
		selectValue,
		...parameters,
	});

	/**
	 * Items of a case about request lines: 500 with Automatic, so that their ids take two lines;
	 * 40 one request per item (past Requests in Flight), where no line holds more than one id and
	 * every item costs two or three requests (a read, the write, a read back).
	 */
	const manyIds = (batching: Batching) => (batching === 'automatic' ? 500 : 40);

	describe('case 1: a service that answers writes 204 without rows, 500 items by ID (40 one by one)', () => {
		// Items side by side, as far as each setting lets them: the outcome must not depend on it.
		const inFlight = { options: { requestsInFlight: 8 } };
		const noReplays = () => {
			const rest = restSince(service);
			// A 414 is a request line the gateway refused: the node sent more than it measured.
			expect(rest.filter((e) => e.status === 414).map((e) => `${e.method} ${e.path}`)).toEqual([]);
			return rest;
		};

		it(
			'Delete: every record deleted once, each item its record',
			async () => {
				await eachWay(async (batching) => {
					service.emulator.settings.ignorePrefer = true;
					const jobs = await addManyJobs(manyIds(batching));
					const parameters = byId('job', 'delete', '={{ $json.id }}', inFlight);
					const output = await run(parameters, batching, idItems(jobs));
					expect(jsonOf(output)).toEqual(jobs.map((job) => ({ deleted: true, ...job })));
					expect(await jobsLeft()).toEqual([]);
					const deletes = noReplays().filter((e) => e.method === 'DELETE');
					// The ids fill more than one request line: the split is part of what is compared.
					if (batching === 'automatic') expect(deletes.length).toBeGreaterThan(1);
				});
			},
			LARGE,
		);

		it(
			'Update: every record updated once, each item its record as stored',
			async () => {
				await eachWay(async (batching) => {
					service.emulator.settings.ignorePrefer = true;
					const jobs = await addManyJobs(manyIds(batching));
					const parameters = byId('job', 'update', '={{ $json.id }}', {
						...inFlight,
						updateFields: { email: 'new@example.com' },
					});
					const output = await run(parameters, batching, idItems(jobs));
					const stored = await jobsLeft();
					expect(stored.map((job) => [job.id, job.email])).toEqual(
						jobs.map((job) => [job.id, 'new@example.com']),
					);
					expect(jsonOf(output)).toEqual(stored);
					const patched = noReplays()
						.filter((e) => e.method === 'PATCH')
						.flatMap((e) => idsOf(e.query));
					expect(patched.sort((a, b) => a - b)).toEqual(jobs.map((job) => job.id));
				});
			},
			LARGE,
		);
	});

	it(
		'case 2: Delete by ID with a duplicate of item 0 beyond the first chunk fails there; before it all deleted, after it all kept',
		async () => {
			await eachWay(async (batching) => {
				// Item 450 of 500 (36 of 40 one by one): beyond the first request line's ids.
				const AT = (manyIds(batching) * 9) / 10;
				const jobs = await addManyJobs(manyIds(batching));
				const items = idItems(jobs.map((job, i) => (i === AT ? jobs[0] : job)));
				const error = await fail(byId('job', 'delete', '={{ $json.id }}'), batching, items);
				expect(error.message).toBe(`No job with ID ${String(jobs[0].id)} was found`);
				expect(itemIndexOf(error)).toBe(AT);
				// Items 0..AT-1 deleted their records; record AT was selected by no item.
				expect((await jobsLeft()).map((job) => job.id)).toEqual(
					jobs.slice(AT).map((job) => job.id),
				);
			});
		},
		LARGE,
	);

	describe('case 3: a Select By Job ID value the column refuses fails its item only', () => {
		const values = (jobs: IDataObject[]) => [jobs[0].id, '12.5', jobs[1].id, 'abc'];
		const refused = (value: string) => `invalid input syntax for type bigint: "${value}"`;

		it.each([['option'], ['download']])('%s → Get', async (resource) => {
			const table = `${resource}s` as 'options' | 'downloads';
			const parameters = byField(resource, 'get', 'job_id', '={{ $json.jobId }}');
			await eachWay(async (batching) => {
				const jobs = await addJobs(service, sites(2));
				const rows = (await service.emulator.insert(
					table,
					jobs.map((job) => ({
						job_id: job.id,
						...(resource === 'option' && { mode: 'offline' }),
					})),
				)) as IDataObject[];
				const items = itemsOf(...values(jobs).map((jobId) => ({ jobId })));
				const output = await run(parameters, batching, items, CONTINUE);
				expect(output.map((item) => item.json.error ?? item.json.id)).toEqual([
					rows[0].id,
					refused('12.5'),
					rows[1].id,
					refused('abc'),
				]);
				expect(output[2].json).toMatchObject(rows[1]);
				const error = await fail(parameters, batching, items);
				expect(error).toBeInstanceOf(NodeApiError);
				expect(error.message).toBe(refused('12.5'));
				expect(itemIndexOf(error)).toBe(1);
			});
		});
	});

	describe('case 4: each item reads what the items before it wrote', () => {
		it('Update Select By Email = old@ setting Email = new@, two identical items: the second not found', async () => {
			const parameters = byField('job', 'update', 'email', 'old@example.com', {
				updateFields: { email: 'new@example.com' },
			});
			const notFound = 'No job with email "old@example.com" was found';
			await eachWay(async (batching) => {
				const [job] = await addJobs(service, [
					{ url: 'https://a.example.com', email: 'old@example.com' },
				]);
				const updated = { ...job, email: 'new@example.com' };
				const output = await run(parameters, batching, itemsOf({}, {}), CONTINUE);
				expect(output.map((item) => item.json.error ?? item.json)).toEqual([updated, notFound]);
				expect(await jobsLeft()).toEqual([updated]);

				await service.emulator.reset();
				const [again] = await addJobs(service, [
					{ url: 'https://a.example.com', email: 'old@example.com' },
				]);
				const error = await fail(parameters, batching, itemsOf({}, {}));
				expect(error.message).toBe(notFound);
				expect(itemIndexOf(error)).toBe(1);
				// n8n never rolls back: item 0's update stays.
				expect(await jobsLeft()).toEqual([{ ...again, email: 'new@example.com' }]);
			});
		});

		it('Delete: item 0 by URL takes record A, so item 1 by an email A and B share finds B alone', async () => {
			const parameters = byField('job', 'delete', '={{ $json.field }}', '={{ $json.value }}');
			const items = itemsOf(
				{ field: 'url', value: 'https://a.example.com' },
				{ field: 'email', value: 'shared@example.com' },
			);
			await eachWay(async (batching) => {
				const [a, b] = await addJobs(service, [
					{ url: 'https://a.example.com', email: 'shared@example.com' },
					{ url: 'https://b.example.com', email: 'shared@example.com' },
				]);
				const output = await run(parameters, batching, items);
				expect(jsonOf(output)).toEqual([
					{ deleted: true, ...a },
					{ deleted: true, ...b },
				]);
				expect(await jobsLeft()).toEqual([]);
			});
		});
	});

	it('a chain of 40 updates, each selecting by the email the item before it set: one by one’s outcome, and no read of every later item per item', async () => {
		const n = 40;
		const emailOf = (i: number) => `e${i}@example.com`;
		const parameters = byField('job', 'update', 'email', '={{ $json.from }}', {
			updateFields: { email: '={{ $json.to }}' },
		});
		const items = itemsOf(
			...Array.from({ length: n }, (_, i) => ({ from: emailOf(i), to: emailOf(i + 1) })),
		);
		const requests = await eachWay(async (batching) => {
			const [job] = await addJobs(service, [{ url: 'https://a.example.com', email: emailOf(0) }]);
			const since = service.emulator.log.length;
			const output = await run(parameters, batching, items);
			expect(jsonOf(output)).toEqual(items.map((_, i) => ({ ...job, email: emailOf(i + 1) })));
			expect(await jobsLeft()).toEqual([{ ...job, email: emailOf(n) }]);
			return restSince(service, since).length;
		});
		// Each item is its own wave (it selects by the column the one before set). Reads ahead
		// stop at twice the last wave: Automatic a read and a write per item; one by one the first
		// read of every item, then at most two reads and a write per item (before: every later
		// item read again after each write, 860 requests at 40 items).
		expect(requests.automatic).toBeLessThanOrEqual(2 * n);
		expect(requests.perItem).toBeLessThanOrEqual(n + 3 * n);
	});

	it('case 5: one record given different emails by several items: each output the value its write stored, the last one stays', async () => {
		const emails = ['x@example.com', 'y@example.com', 'x@example.com'];
		const parameters = byId('job', 'update', '={{ $json.id }}', {
			updateFields: { email: '={{ $json.email }}' },
		});
		await eachWay(async (batching) => {
			const [job] = await addJobs(service, sites(1));
			const items = itemsOf(...emails.map((email) => ({ id: job.id, email })));
			const output = await run(parameters, batching, items, CONTINUE);
			expect(jsonOf(output)).toEqual(emails.map((email) => ({ ...job, email })));
			expect(await jobsLeft()).toEqual([{ ...job, email: 'x@example.com' }]);
		});
	});

	it('case 6: a Select By value no URL can carry (a lone surrogate) is its item’s error, before any request', async () => {
		const emails = ['e0@example.com', 'e1@example.com', 'e2@example.com'];
		const parameters = byField('job', 'delete', 'email', '={{ $json.email }}');
		// Item 1's value: half an emoji (its high surrogate alone), which no URL can carry.
		const items = itemsOf(...emails.map((email, i) => ({ email: i === 1 ? 'e1\ud83d@x' : email })));
		const unsendable = /unpaired|cannot be sent/i;
		await eachWay(async (batching) => {
			const jobs = await addJobs(
				service,
				sites(3).map((site, i) => ({ ...site, email: emails[i] })),
			);
			const error = await fail(parameters, batching, items);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(unsendable);
			expect(itemIndexOf(error)).toBe(1);
			expect(restSince(service)).toEqual([]);
			expect(await jobsLeft()).toEqual(jobs);

			const output = await run(parameters, batching, items, CONTINUE);
			expect(output.map((item) => item.json.error ?? item.json)).toEqual([
				{ deleted: true, ...jobs[0] },
				expect.stringMatching(unsendable),
				{ deleted: true, ...jobs[2] },
			]);
			expect(await jobsLeft()).toEqual([jobs[1]]);
		});
	});

	it('case 7: Create with Wait for Completion, item 1’s export failing: the jobs of the items after it deleted again and named', async () => {
		const urls = [
			'https://a.example.com',
			'https://b.invalid',
			'https://c.example.com',
			'https://d.example.com',
		];
		const parameters: INodeParameters = {
			resource: 'job',
			operation: 'create',
			url: '={{ $json.url }}',
			email: 'me@example.com',
			waitForCompletion: true,
			timeout: 60,
			pollInterval: 1,
		};
		await eachWay(async (batching) => {
			service.emulator.settings.jobDurationMs = 300;
			const error = await fail(parameters, batching, itemsOf(...urls.map((url) => ({ url }))));
			const left = await jobsLeft();
			// As one by one: the jobs of items 0 and 1 only, the run stopped at item 1.
			expect(left.map((job) => job.url)).toEqual(urls.slice(0, 2));
			expect(error.message).toBe(`The export of job ${String(left[1].id)} failed`);
			expect(itemIndexOf(error)).toBe(1);
			expectUndone(batching, String(error.description), left);
		});
	});

	/**
	 * Case 7's description: the jobs created for the items after the failing one, deleted again,
	 * named by ID. One request per item may never have created them (then it sent no more creates).
	 */
	function expectUndone(batching: Batching, description: string, left: IDataObject[]) {
		const posts = restSince(service).filter((e) => e.method === 'POST' && e.table === 'jobs');
		if (batching === 'perItem' && !/deleted again/.test(description)) {
			expect(posts).toHaveLength(2);
			return;
		}
		const named = /items after it \(IDs ([\d, ]+)\) were deleted again/.exec(description);
		expect(named).not.toBeNull();
		const ids = (named as RegExpExecArray)[1].split(', ').map(Number);
		expect(ids).toHaveLength(2);
		for (const id of ids) expect(left.map((job) => job.id)).not.toContain(id);
	}

	it(
		'case 8: refused Option creates under Continue On Fail: at most Requests in Flight at once, each item as one by one',
		async () => {
			// Eleven chunks of 10 items: the sixth (item 50) and the last, of two (item 101), refused
			// and sent again one item at a time, while the chunks between them are in flight.
			const N = 102;
			const BAD = [50, 101];
			const parameters: INodeParameters = {
				resource: 'option',
				operation: 'create',
				mode: 'offline',
				additionalFields: { jobId: '={{ $json.jobId }}' },
				options: { requestsInFlight: 3, itemsPerRequest: 10 },
			};
			const outputs = await eachWay(async (batching) => {
				const [job] = await addJobs(service, sites(1));
				// A job that does not exist: its option is refused by the foreign key.
				const items = itemsOf(
					...Array.from({ length: N }, (_, i) => ({ jobId: BAD.includes(i) ? 999_999 : job.id })),
				);
				// A slow start: the first creates are held 300 ms, long enough to be seen side by side.
				service.emulator.fault({
					match: { method: 'POST', path: '/rest/v1/options' },
					delayMs: 300,
					times: 12,
				});
				const inFlight = trackInFlight(service.emulator);
				const output = await run(parameters, batching, items, CONTINUE).finally(inFlight.stop);
				expect(inFlight.max).toBeLessThanOrEqual(3);
				expect(
					output.map((item, i) => (BAD.includes(i) ? item.json.error : item.json.job_id)),
				).toEqual(
					items.map((_, i) => (BAD.includes(i) ? expect.stringMatching(/foreign key/) : job.id)),
				);
				const stored = (await service.emulator.rows('options')) as IDataObject[];
				expect(content(stored)).toEqual(content(jsonOf(output).filter((json) => !json.error)));
				// Automatic: the eleven chunks of Items per Request, then the refused two's 10 + 2 items.
				const posts = restSince(service).filter((e) => e.method === 'POST').length;
				expect(posts).toBe(batching === 'automatic' ? 11 + 10 + 2 : N);
				return content(jsonOf(output));
			});
			expect(outputs.automatic).toEqual(outputs.perItem);
		},
		LARGE,
	);

	it('case 9: Option creates of mixed shapes: created as one by one, with Automatic in one request', async () => {
		const modes = ['offline', 'relative', 'absolute'];
		const parameters: INodeParameters = {
			resource: 'option',
			operation: 'create',
			mode: '={{ $json.mode }}',
			relativePath: '={{ $json.path }}',
			replaceUrl: '={{ $json.replace }}',
			additionalFields: { jobId: '={{ $json.jobId }}' },
		};
		const outputs = await eachWay(async (batching) => {
			const [job] = await addJobs(service, sites(1));
			const shapes = Array.from({ length: 30 }, (_, i) => ({
				mode: modes[i % 3],
				path: `/p${i}`,
				replace: `https://mirror${i}.example.com`,
				...(i % 2 === 0 ? { jobId: job.id } : {}),
			}));
			const output = await run(parameters, batching, itemsOf(...shapes));
			// As one by one: each mode's own field, the table's defaults for the others.
			expect(content(jsonOf(output))).toEqual(
				shapes.map((shape) => ({
					job_id: shape.jobId ?? null,
					mode: shape.mode,
					relative_path: shape.mode === 'relative' ? shape.path : '/',
					replace_url: shape.mode === 'absolute' ? shape.replace : '',
				})),
			);
			const stored = (await service.emulator.rows('options')) as IDataObject[];
			expect(content(stored)).toEqual(content(jsonOf(output)));
			const posts = restSince(service).filter((e) => e.method === 'POST');
			expect(posts.filter((e) => e.status === 400)).toEqual([]);
			expect(posts).toHaveLength(batching === 'automatic' ? 1 : shapes.length);
			return content(jsonOf(output));
		});
		expect(outputs.automatic).toEqual(outputs.perItem);
	});

	it('case 10: Select By Created At is not offered for options, and refused before any request', async () => {
		const fields = new WebsiteExport().description.properties.filter(
			(property) =>
				property.name === 'selectField' &&
				property.displayOptions?.show?.resource?.includes('option'),
		);
		expect(fields.length).toBeGreaterThan(0);
		for (const field of fields)
			expect((field.options as Array<{ value: string }>).map((o) => o.value)).not.toContain(
				'created_at',
			);
		await eachWay(async (batching) => {
			const [option] = (await service.emulator.insert('options', [
				{ mode: 'offline' },
			])) as IDataObject[];
			for (const operation of ['get', 'delete']) {
				const parameters = byField('option', operation, 'created_at', String(option.created_at));
				const error = await fail(parameters, batching, itemsOf({}));
				expect(error).toBeInstanceOf(NodeOperationError);
				expect(itemIndexOf(error)).toBe(0);
			}
			expect(restSince(service)).toEqual([]);
			expect(await service.emulator.count('options')).toBe(1);
		});
	});
});
