import { DateTime } from 'luxon';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { getGlobalState, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { waitFor } from '../../stack/n8n/process';
import { requestsSince, serviceEachTest } from '../support';
import { byId, expectServiceError, itemsOf, runError, runJson, runNode } from './helpers';
import { badIdCases, itRejectsInput, type InputErrorCase } from './inputErrors';

const job = (operation: string, parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'job',
	operation,
	...parameters,
});

/** The operation on the job with this ID (or expression). */
const jobById = (operation: string, recordId: string | number, parameters: INodeParameters = {}) =>
	byId('job', operation, recordId, parameters);

const HOUR = 3_600_000;

describe('Website Export node: Job resource', () => {
	const service = serviceEachTest();

	const addJobs = async (...rows: IDataObject[]) =>
		(await service.emulator.insert('jobs', rows)) as IDataObject[];
	const addJobsAAndB = () =>
		addJobs(
			{ url: 'https://a.example.com', email: 'a@example.com' },
			{ url: 'https://b.example.com', email: 'b@example.com' },
		);
	const restCalls = () =>
		requestsSince(service.emulator)
			.entries.filter((e) => e.kind === 'rest')
			.map((e) => `${e.method} ${e.table}`);

	describe('create', () => {
		it('creates a job', async () => {
			const [created] = await runJson(
				service,
				job('create', { url: 'https://example.com/', email: 'me@example.com' }),
			);
			expect(created).toMatchObject({
				url: 'https://example.com/',
				email: 'me@example.com',
				status: 'queued',
			});
			expect(created).not.toHaveProperty('option');
			expect(await service.emulator.rows('jobs')).toEqual([
				expect.objectContaining({ id: created.id }),
			]);
			expect(restCalls()).toEqual(['POST jobs']);
		});

		it.each([
			['offline', {}, { mode: 'offline' }],
			['relative', { optionRelativePath: '/docs/' }, { mode: 'relative', relative_path: '/docs/' }],
			[
				'absolute',
				{ optionReplaceUrl: 'https://mirror.example.com' },
				{ mode: 'absolute', replace_url: 'https://mirror.example.com' },
			],
		])(
			'creates the job with an %s export option in the same step',
			async (mode, fields, expected) => {
				const [created] = await runJson(
					service,
					job('create', {
						url: 'https://example.com',
						email: 'me@example.com',
						optionMode: mode,
						...fields,
					}),
				);
				expect(restCalls()).toEqual(['POST jobs', 'POST options']);
				expect(created.option).toMatchObject({ ...expected, job_id: created.id });
				expect(await service.emulator.rows('options')).toEqual([created.option]);
			},
		);

		it('says the job exists when its option is refused', async () => {
			service.emulator.fault({ match: { method: 'POST', path: '/rest/v1/options' }, status: 400 });
			const error = await runError(
				service,
				job('create', {
					url: 'https://example.com',
					email: 'me@example.com',
					optionMode: 'offline',
				}),
			);
			expect(error).toBeInstanceOf(NodeApiError);
			const [stored] = (await service.emulator.rows('jobs')) as IDataObject[];
			expect(error.description).toContain(`The job itself was created (ID ${stored.id})`);
		});
	});

	describe('create with Wait for Completion', () => {
		const waiting = (parameters: INodeParameters) =>
			job('create', {
				email: 'me@example.com',
				waitForCompletion: true,
				timeout: 5,
				pollInterval: 1,
				...parameters,
			});

		it('waits for a download row that the service writes a moment after the job finished', async () => {
			service.emulator.settings.jobDurationMs = 1;
			service.emulator.settings.downloadDelayMs = 1_500;
			const [done] = await runJson(service, waiting({ url: 'https://example.com' }));
			expect(done.status).toBe('finished');
			expect(done.download).toMatchObject({ job_id: done.id, is_expired: false });
		});

		it('outputs the finished job with its download', async () => {
			service.emulator.settings.jobDurationMs = 1;
			const [done] = await runJson(
				service,
				waiting({ url: 'https://example.com', optionMode: 'offline' }),
			);
			expect(done).toMatchObject({
				status: 'finished',
				url: 'https://example.com',
				option: { mode: 'offline', job_id: done.id },
			});
			expect(done.files).toBeGreaterThan(0);
			const [stored] = (await service.emulator.rows('downloads')) as IDataObject[];
			expect(done.download).toEqual({
				...stored,
				job_id: done.id,
				expires_at: expect.any(String),
				is_expired: false,
			});
			expect(
				Date.parse((done.download as IDataObject).expires_at as string) -
					Date.parse(stored.created_at as string),
			).toBe(24 * HOUR);
			expect(restCalls()).toEqual(['POST jobs', 'POST options', 'GET jobs', 'GET downloads']);
		});

		it('fails with a NodeApiError when the export failed', async () => {
			service.emulator.settings.jobDurationMs = 1;
			const error = await runError(service, waiting({ url: 'https://unreachable.invalid' }));
			const [stored] = (await service.emulator.rows('jobs')) as IDataObject[];
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toBe(`The export of job ${stored.id} failed`);
			expect(error.description).toContain('https://unreachable.invalid');
		});

		it('gives up at the timeout with the job ID and its last status', async () => {
			service.emulator.settings.jobDurationMs = HOUR;
			const run = runError(service, waiting({ url: 'https://example.com', timeout: 1 }));
			// Once the job exists, 30 emulated minutes pass: it is running, far from done.
			await waitFor(async () => (await service.emulator.count('jobs')) === 1, {
				timeoutMs: 2000,
				intervalMs: 5,
				failure: () => new Error('the job was not created within 2 s'),
			});
			await service.emulator.clock.advance(HOUR / 2);
			const error = await run;
			const [stored] = (await service.emulator.rows('jobs')) as IDataObject[];
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe(`Job ${stored.id} is still running after 1 s`);
			expect(error.description).toContain(
				`Use Job → Get with ID ${stored.id}, or Download → Get Many with Job ID ${stored.id}, later`,
			);
			expect((error as unknown as NodeOperationError).context.itemIndex).toBe(0);
		});

		it('waits for several items side by side, one request per item; continueOnFail keeps the failed one as an error item', async () => {
			service.emulator.settings.jobDurationMs = 1;
			const output = await runNode(
				service,
				{
					...waiting({ url: '={{ $json.url }}' }),
					options: { requestsInFlight: 3, batching: 'perItem' },
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
			expect(output.map((item) => item.pairedItem)).toEqual([
				{ item: 0 },
				{ item: 1 },
				{ item: 2 },
			]);
			expect(output[0].json).toMatchObject({
				url: 'https://one.example.com',
				status: 'finished',
				download: expect.any(Object),
			});
			expect(output[1].json.error).toMatch(/^The export of job \d+ failed$/);
			expect(output[2].json).toMatchObject({
				url: 'https://three.example.com',
				status: 'finished',
				download: expect.any(Object),
			});
			// All three jobs were created before the first status check: nobody waited in line.
			expect(restCalls().slice(0, 3)).toEqual(['POST jobs', 'POST jobs', 'POST jobs']);
		});
	});

	describe('get', () => {
		it('gets a job by ID and by URL', async () => {
			const [first, second] = await addJobsAAndB();
			expect(await runJson(service, jobById('get', String(first.id)))).toEqual([first]);
			expect(
				await runJson(
					service,
					job('get', {
						selectBy: 'field',
						selectField: 'url',
						selectValue: 'https://b.example.com',
					}),
				),
			).toEqual([second]);
		});

		it('refuses an email shared by several jobs, and says when a job does not exist', async () => {
			await addJobs(
				{ url: 'https://a.example.com', email: 'same@example.com' },
				{ url: 'https://b.example.com', email: 'same@example.com' },
			);
			await expectServiceError(
				service,
				job('get', { selectBy: 'field', selectField: 'email', selectValue: 'same@example.com' }),
				'2 records match the job with email "same@example.com"',
			);
			await expectServiceError(service, jobById('get', '4242'), 'No job with ID 4242 was found');
		});

		it('sends one request per item (Batching: One Request per Item) and logs in at most once', async () => {
			// A little latency, so that the items really overlap.
			service.emulator.settings.latencyMs = 20;
			const stored = await addJobs(
				...Array.from({ length: 6 }, (_, i) => ({
					url: `https://site${i}.example.com`,
					email: 'a@example.com',
				})),
			);
			const output = await runJson(
				service,
				{
					...jobById('get', '={{ $json.id }}'),
					options: { requestsInFlight: 4, batching: 'perItem' },
				},
				{
					items: itemsOf(...stored.map(({ id }) => ({ id }))),
				},
			);
			expect(output.map((j) => j.id)).toEqual(stored.map((j) => j.id));
			const requests = requestsSince(service.emulator);
			expect(requests.rest).toBe(6);
			expect(requests.token).toBeLessThanOrEqual(1);
		});
	});

	describe('getAll', () => {
		const T0 = Date.parse('2026-03-01T00:00:00Z');
		let early: IDataObject;
		let middle: IDataObject;
		let late: IDataObject;

		beforeEach(async () => {
			// Jobs created an hour apart on the emulator clock; the two older ones have finished by now.
			await service.emulator.clock.set(T0);
			[early] = await addJobs({ url: 'https://a.example.com', email: 'a@example.com' });
			await service.emulator.clock.advance(HOUR);
			[middle] = await addJobs({ url: 'https://b.example.com', email: 'b@example.com' });
			await service.emulator.clock.advance(HOUR);
			[late] = await addJobs({ url: 'https://a.example.com', email: 'b@example.com' });
		});
		const ids = (rows: IDataObject[]) => rows.map((row) => row.id);
		const lastQuery = () => decodeURIComponent(service.emulator.log.at(-1)?.query ?? '');

		it('returns the newest first by default, or the oldest first', async () => {
			expect(ids(await runJson(service, job('getAll', { returnAll: true })))).toEqual(
				ids([late, middle, early]),
			);
			expect(
				ids(await runJson(service, job('getAll', { returnAll: true, sort: 'oldest' }))),
			).toEqual(ids([early, middle, late]));
			expect(
				ids(await runJson(service, job('getAll', { returnAll: false, limit: 2, sort: 'newest' }))),
			).toEqual(ids([late, middle]));
		});

		it('breaks ties between jobs created in the same instant by ID', async () => {
			const at = new Date(T0 + 3 * HOUR).toISOString();
			const [x, y] = await addJobs(
				{ url: 'https://x.example.com', email: 'x@example.com', created_at: at },
				{ url: 'https://y.example.com', email: 'x@example.com', created_at: at },
			);
			const filters = { email: 'x@example.com' };
			expect(ids(await runJson(service, job('getAll', { returnAll: true, filters })))).toEqual(
				ids([y, x]),
			);
			expect(lastQuery()).toContain('order=created_at.desc,id.desc');
			expect(
				ids(await runJson(service, job('getAll', { returnAll: true, filters, sort: 'oldest' }))),
			).toEqual(ids([x, y]));
			expect(lastQuery()).toContain('order=created_at.asc,id.asc');
		});

		it('filters by status, URL and email', async () => {
			const finished = await runJson(
				service,
				job('getAll', { returnAll: true, filters: { status: 'finished' } }),
			);
			expect(finished.map((j) => [j.id, j.status])).toEqual([
				[middle.id, 'finished'],
				[early.id, 'finished'],
			]);
			expect(
				ids(
					await runJson(service, job('getAll', { returnAll: true, filters: { status: 'queued' } })),
				),
			).toEqual(ids([late]));
			expect(
				ids(
					await runJson(
						service,
						job('getAll', { returnAll: true, filters: { url: 'https://a.example.com' } }),
					),
				),
			).toEqual(ids([late, early]));
			expect(
				ids(
					await runJson(
						service,
						job('getAll', {
							returnAll: true,
							filters: { url: 'https://a.example.com', email: 'b@example.com' },
						}),
					),
				),
			).toEqual(ids([late]));
		});

		it('filters by creation time: Created After includes the moment, Created Before excludes it', async () => {
			const filters = {
				createdAfter: new Date(T0 + HOUR).toISOString(),
				createdBefore: new Date(T0 + 2 * HOUR).toISOString(),
			};
			expect(ids(await runJson(service, job('getAll', { returnAll: true, filters })))).toEqual(
				ids([middle]),
			);
			const after = await runJson(
				service,
				job('getAll', { returnAll: true, filters: { createdAfter: '2026-03-01T00:30:00+00:00' } }),
			);
			expect(ids(after)).toEqual(ids([late, middle]));
			expect(lastQuery()).toContain('created_at=gte.2026-03-01T00:30:00.000Z');
		});

		it("reads a date without an offset in the workflow's time zone", async () => {
			const zone = getGlobalState().defaultTimezone;
			const local = DateTime.fromMillis(T0 + HOUR, { zone }).toFormat("yyyy-LL-dd'T'HH:mm:ss");
			expect(
				ids(
					await runJson(
						service,
						job('getAll', { returnAll: true, filters: { createdBefore: local } }),
					),
				),
			).toEqual(ids([early]));
		});
	});

	describe('update', () => {
		it('updates URL, email and status of a job and returns it', async () => {
			const [stored] = await addJobs({ url: 'https://a.example.com', email: 'a@example.com' });
			const [updated] = await runJson(
				service,
				jobById('update', String(stored.id), {
					updateFields: {
						url: 'https://new.example.com',
						email: 'new@example.com',
						status: 'finished',
					},
				}),
			);
			expect(updated).toEqual({
				...stored,
				url: 'https://new.example.com',
				email: 'new@example.com',
				status: 'finished',
			});
			// Read first: a missing record is known before anything is written, however many items.
			expect(restCalls()).toEqual(['GET jobs', 'PATCH jobs']);
		});

		it('says when the job does not exist', async () => {
			await expectServiceError(
				service,
				jobById('update', '4242', { updateFields: { status: 'failed' } }),
				'No job with ID 4242 was found',
			);
		});

		it('updates a job selected by its email', async () => {
			const [, stored] = await addJobsAAndB();
			const [updated] = await runJson(
				service,
				job('update', {
					selectBy: 'field',
					selectField: 'email',
					selectValue: 'b@example.com',
					updateFields: { status: 'failed' },
				}),
			);
			expect(updated).toMatchObject({ id: stored.id, status: 'failed' });
			expect(restCalls()).toEqual(['GET jobs', 'PATCH jobs']);
		});
	});

	describe('delete', () => {
		it('deletes a job and outputs it', async () => {
			const [stored, kept] = await addJobsAAndB();
			expect(await runJson(service, jobById('delete', String(stored.id)))).toEqual([
				{ deleted: true, ...stored },
			]);
			expect(await service.emulator.rows('jobs')).toEqual([kept]);
		});

		it('says when the job does not exist', async () => {
			await expectServiceError(
				service,
				job('delete', {
					selectBy: 'field',
					selectField: 'url',
					selectValue: 'https://none.example.com',
				}),
				'No job with url "https://none.example.com" was found',
			);
			expect(restCalls()).toEqual(['GET jobs']);
		});
	});

	describe('validation, before any request', () => {
		const create = (parameters: INodeParameters) =>
			job('create', { url: 'https://example.com', email: 'me@example.com', ...parameters });
		const update = (updateFields: INodeParameters) => jobById('update', '1', { updateFields });
		const NOT_AN_ADDRESS = 'URL must be a full http:// or https:// address';
		const cases: InputErrorCase[] = [
			['an empty URL', create({ url: '' }), 'URL is required'],
			['a URL without http(s)', create({ url: 'ftp://example.com' }), NOT_AN_ADDRESS],
			['a URL that is no address', create({ url: 'example' }), NOT_AN_ADDRESS],
			['an empty email', create({ email: ' ' }), 'Email is required'],
			['a bad email', create({ email: 'me-at-example.com' }), 'Email must be an email address'],
			[
				'a relative option without a path',
				create({ optionMode: 'relative', optionRelativePath: '' }),
				'Relative Path is required when the mode is Relative',
			],
			[
				'an absolute option without a Replace URL',
				create({ optionMode: 'absolute' }),
				'Replace URL is required',
			],
			[
				'an absolute option with a bad Replace URL',
				create({ optionMode: 'absolute', optionReplaceUrl: 'mirror' }),
				'Replace URL must be a full http:// or https:// address',
			],
			[
				'a timeout of 0',
				create({ waitForCompletion: true, timeout: 0 }),
				'Timeout (Seconds) must be at least 1',
			],
			[
				'a timeout over a day',
				create({ waitForCompletion: true, timeout: 86401 }),
				'Timeout (Seconds) must be at most 86400',
			],
			[
				'a check interval of 0',
				create({ waitForCompletion: true, pollInterval: 0 }),
				'Check Every (Seconds) must be at least 1',
			],
			...badIdCases('Job ID', {
				get: (bad) => jobById('get', bad),
				update: (bad) => jobById('update', bad, { updateFields: { status: 'failed' } }),
				delete: (bad) => jobById('delete', bad),
			}),
			[
				'update without fields',
				update({}),
				'Nothing to update: add at least one field under Update Fields',
			],
			['update to a bad URL', update({ url: 'example' }), NOT_AN_ADDRESS],
			['update to a bad email', update({ email: 'nobody' }), 'Email must be an email address'],
			[
				'update to an unknown status',
				update({ status: 'done' }),
				'Status must be one of queued, running, finished, failed',
			],
			[
				'getAll with an unknown status',
				job('getAll', { returnAll: true, filters: { status: 'done' } }),
				'Status must be one of queued, running, finished, failed',
			],
			[
				'getAll with a bad date',
				job('getAll', { returnAll: true, filters: { createdAfter: 'yesterday' } }),
				'Created After must be a date and time',
			],
			[
				'getAll with Created After not before Created Before',
				job('getAll', {
					returnAll: true,
					filters: { createdAfter: '2026-03-02T00:00:00Z', createdBefore: '2026-03-01T00:00:00Z' },
				}),
				'Created After must be earlier than Created Before',
			],
			[
				'getAll with a limit of 0',
				job('getAll', { returnAll: false, limit: 0 }),
				'Limit must be at least 1',
			],
		];

		itRejectsInput(cases, () => service);

		it('names the second item when it is the bad one, and sends nothing for any item', async () => {
			const error = await runError(
				service,
				job('create', { url: '={{ $json.url }}', email: 'me@example.com', optionMode: 'offline' }),
				{
					items: itemsOf({ url: 'https://example.com' }, { url: 'example.com' }),
				},
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.description).toBe(
				'URL must be a full http:// or https:// address, e.g. https://example.com [item 1]',
			);
			expect((error as unknown as NodeOperationError).context.itemIndex).toBe(1);
			expect(restCalls()).toEqual([]);
		});
	});
});
