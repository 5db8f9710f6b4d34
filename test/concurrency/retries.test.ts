import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { itemsOf, runNode } from '../nodes/helpers';
import { requestsSince, serviceEachTest } from '../support';

const IN_FLIGHT = 8;

/** A Job operation with IN_FLIGHT requests at a time. */
const jobInFlight = (operation: string, parameters: INodeParameters): INodeParameters => ({
	resource: 'job',
	operation,
	...parameters,
	options: { requestsInFlight: IN_FLIGHT, batching: 'perItem' },
});

describe('Requests in Flight > 1: retries', () => {
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	it('pauses the whole pool after a 429 until its Retry-After has passed', async () => {
		const jobs = (await service.emulator.insert(
			'jobs',
			Array.from({ length: 20 }, (_, i) => ({
				url: `https://site${i}.example.com`,
				email: 'me@example.com',
			})),
		)) as IDataObject[];
		const parameters = jobInFlight('get', { selectBy: 'id', recordId: '={{ $json.id }}' });
		const items = itemsOf(...jobs.map((job) => ({ id: job.id })));
		await runNode(service, parameters, { items: items.slice(0, 1) }); // logged in: the 8 requests start together
		const before = service.emulator.log.length;
		// The first request of the burst is refused at once; the other 7 are answered 100 ms later,
		// when their lanes move on to the next items: those must wait for the Retry-After too.
		const match = { method: 'GET', path: '/rest/v1/jobs' };
		service.emulator.fault({ match, status: 429, retryAfter: 0.3 });
		service.emulator.fault({ match, delayMs: 100, times: IN_FLIGHT - 1 });

		const output = await runNode(service, parameters, { items });

		expect(output.map((item) => item.json.id)).toEqual(jobs.map((job) => job.id));
		const { entries, rest } = requestsSince(service.emulator, before);
		expect(rest).toBe(jobs.length + 1);
		const [refused, ...others] = entries;
		expect(refused).toMatchObject({ status: 429, faulted: true });
		const afterBurst = others.slice(IN_FLIGHT - 1);
		expect(afterBurst).toHaveLength(jobs.length + 1 - IN_FLIGHT);
		// Timer granularity: a timer may fire a millisecond or two before Date.now() says it is due.
		for (const entry of afterBurst) expect(entry.at - refused.at).toBeGreaterThanOrEqual(300 - 5);
	});

	it('never sends a POST again after a 500 that came after the write: the job is found instead', async () => {
		service.emulator.fault({
			match: { method: 'POST', path: '/rest/v1/jobs' },
			status: 500,
			applyAfterHandling: true,
		});
		const items = itemsOf(
			...Array.from({ length: 10 }, (_, i) => ({ url: `https://site${i}.example.com` })),
		);
		const parameters = jobInFlight('create', { url: '={{ $json.url }}', email: 'me@example.com' });

		const output = await runNode(service, parameters, { items, onError: 'continueRegularOutput' });

		const posts = service.emulator.log.filter(
			(entry) => entry.method === 'POST' && entry.kind === 'rest',
		);
		expect(posts).toHaveLength(10);
		expect(await service.emulator.count('jobs')).toBe(10);
		expect(output.filter((item) => item.json.error !== undefined)).toEqual([]);
		expect(output.filter((item) => item.json.recovered === true)).toHaveLength(1);
		expect(new Set(output.map((item) => item.json.id)).size).toBe(10);
		expect(output.map((item) => item.json.url)).toEqual(items.map((item) => item.json.url));
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
	});
});
