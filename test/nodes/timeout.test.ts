// Options → Timeout, and what a request the service carries out after the node gave up does: the
// emulator holds a request (delayMs) past the Timeout, then carries it out all the same.
import type { INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node';
import { startService, type Service } from '../support';
import {
	addJobs,
	byId,
	restSince,
	runError,
	runJson,
	sites,
	withBatching,
	type Batching,
} from './helpers';

/** Options → Timeout in these tests: 1 s instead of the default 60 s. */
const TIMEOUT_MS = 1000;
/** How long the emulator holds a request that the service carries out after the node gave up. */
const HELD_MS = 1200;

const GET_JOBS = { method: 'GET', path: '/rest/v1/jobs' };

/** The parameters with Options → Timeout and Batching set. */
const withTimeout = (parameters: INodeParameters, batching: Batching = 'automatic') =>
	withBatching({ ...parameters, options: { timeout: TIMEOUT_MS } }, batching);

describe('Website Export node: Options → Timeout', () => {
	let service: Service;

	beforeEach(async () => {
		service = await startService({ jobDurationMs: 3_600_000 });
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	const methods = (since: number, method: string) =>
		restSince(service, since).filter((entry) => entry.method === method);

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
});
