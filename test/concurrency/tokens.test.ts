import type { IDataObject } from 'n8n-workflow';

import { itemsOf, runNode } from '../nodes/helpers';
import { requestsSince, startService, type Service } from '../support';
import { expireTokenMidRun, trackInFlight } from './scenarios';

describe('Requests in Flight > 1: logins', () => {
	let service: Service;
	let items: ReturnType<typeof itemsOf>;

	beforeEach(async () => {
		service = await startService();
		const jobs = await service.emulator.insert('jobs', Array.from({ length: 50 }, (_, i) => ({ url: `https://site${i}.example.com`, email: 'me@example.com' }))) as IDataObject[];
		items = itemsOf(...jobs.map((job) => ({ id: job.id })));
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	const jobGet = (requestsInFlight: number) => ({ resource: 'job', operation: 'get', selectBy: 'id', recordId: '={{ $json.id }}', options: { requestsInFlight } });

	it('logs in once for a fresh credential with 8 requests in flight', async () => {
		// Slow answers, so that the requests really overlap once the token is there.
		service.emulator.fault({ match: { method: 'GET', path: '/rest/v1/jobs' }, delayMs: 100, times: 16 });
		const inFlight = trackInFlight(service.emulator);
		const output = await runNode(service, jobGet(8), { items });
		inFlight.stop();
		expect(output).toHaveLength(50);
		expect(inFlight.max).toBe(8);
		expect(requestsSince(service.emulator)).toMatchObject({ token: 1, rest: 50 });
		expect(service.harness.store.preAuthenticationRuns).toBe(1);
	});

	it.each([8, 1])('logs in exactly once more when the token expires mid-run (%i in flight)', async (requestsInFlight) => {
		const expiry = expireTokenMidRun(service.emulator, service.harness, { at: 20, settle: 2 * requestsInFlight + 2 });
		let output;
		try {
			output = await runNode(service, jobGet(requestsInFlight), { items });
		} finally {
			expiry.restore();
		}
		expect(expiry.jumped).toBe(2);
		expect(output.map((item) => item.json.id)).toEqual(items.map((item) => item.json.id));
		const { token, entries } = requestsSince(service.emulator);
		expect(token).toBe(2);
		// The service did refuse the old token once: n8n logged in again and repeated that request.
		expect(entries.filter((entry) => entry.status === 401)).toHaveLength(1);
	});
});
