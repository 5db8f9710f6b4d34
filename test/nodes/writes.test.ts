// Writes when the world is not ideal: a failing item stops the writes after it, answers get
// lost after the database committed, and the service may ignore `Prefer: return=representation`.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { trackInFlight } from '../concurrency/scenarios';
import { requestsSince, serviceEachTest } from '../support';
import { byId, itemsOf, runError, runJson, runNode } from './helpers';

/** Job → Create, one request per item: these are the per-item path's rules (batching.test.ts has the chunks'). */
const create = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'job',
	operation: 'create',
	url: '={{ $json.url }}',
	email: '={{ $json.email }}',
	...extra,
	options: { batching: 'perItem', ...(extra.options as INodeParameters) },
});

const sites = (n: number, email = 'me@example.com') =>
	itemsOf(...Array.from({ length: n }, (_, i) => ({ url: `https://site${i}.example.com`, email })));

/** An update or delete of the job with this ID (or expression). */
const jobById = (operation: 'update' | 'delete', recordId: string, parameters?: INodeParameters) =>
	byId('job', operation, recordId, parameters);

/** Gives the job with this ID a new email. */
const newEmail = (recordId: string) =>
	jobById('update', recordId, { updateFields: { email: 'new@example.com' } });

const POST_JOBS = { method: 'POST', path: '/rest/v1/jobs' };

describe('Website Export node: writes', () => {
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	const posts = () =>
		requestsSince(service.emulator).entries.filter((e) => e.kind === 'rest' && e.method === 'POST');
	const jobs = async () => (await service.emulator.rows('jobs')) as IDataObject[];
	const addJob = async (url = 'https://example.com') =>
		(
			(await service.emulator.insert('jobs', [{ url, email: 'me@example.com' }])) as IDataObject[]
		)[0];

	describe('a failing item stops the writes after it', () => {
		it('sends nothing after the item the service refused (10 creates, the 3rd refused)', async () => {
			// The 3rd POST is refused by the service (an invalid email it would not take).
			service.emulator.fault({ match: POST_JOBS, times: 2 }); // no status: passes through
			service.emulator.fault({
				match: POST_JOBS,
				status: 400,
				body: {
					code: '23514',
					details: null,
					hint: null,
					message: 'new row violates check constraint "email"',
				},
			});
			const inFlight = trackInFlight(service.emulator);
			const error = await runError(service, create(), { items: sites(10) });
			inFlight.stop();
			expect(error).toBeInstanceOf(NodeApiError);
			expect((error as unknown as NodeApiError).context.itemIndex).toBe(2);
			expect(posts()).toHaveLength(3);
			expect((await jobs()).map((job) => job.url)).toEqual([
				'https://site0.example.com',
				'https://site1.example.com',
			]);
			expect(inFlight.max).toBe(1);
		});

		it('sends nothing at all when the very first create is refused', async () => {
			service.emulator.fault({ match: POST_JOBS, status: 400 });
			await runError(service, create(), { items: sites(8) });
			expect(posts()).toHaveLength(1);
			expect(await jobs()).toEqual([]);
		});

		it('applies to update and delete too', async () => {
			const stored = (await service.emulator.insert(
				'jobs',
				sites(6).map((item) => item.json),
			)) as IDataObject[];
			const ids = itemsOf(...stored.map((job) => ({ id: job.id })));
			service.emulator.fault({ match: { method: 'PATCH', path: '/rest/v1/jobs' }, times: 1 });
			service.emulator.fault({ match: { method: 'PATCH', path: '/rest/v1/jobs' }, status: 409 });
			await runError(
				service,
				jobById('update', '={{ $json.id }}', {
					updateFields: { status: 'finished' },
					options: { batching: 'perItem' },
				}),
				{ items: ids },
			);
			expect((await jobs()).map((job) => job.status)).toEqual([
				'finished',
				'queued',
				'queued',
				'queued',
				'queued',
				'queued',
			]);
			expect(
				requestsSince(service.emulator).entries.filter((e) => e.method === 'PATCH'),
			).toHaveLength(2);

			service.emulator.clearLog();
			service.emulator.fault({ match: { method: 'DELETE', path: '/rest/v1/jobs' }, status: 409 });
			await runError(
				service,
				{
					resource: 'job',
					operation: 'delete',
					selectBy: 'id',
					recordId: '={{ $json.id }}',
					options: { batching: 'perItem' },
				},
				{ items: ids },
			);
			expect(
				requestsSince(service.emulator).entries.filter((e) => e.method === 'DELETE'),
			).toHaveLength(1);
			expect(await jobs()).toHaveLength(6);
		});

		it('with Continue On Fail, writes go side by side and every other item is written', async () => {
			service.emulator.fault({ match: POST_JOBS, times: 2, delayMs: 50 });
			service.emulator.fault({ match: POST_JOBS, status: 400, delayMs: 50 });
			service.emulator.fault({ match: POST_JOBS, times: 7, delayMs: 50 });
			const inFlight = trackInFlight(service.emulator);
			const output = await runJson(service, create(), {
				items: sites(10),
				onError: 'continueRegularOutput',
			});
			inFlight.stop();
			expect(inFlight.max).toBeGreaterThan(1);
			expect(output.filter((json) => json.error !== undefined)).toHaveLength(1);
			expect(await jobs()).toHaveLength(9);
		});

		it('with Requests in Flight set by the user, still nothing is sent after the failing item', async () => {
			service.emulator.fault({ match: POST_JOBS, times: 2, delayMs: 50 });
			service.emulator.fault({ match: POST_JOBS, status: 400, delayMs: 50 });
			service.emulator.fault({ match: POST_JOBS, times: 20, delayMs: 50 });
			const error = await runError(service, create({ options: { requestsInFlight: 4 } }), {
				items: sites(12),
			});
			expect((error as unknown as NodeApiError).context.itemIndex).toBe(2);
			expect(posts()).toHaveLength(3);
			expect(await jobs()).toHaveLength(2);
		});

		it('reads keep their concurrency by default, one request per item', async () => {
			const stored = (await service.emulator.insert(
				'jobs',
				sites(12).map((item) => item.json),
			)) as IDataObject[];
			service.emulator.fault({
				match: { method: 'GET', path: '/rest/v1/jobs' },
				times: 12,
				delayMs: 30,
			});
			const inFlight = trackInFlight(service.emulator);
			await runNode(
				service,
				{
					resource: 'job',
					operation: 'get',
					selectBy: 'id',
					recordId: '={{ $json.id }}',
					options: { batching: 'perItem' },
				},
				{ items: itemsOf(...stored.map((job) => ({ id: job.id }))) },
			);
			inFlight.stop();
			expect(inFlight.max).toBe(8);
		});
	});

	describe('a write whose answer was lost', () => {
		it.each([
			['a 503 after the commit', { status: 503, applyAfterHandling: true }],
			['a connection reset after the commit', { reset: true, applyAfterHandling: true }],
		])('delete: retried after %s, reports the job deleted', async (_, fault) => {
			const stored = await addJob();
			// Known to return rows: the DELETE is the first request of this item.
			const other = await addJob('https://other.example.com');
			await runNode(service, jobById('delete', '={{ $json.id }}'), {
				items: itemsOf({ id: other.id }),
			});
			service.emulator.fault({ match: { method: 'DELETE', path: '/rest/v1/jobs' }, ...fault });
			const [output] = await runJson(service, jobById('delete', String(stored.id)));
			expect(output).toMatchObject({ deleted: true, id: stored.id });
			expect(await jobs()).toEqual([]);
		});

		it('update: retried after a 502 after the commit, returns the record with the new values', async () => {
			const stored = await addJob();
			service.emulator.fault({
				match: { method: 'PATCH', path: '/rest/v1/jobs' },
				status: 502,
				applyAfterHandling: true,
			});
			const [output] = await runJson(service, newEmail(String(stored.id)));
			expect(output).toMatchObject({ id: stored.id, email: 'new@example.com' });
			expect(
				requestsSince(service.emulator).entries.filter((e) => e.method === 'PATCH'),
			).toHaveLength(2);
		});

		it.each([
			['a 502 after the commit', { status: 502, applyAfterHandling: true }],
			['a connection reset after the commit', { reset: true, applyAfterHandling: true }],
		])(
			'create: after %s, the job is found and returned as recovered, never created twice',
			async (_, fault) => {
				service.emulator.fault({ match: POST_JOBS, times: 1 }); // the first item goes through
				service.emulator.fault({ match: POST_JOBS, ...fault });
				// Both items create the same URL and email: the lookup must not hand out the first job again.
				const output = await runJson(service, create(), {
					items: itemsOf(
						{ url: 'https://example.com', email: 'me@example.com' },
						{ url: 'https://example.com', email: 'me@example.com' },
					),
				});
				expect(posts()).toHaveLength(2);
				expect(await jobs()).toHaveLength(2);
				expect(output[0].recovered).toBeUndefined();
				expect(output[1]).toMatchObject({ recovered: true, url: 'https://example.com' });
				expect(output[1].id).not.toBe(output[0].id);
			},
		);

		it('create: when nothing was created, the item fails saying the job may exist and where to look', async () => {
			service.emulator.fault({ match: POST_JOBS, status: 503 });
			const error = await runError(service, create(), { items: sites(1) });
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.description).toContain(
				'The service did not answer, and it may have created the job.',
			);
			expect(error.description).toContain(
				'Job → Get Many with the filters URL "https://site0.example.com" and Email "me@example.com"',
			);
			expect(posts()).toHaveLength(1);
		});
	});

	describe('a service that ignores Prefer (201 and 204 without a body, as the spec shows)', () => {
		beforeEach(() => {
			service.emulator.settings.ignorePrefer = true;
		});

		it('create returns the job as stored, with its option', async () => {
			const [output] = await runJson(service, create({ optionMode: 'offline' }), {
				items: sites(1),
			});
			const [stored] = await jobs();
			expect(output).toMatchObject({
				...stored,
				option: expect.objectContaining({ job_id: stored.id, mode: 'offline' }),
			});
			expect(output.recovered).toBeUndefined();
		});

		it('update returns the record with the new values; a missing record is "not found"', async () => {
			const stored = await addJob();
			const [output] = await runJson(service, newEmail(String(stored.id)));
			expect(output).toMatchObject({ id: stored.id, email: 'new@example.com' });
			const error = await runError(service, newEmail('4242'));
			expect(error.message).toBe('No job with ID 4242 was found');
		});

		it('delete returns the deleted record; a missing record is "not found", without a DELETE', async () => {
			const stored = (await service.emulator.insert(
				'jobs',
				sites(2).map((item) => item.json),
			)) as IDataObject[];
			const output = await runJson(service, jobById('delete', '={{ $json.id }}'), {
				items: itemsOf(...stored.map((job) => ({ id: job.id }))),
			});
			expect(output).toEqual(stored.map((job) => ({ deleted: true, ...job })));
			expect(await jobs()).toEqual([]);
			service.emulator.clearLog();
			const error = await runError(service, jobById('delete', '4242'));
			expect(error.message).toBe('No job with ID 4242 was found');
			expect(
				requestsSince(service.emulator).entries.filter((e) => e.method === 'DELETE'),
			).toHaveLength(0);
		});

		it('option create returns the option as stored', async () => {
			const [output] = await runJson(service, {
				resource: 'option',
				operation: 'create',
				mode: 'relative',
				relativePath: '/docs/',
			});
			expect(output).toEqual((await service.emulator.rows('options'))[0]);
		});
	});
});
