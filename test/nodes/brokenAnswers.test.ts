// A 200 whose body is not a JSON list of records (a proxy's HTML page, a cut-off body, an object,
// an empty body) is never read as "no rows" (issue 47, item 1): a read is tried again as after a
// 5xx, then fails with what came back; a write's broken answer is a lost one, recovered as such.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { FaultSpec } from '../../stack/service/types';
import { startService, type Service } from '../support';
import {
	addJobs,
	BATCHINGS,
	byId,
	idItems,
	restSince,
	runError,
	runJson,
	sites,
	withBatching,
} from './helpers';

const HTML_PAGE = '<!DOCTYPE html><html><head><title>502</title></head><body>Proxy</body></html>';

/** The broken bodies a read may get, as emulator faults on a 200. */
const BROKEN: Array<[string, Omit<FaultSpec, 'match'>, RegExp]> = [
	[
		'an HTML page',
		{ status: 200, body: HTML_PAGE, contentType: 'text/html; charset=utf-8' },
		/^The service answered with an HTML page, not JSON: is a proxy in between\?$/,
	],
	['a cut-off JSON body', { cutAfterBytes: 30 }, /^The service answered with a JSON body cut off/],
	[
		'an object where a list is due',
		{ status: 200, body: { id: 1 } },
		/^The service answered with an object where a list was due$/,
	],
	['an empty 200 body', { cutAfterBytes: 0 }, /^The service answered with an empty body/],
];

const GET_JOBS = { method: 'GET', path: '/rest/v1/jobs' };

const getAll = (parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'job',
	operation: 'getAll',
	returnAll: true,
	sort: 'oldest',
	...parameters,
});

describe('broken answers are never rows (issue 47, item 1)', () => {
	let service: Service;
	let jobs: IDataObject[];

	beforeEach(async () => {
		service = await startService();
		jobs = await addJobs(service, sites(8));
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	/** The next GET of jobs, from the `nth` on (1 = the next one), meets `fault` `times` times. */
	const breakJobReads = (fault: Omit<FaultSpec, 'match'>, nth = 1, times = 1) => {
		let seen = 0;
		const stop = service.emulator.onArrival((entry) => {
			if (entry.method !== 'GET' || entry.table !== 'jobs' || ++seen !== nth) return;
			service.emulator.fault({ match: GET_JOBS, ...fault, times });
			stop();
		});
	};

	describe.each(BROKEN)('a read answered with %s', (_, fault, message) => {
		it('Get Many → Return All, page 2 broken once under a row cap of 3: tried again, every row', async () => {
			service.emulator.settings.maxRows = 3;
			breakJobReads(fault, 2);
			const since = service.emulator.log.length;
			const rows = await runJson(service, getAll());
			expect(rows.map((row) => row.id)).toEqual(jobs.map((job) => job.id));
			const reads = restSince(service, since);
			expect(reads.filter((entry) => entry.faulted)).toHaveLength(1);
		});

		it.each(BATCHINGS)(
			'Get by ID of 3 jobs, the read broken once: the 3 jobs (%s)',
			async (batching) => {
				breakJobReads(fault);
				const parameters = withBatching(byId('job', 'get', '={{ $json.id }}'), batching);
				const rows = await runJson(service, parameters, { items: idItems(jobs.slice(0, 3)) });
				expect(rows.map((row) => row.id)).toEqual(jobs.slice(0, 3).map((job) => job.id));
			},
		);

		it('broken at every attempt: the run fails saying what came back, never with rows', async () => {
			breakJobReads(fault, 1, 4);
			const error = await runError(service, getAll());
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toMatch(message);
			expect(String(error.description)).toMatch(/Gave up after 4 attempts/);
		});
	});

	it('Delete by ID with Continue On Fail, the read an HTML page once: the 3 jobs deleted', async () => {
		breakJobReads(BROKEN[0][1]);
		const parameters = byId('job', 'delete', '={{ $json.id }}');
		const items = idItems(jobs.slice(0, 3));
		const output = await runJson(service, parameters, { items, onError: 'continueRegularOutput' });
		expect(output.map((row) => row.error)).toEqual([undefined, undefined, undefined]);
		const left = (await service.emulator.rows('jobs')) as IDataObject[];
		expect(left.map((row) => row.id)).toEqual(jobs.slice(3).map((job) => job.id));
	});

	it.each(BATCHINGS)(
		'Create whose answer is cut off after the service created the job: a lost answer, recovered (%s)',
		async (batching) => {
			service.emulator.fault({
				match: { method: 'POST', path: '/rest/v1/jobs' },
				cutAfterBytes: 25,
			});
			const create = { resource: 'job', operation: 'create', url: '={{ $json.url }}' };
			const parameters = withBatching({ ...create, email: 'cut@example.com' }, batching);
			const items = [{ json: { url: 'https://cut.example.com' } }];
			const [row] = await runJson(service, parameters, { items });
			expect(row).toMatchObject({ url: 'https://cut.example.com', recovered: true });
			const stored = (await service.emulator.rows('jobs')) as IDataObject[];
			expect(stored.filter((job) => job.email === 'cut@example.com')).toHaveLength(1);
		},
	);
});
