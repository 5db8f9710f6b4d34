import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemsOf, runError, runNode } from '../nodes/helpers';
import { requestsSince, startService, type Service } from '../support';
import { trackInFlight } from './scenarios';

const jobGet = (requestsInFlight: number): INodeParameters => ({
	resource: 'job',
	operation: 'get',
	selectBy: 'id',
	recordId: '={{ $json.id }}',
	options: { requestsInFlight, batching: 'perItem' },
});

/** Every GET of the jobs table waits a different time, so that answers come back out of order. */
const GET_JOBS = { method: 'GET', path: '/rest/v1/jobs' };
const shuffleAnswers = (service: Service, delays: number[]) => {
	for (const delayMs of delays) service.emulator.fault({ match: GET_JOBS, delayMs });
};
const DELAYS = [120, 100, 80, 60, 40, 20, 0, 10, 90, 30, 70, 50];

describe('Requests in Flight > 1: the same output as one at a time', () => {
	let service: Service;
	let ids: number[];

	beforeEach(async () => {
		// Jobs stay queued: both runs must read the same records.
		service = await startService({ jobDurationMs: 3_600_000 });
		const jobs = (await service.emulator.insert(
			'jobs',
			DELAYS.map((_, i) => ({ url: `https://site${i}.example.com`, email: 'me@example.com' })),
		)) as IDataObject[];
		ids = jobs.map((job) => job.id as number);
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	/** Runs `parameters` with answers out of order and 8 in flight, then with 1; both outputs. */
	async function bothWays(
		parameters: (inFlight: number) => INodeParameters,
		items: INodeExecutionData[],
		onError?: 'continueRegularOutput',
	) {
		shuffleAnswers(service, DELAYS);
		const inFlight = trackInFlight(service.emulator);
		const concurrent = await runNode(service, parameters(8), { items, onError });
		inFlight.stop();
		service.emulator.clearFaults();
		const sequential = await runNode(service, parameters(1), { items, onError });
		return { concurrent, sequential, maxInFlight: inFlight.max };
	}

	it('keeps the input order and pairedItem whatever order the answers come in', async () => {
		const { concurrent, sequential, maxInFlight } = await bothWays(
			jobGet,
			itemsOf(...ids.map((id) => ({ id }))),
		);
		expect(maxInFlight).toBeGreaterThan(1);
		expect(concurrent.map((item) => item.json.id)).toEqual(ids);
		expect(concurrent.map((item) => item.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
		expect(concurrent).toEqual(sequential);
	});

	it('turns each failing item into an error item at its place with continueOnFail', async () => {
		const input = ids.map((id) => ({ id }) as IDataObject);
		input[3] = { id: 999_999 };
		input[6] = { id: 'abc' };
		const before = service.emulator.log.length;
		const { concurrent, sequential } = await bothWays(
			jobGet,
			itemsOf(...input),
			'continueRegularOutput',
		);
		expect(concurrent).toEqual(sequential);
		expect(concurrent).toHaveLength(ids.length);
		expect(concurrent[3]).toEqual({
			json: expect.objectContaining({ error: 'No job with ID 999999 was found' }),
			pairedItem: { item: 3 },
		});
		expect(concurrent[6].json.error).toContain('Job ID');
		expect(concurrent[6].pairedItem).toEqual({ item: 6 });
		const records = concurrent.filter((_, index) => index !== 3 && index !== 6);
		expect(records.map((item) => item.json.id)).toEqual(
			ids.filter((_, index) => index !== 3 && index !== 6),
		);
		// The item with a bad ID sends nothing, in both runs.
		expect(requestsSince(service.emulator, before).rest).toBe(2 * (ids.length - 1));
	});

	it("fails with the first failing item's error, as a sequential run, even when a later item fails sooner", async () => {
		const input = ids.map((id) => ({ id }) as IDataObject);
		input[2] = { id: 999_999 }; // "not found" after a long delay
		input[5] = { id: 888_888 }; // "not found" at once
		for (const [index] of input.entries())
			service.emulator.fault({ match: GET_JOBS, delayMs: index === 2 ? 300 : 0 });
		const error = await runError(service, jobGet(8), { items: itemsOf(...input) });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('No job with ID 999999 was found');
		expect((error as unknown as NodeApiError).context.itemIndex).toBe(2);
	});

	it('checks every item before the first request: a bad item anywhere sends nothing', async () => {
		const input = ids.map((id) => ({ id }) as IDataObject);
		input[9] = { id: 'abc' };
		const before = service.emulator.log.length;
		const error = await runError(service, jobGet(8), { items: itemsOf(...input) });
		expect(error.message).toContain('Job ID');
		expect((error as unknown as NodeApiError).context.itemIndex).toBe(9);
		expect(requestsSince(service.emulator, before).rest).toBe(0);
	});
});
