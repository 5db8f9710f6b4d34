// Options → Timeout, and what a request the service carries out after the node gave up does: the
// emulator holds a request (delayMs) past the Timeout, then carries it out all the same.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node';
import { serviceEachTest } from '../support';
import {
	addJobs,
	BATCHINGS,
	byId,
	itemIndexOf,
	itemsOf,
	restSince,
	runError,
	runJson,
	runNode,
	sites,
	withBatching,
	type Batching,
} from './helpers';

/** Options → Timeout in these tests: 1 s instead of the default 60 s. */
const TIMEOUT_MS = 1000;
/**
 * How long the emulator holds a request that the service carries out after the node gave up: the
 * node's timer (started first, due first) always fires before the emulator's in this one process.
 */
const HELD_MS = 1100;

const GET_JOBS = { method: 'GET', path: '/rest/v1/jobs' };
const PATCH_JOBS = { method: 'PATCH', path: '/rest/v1/jobs' };
const POST_JOBS = { method: 'POST', path: '/rest/v1/jobs' };

/** The parameters with Options → Timeout and Batching set. */
const withTimeout = (parameters: INodeParameters, batching: Batching = 'automatic') =>
	withBatching({ ...parameters, options: { timeout: TIMEOUT_MS } }, batching);

describe('Website Export node: Options → Timeout', () => {
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	const jobs = async () => (await service.emulator.rows('jobs')) as IDataObject[];
	const methods = (since: number, method: string) =>
		restSince(service, since).filter((entry) => entry.method === method);
	/** Waits (up to 10 s) until `done` holds: a held request lands once its hold is over. */
	const eventually = async (done: () => Promise<boolean>) => {
		for (let tries = 0; tries < 100 && !(await done()); tries++) await sleep(100);
		expect(await done()).toBe(true);
	};

	it('bounds every read: a read held past it is sent again, and answered', async () => {
		const [job] = await addJobs(service, sites(1));
		service.emulator.fault({ match: GET_JOBS, delayMs: HELD_MS, times: 1 });
		const output = await runJson(service, withTimeout(byId('job', 'get', String(job.id))));
		expect(output).toMatchObject([{ id: job.id }]);
		// With the default 60 s, the first read would have been answered: one GET.
		expect(methods(0, 'GET')).toHaveLength(2);
	});

	it('says a read got no answer within the Timeout once every attempt timed out', async () => {
		const [job] = await addJobs(service, sites(1));
		service.emulator.fault({ match: GET_JOBS, delayMs: HELD_MS, times: 4 });
		const error = await runError(service, withTimeout(byId('job', 'get', String(job.id))));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('The service did not answer within 1000 ms (Options → Timeout)');
		expect(error.description).toContain('Gave up after 4 attempts.');
		expect(error.description).toContain('raise Options → Timeout');
	});

	it("bounds the trigger's requests too", async () => {
		service.emulator.fault({ match: { method: 'GET' }, delayMs: HELD_MS, times: 1 });
		const parameters = { event: 'downloadReady', options: { timeout: TIMEOUT_MS } };
		await service.harness.poll(new WebsiteExportTrigger(), { parameters });
		expect(methods(0, 'GET').map((entry) => entry.table)).toEqual(['downloads', 'downloads']);
	});

	it('bounds the archive download too (its storage held once: asked for twice)', async () => {
		const [job] = await addJobs(service, sites(1));
		const [download] = (await service.emulator.insert('downloads', [
			{ job_id: job.id },
		])) as IDataObject[];
		const storage = { method: 'GET', path: /^\/storage\/v1\// };
		service.emulator.fault({ match: storage, delayMs: HELD_MS, times: 1 });
		const parameters = withTimeout({
			resource: 'download',
			operation: 'downloadArchive',
			downloadBy: 'id',
			// An ID in a form the service reads: Download Archive reads IDs by the one rule too.
			downloadId: `0x${Number(download.id).toString(16)}`,
			binaryPropertyName: 'data',
		});
		const [item] = await runNode(service, parameters);
		expect(item.json).toMatchObject({ id: download.id });
		expect(item.binary?.data).toBeDefined();
		const archives = service.emulator.log.filter((entry) => entry.kind === 'archive');
		expect(archives).toHaveLength(2);
	});

	describe('an update the service carries out after the node gave up (issue 47 item 4)', () => {
		/** Two items on one job: status `running`, then `failed`; the first PATCH held too long. */
		const twoUpdates = async (batching: Batching) => {
			const [job] = await addJobs(service, sites(1));
			// Held long enough for item 1's read and write (after item 0 failed) to come first.
			service.emulator.fault({ match: PATCH_JOBS, delayMs: 3 * TIMEOUT_MS, times: 1 });
			const update = byId('job', 'update', String(job.id), {
				updateFields: { status: '={{ $json.status }}' },
			});
			const items = itemsOf({ status: 'running' }, { status: 'failed' });
			return { job, parameters: withTimeout(update, batching), items };
		};

		it.each(BATCHINGS)(
			'is not sent again, fails its item saying so, and stops the run (%s)',
			async (batching) => {
				const { job, parameters, items } = await twoUpdates(batching);
				const error = await runError(service, parameters, { items });
				expect(error).toBeInstanceOf(NodeApiError);
				expect(itemIndexOf(error)).toBe(0);
				expect(error.message).toBe('The service did not answer within 1000 ms (Options → Timeout)');
				expect(error.description).toContain(
					'The service may still carry out this update later, even after the writes of later items, and so undo them; for that reason it was not sent again.',
				);
				// One PATCH: neither sent again nor item 1's; the held one lands all the same.
				expect(methods(0, 'PATCH')).toHaveLength(1);
				await eventually(async () => (await jobs())[0].status === 'running');
				expect(await jobs()).toMatchObject([{ id: job.id, status: 'running' }]);
			},
		);

		it.each(BATCHINGS)(
			'with Continue On Fail, can undo a later item: its error says so (%s)',
			async (batching) => {
				const { parameters, items } = await twoUpdates(batching);
				const output = await runJson(service, parameters, {
					items,
					onError: 'continueRegularOutput',
				});
				expect(output[0].error).toBe(
					'The service did not answer within 1000 ms (Options → Timeout)',
				);
				expect(output[0].details).toContain('even after the writes of later items');
				expect(output[1]).toMatchObject({ status: 'failed' });
				// What the README warns of: item 1 said `failed`, item 0's late update lands after it.
				await eventually(async () => (await jobs())[0].status === 'running');
				expect(methods(0, 'PATCH')).toHaveLength(2);
			},
		);
	});

	describe('a create the service carries out after the node gave up (issue 47 item 5)', () => {
		const create = (batching: Batching) =>
			withTimeout(
				{
					resource: 'job',
					operation: 'create',
					url: '={{ $json.url }}',
					email: '={{ $json.email }}',
				},
				batching,
			);

		it.each(BATCHINGS)(
			'is found by a lookup that waits as long as the Timeout once: 5 items, 5 jobs (%s)',
			async (batching) => {
				service.emulator.fault({ match: POST_JOBS, delayMs: HELD_MS, times: 1 });
				const output = await runJson(service, create(batching), { items: itemsOf(...sites(5)) });
				const stored = await jobs();
				expect(stored).toHaveLength(5);
				expect(output.map((json) => json.id)).toEqual(stored.map((job) => job.id));
				// The held POST: all 5 items grouped, or item 0 alone.
				const held = batching === 'automatic' ? 5 : 1;
				expect(output.map((json) => json.recovered === true)).toEqual(
					[0, 1, 2, 3, 4].map((index) => index < held),
				);
				expect(methods(0, 'POST')).toHaveLength(batching === 'automatic' ? 1 : 5);
			},
		);

		it.each(BATCHINGS)(
			'not found yet: says what was seen and which values to look for, never a guess (%s)',
			async (batching) => {
				// Held past the Timeout and the lookup's wait: carried out after the item failed.
				service.emulator.fault({ match: POST_JOBS, delayMs: 4 * TIMEOUT_MS, times: 1 });
				const items = itemsOf(...sites(2));
				const error = await runError(service, create(batching), { items });
				expect(error).toBeInstanceOf(NodeApiError);
				expect(itemIndexOf(error)).toBe(0);
				expect(error.message).toBe('The service did not answer within 1000 ms (Options → Timeout)');
				expect(error.description).toContain(
					'Not found yet: no job with these values was created between the request and the lookup 1000 ms after the node stopped waiting.',
				);
				expect(error.description).toContain(
					'Look for it with Job → Get Many with the filters URL "https://site0.example.com" and Email "a@example.com" before running this item again.',
				);
				expect(error.description).not.toMatch(/most likely/);
				// The service does create it, after the item failed.
				await eventually(async () => (await jobs()).length > 0);
				const late = (await jobs()).map((job) => job.url);
				expect(late).toEqual(sites(batching === 'automatic' ? 2 : 1).map((site) => site.url));
			},
		);

		it('names the values to look for an option by: its Job ID and Mode', async () => {
			const [job] = await addJobs(service, sites(1));
			const held = { method: 'POST', path: '/rest/v1/options' };
			service.emulator.fault({ match: held, delayMs: 4 * TIMEOUT_MS, times: 1 });
			const parameters = withTimeout({
				resource: 'option',
				operation: 'create',
				mode: 'offline',
				additionalFields: { jobId: String(job.id) },
			});
			const error = await runError(service, parameters);
			expect(error.description).toContain(
				`Not found yet: no option with these values was created between the request and the lookup 1000 ms after the node stopped waiting. Look for it with Option → Get Many with the filters Job ID ${String(job.id)} and Mode "offline" before running this item again.`,
			);
			await eventually(async () => (await service.emulator.count('options')) === 1);
		});
	});
});
