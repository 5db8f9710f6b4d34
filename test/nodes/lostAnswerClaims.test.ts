// Why: a lookup after a lost create claims only rows it can tell are its own: an identical row
// another client created just before the request is never output as the item's, nor deleted.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { serviceEachTest } from '../support';
import { addJobs, itemsOf, perItem, runError, runJson, sites } from './helpers';

const POST_OPTIONS = { method: 'POST', path: '/rest/v1/options' };
/** A gateway's 502 before the service saw the request: nothing was created. */
const LOST_BEFORE_COMMIT = { match: POST_OPTIONS, status: 502, times: 1 };
/** A gateway's 502 once the service had created the rows. */
const LOST_AFTER_COMMIT = { ...LOST_BEFORE_COMMIT, applyAfterHandling: true, afterCommit: true };

const optionCreate: INodeParameters = {
	resource: 'option',
	operation: 'create',
	mode: 'offline',
	additionalFields: { jobId: '={{ $json.jobId }}' },
};

describe('a lost create never claims a row another client created just before it', () => {
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	const options = async () => (await service.emulator.rows('options')) as IDataObject[];
	/** Another client's option for `jobId`, identical to the node's, created just before the run. */
	const twinOf = async (jobId: unknown) =>
		(
			(await service.emulator.insert('options', [
				{ job_id: jobId, mode: 'offline', relative_path: '/', replace_url: '' },
			])) as IDataObject[]
		)[0];

	/**
	 * `count` jobs, another client's twin option for job `twinFor` made first, then `fault` armed:
	 * the items create an option for each job.
	 */
	const arrange = async (count: number, twinFor: number, fault: object) => {
		const jobs = await addJobs(service, sites(count));
		const twin = await twinOf(jobs[twinFor].id);
		service.emulator.fault(fault);
		return { jobs, twin, items: itemsOf(...jobs.map(({ id }) => ({ jobId: id }))) };
	};

	it('a group stopped at a failure deletes no row the lookup found but the request did not create', async () => {
		const { twin, items } = await arrange(3, 1, LOST_BEFORE_COMMIT);
		const error = await runError(service, optionCreate, { items });
		// The other client's option is there as it was.
		expect(await options()).toEqual([twin]);
		expect(String(error.description)).not.toMatch(/deleted again/);
	});

	it('a group whose other rows are missing does not output the twin as its item', async () => {
		const { twin, items } = await arrange(2, 1, LOST_BEFORE_COMMIT);
		const output = await runJson(service, optionCreate, {
			items,
			onError: 'continueRegularOutput',
		});
		expect(output.map((json) => json.id)).not.toContain(twin.id);
		expect(output.every((json) => typeof json.error === 'string')).toBe(true);
		expect(output[1].details).toContain(
			`1 option with these values was created since the request was sent (ID ${String(twin.id)}), but its request's rows could not all be matched to one write (the service writes them all at once or none): the node cannot tell whether it is this item's or another client's.`,
		);
		expect(await options()).toEqual([twin]);
	});

	it('one by one, a twin older than an earlier answer of the run is not claimed', async () => {
		// Item 0 is answered (its row's id is above the twin's); item 1's create is lost.
		const { jobs, twin, items } = await arrange(2, 1, { ...LOST_BEFORE_COMMIT, skip: 1 });
		const error = await runError(service, perItem(optionCreate), { items });
		expect(error.description).toMatch(/Not found yet: no option with these values was created/);
		const left = await options();
		expect(left.map((row) => row.job_id)).toEqual([jobs[1].id, jobs[0].id]);
		expect(left[0]).toEqual(twin);
	});

	it('after a commit, a group with a twin for one item claims none and deletes none', async () => {
		const { jobs, twin, items } = await arrange(3, 0, LOST_AFTER_COMMIT);
		const error = await runError(service, optionCreate, { items });
		expect(error.description).toMatch(/2 options with these values were created/);
		// The request's rows are left, and named: the node cannot tell them from others'.
		const left = await options();
		expect(left.map((row) => row.job_id)).toEqual([jobs[0].id, ...jobs.map(({ id }) => id)]);
		expect(left[0]).toEqual(twin);
		expect(error.description).toMatch(/\[item 1\], \[item 2\]/);
	});

	it('a lost create without a twin is still found: one row, created since the request', async () => {
		const jobs = await addJobs(service, sites(2));
		service.emulator.fault(LOST_AFTER_COMMIT);
		const items = itemsOf(...jobs.map(({ id }) => ({ jobId: id })));
		const output = await runJson(service, optionCreate, { items });
		expect(output.map((json) => [json.job_id, json.recovered])).toEqual(
			jobs.map(({ id }) => [id, true]),
		);
	});

	it('Job → Create stopped at a refused option leaves the jobs a lookup found, and names them', async () => {
		// The jobs' answer is lost after the commit: found by the lookup, they may be others'.
		service.emulator.fault({
			...LOST_AFTER_COMMIT,
			match: { method: 'POST', path: '/rest/v1/jobs' },
		});
		const parameters = {
			resource: 'job',
			operation: 'create',
			url: '={{ $json.url }}',
			email: '={{ $json.email }}',
			optionMode: 'relative',
			optionRelativePath: '={{ $json.path }}',
		};
		// Item 1's path holds a NUL, which Postgres refuses in a text column.
		const items = itemsOf(
			...sites(3).map((site, i) => ({ ...site, path: i === 1 ? '/a\u0000' : '/p' })),
		);
		const error = await runError(service, parameters, { items });
		const jobs = (await service.emulator.rows('jobs')) as IDataObject[];
		expect(jobs.map((job) => job.url)).toEqual(sites(3).map((site) => site.url));
		expect(String(error.description)).toContain(
			`Found by a lookup after a lost answer, and so left (the node cannot tell them from identical rows another client created at the time): job ${String(jobs[2].id)};`,
		);
		expect(String(error.description)).not.toMatch(/deleted again/);
	});
});
