import type { IDataObject } from 'n8n-workflow';

import { itemsOf, runNode } from '../nodes/helpers';
import { requestsSince, startService, type Service } from '../support';
import { expireTokenMidRun, processClock, trackInFlight } from './scenarios';

describe('Requests in Flight > 1: logins', () => {
	let service: Service;
	let items: ReturnType<typeof itemsOf>;

	beforeEach(async () => {
		service = await startService();
		const jobs = (await service.emulator.insert(
			'jobs',
			Array.from({ length: 50 }, (_, i) => ({
				url: `https://site${i}.example.com`,
				email: 'me@example.com',
			})),
		)) as IDataObject[];
		items = itemsOf(...jobs.map((job) => ({ id: job.id })));
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	const jobGet = (requestsInFlight: number) => ({
		resource: 'job',
		operation: 'get',
		selectBy: 'id',
		recordId: '={{ $json.id }}',
		options: { requestsInFlight, batching: 'perItem' },
	});

	it('logs in once for a fresh credential with 8 requests in flight', async () => {
		// Slow answers, so that the requests really overlap once the token is there.
		service.emulator.fault({
			match: { method: 'GET', path: '/rest/v1/jobs' },
			delayMs: 100,
			times: 16,
		});
		const inFlight = trackInFlight(service.emulator);
		const output = await runNode(service, jobGet(8), { items });
		inFlight.stop();
		expect(output).toHaveLength(50);
		expect(inFlight.max).toBe(8);
		expect(requestsSince(service.emulator)).toMatchObject({ token: 1, rest: 50 });
		expect(service.harness.store.preAuthenticationRuns).toBe(1);
	});

	it.each([8, 1])(
		'logs in exactly once more when the token expires mid-run (%i in flight)',
		async (requestsInFlight) => {
			const expiry = expireTokenMidRun(service.emulator, service.harness, {
				at: 20,
				settle: 2 * requestsInFlight + 2,
			});
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
		},
	);

	it.each([3, 8])(
		'logs in once when the service refuses the token of %i requests in flight (its clock an hour ahead)',
		async (requestsInFlight) => {
			await runNode(service, jobGet(1), { items: items.slice(0, 1) });
			// Past the token's hour and PostgREST's 30 s of tolerated clock skew.
			await service.emulator.clock.advance(3_600_000 + 60_000);
			const since = service.emulator.log.length;
			const output = await runNode(service, jobGet(requestsInFlight), {
				items: items.slice(0, requestsInFlight),
			});
			expect(output).toHaveLength(requestsInFlight);
			const { token, entries } = requestsSince(service.emulator, since);
			// Every request in flight met the refusal; one login renewed the token for all of them.
			expect(entries.filter((entry) => entry.status === 401)).toHaveLength(requestsInFlight);
			expect(token).toBe(1);
		},
	);

	it('logs in again at the next refusal after a shared login failed', async () => {
		await runNode(service, jobGet(1), { items: items.slice(0, 1) });
		await service.emulator.clock.advance(3_600_000 + 60_000);
		// The failed login answers after every request in flight has met its refusal: a request
		// refused only after a failed login ended starts a login of its own, by design.
		service.emulator.fault({
			match: { method: 'POST', path: '/auth/v1/token' },
			status: 503,
			delayMs: 1_000,
			times: 1,
		});
		const since = service.emulator.log.length;
		await expect(runNode(service, jobGet(3), { items: items.slice(0, 3) })).rejects.toThrow(
			/Login failed/,
		);
		// The failed login was shared by the requests in flight, and is not reused afterwards.
		expect(requestsSince(service.emulator, since).token).toBe(1);
		const output = await runNode(service, jobGet(3), { items: items.slice(0, 3) });
		expect(output).toHaveLength(3);
		expect(requestsSince(service.emulator, since).token).toBe(2);
	});

	it('shares a login for a minute at most: the same refused token later logs in again', async () => {
		await runNode(service, jobGet(1), { items: items.slice(0, 1) });
		const refusedToken = service.harness.credential.accessToken;
		await service.emulator.clock.advance(3_600_000 + 60_000);
		const since = service.emulator.log.length;
		await runNode(service, jobGet(1), { items: items.slice(0, 1) });
		expect(requestsSince(service.emulator, since).token).toBe(1);
		// A request still carrying the refused token within the minute gets the new one without a login.
		service.harness.updateCredential({ accessToken: refusedToken });
		await runNode(service, jobGet(1), { items: items.slice(0, 1) });
		expect(requestsSince(service.emulator, since).token).toBe(1);
		const clock = processClock();
		try {
			clock.advance(61_000);
			service.harness.updateCredential({ accessToken: refusedToken });
			await runNode(service, jobGet(1), { items: items.slice(0, 1) });
		} finally {
			clock.restore();
		}
		expect(requestsSince(service.emulator, since).token).toBe(2);
	});
});
