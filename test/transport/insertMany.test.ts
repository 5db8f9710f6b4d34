// Many rows in one POST against the real PostgREST: each returned row to its item, a refused
// chunk writes nothing, a lost answer is never sent again and its rows are looked up.
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { InsertRequest } from '../../nodes/shared/transport';
import type { FaultSpec } from '../../stack/service/types';
import { requestsSince, serviceEachTest, withClient } from '../support';

const jobInsert = (url: string, itemIndex: number): InsertRequest => ({
	body: { url, email: 'a@example.com' },
	options: { itemIndex, noun: 'job', findHint: 'Job → Get Many' },
});

describe('WebsiteExportClient.insertMany', () => {
	const service = serviceEachTest();

	/** Inserts `inserts` into `table` in one request while the service meets the POST with `fault`. */
	async function insertMany(
		table: 'jobs' | 'options',
		inserts: InsertRequest[],
		fault?: FaultSpec,
	) {
		if (fault)
			service.emulator.fault({ match: { method: 'POST', path: `/rest/v1/${table}` }, ...fault });
		return await withClient(service, (client) => client.insertMany(table, inserts));
	}
	const posts = () =>
		requestsSince(service.emulator).entries.filter((e) => e.kind === 'rest' && e.method === 'POST');
	const rowsOf = (result: Awaited<ReturnType<typeof insertMany>>) => {
		if ('refused' in result) throw new Error(`refused: ${result.refused.message}`);
		return result.rows as Array<IDataObject | NodeApiError>;
	};

	it('returns each row to the body sent at its place, duplicates included, in one request', async () => {
		const urls = ['https://b.example.com', 'https://a.example.com', 'https://b.example.com'];
		const rows = rowsOf(await insertMany('jobs', urls.map(jobInsert)));
		expect(rows.map((row) => (row as IDataObject).url)).toEqual(urls);
		expect(new Set(rows.map((row) => (row as IDataObject).id)).size).toBe(3);
		expect(posts()).toHaveLength(1);
	});

	it('writes nothing when the service refuses one row of the chunk', async () => {
		const [job] = (await service.emulator.insert('jobs', [
			{ url: 'https://a.example.com', email: 'a@example.com' },
		])) as IDataObject[];
		const option = (jobId: unknown, itemIndex: number): InsertRequest => ({
			body: { mode: 'offline', job_id: jobId as number },
			options: { itemIndex, noun: 'option', findHint: 'Option → Get Many' },
		});
		// The third names a job that does not exist: the foreign key refuses the whole statement.
		const result = await insertMany('options', [
			option(job.id, 0),
			option(job.id, 1),
			option(999_999, 2),
		]);
		expect('refused' in result && result.refused.httpCode).toBe('409');
		expect(await service.emulator.count('options')).toBe(0);
	});

	it.each([
		['a 502 after the commit', { status: 502, applyAfterHandling: true }],
		['a connection reset after the commit', { reset: true, applyAfterHandling: true }],
	])('after %s, finds every row of the chunk, never sending it again', async (_, fault) => {
		const urls = ['https://a.example.com', 'https://b.example.com', 'https://a.example.com'];
		const rows = rowsOf(await insertMany('jobs', urls.map(jobInsert), fault as FaultSpec));
		expect(rows.map((row) => (row as IDataObject).url)).toEqual(urls);
		expect(rows.every((row) => (row as IDataObject).recovered === true)).toBe(true);
		const stored = (await service.emulator.rows('jobs')) as IDataObject[];
		expect(rows.map((row) => (row as IDataObject).id).sort()).toEqual(
			stored.map((job) => job.id).sort(),
		);
		expect(posts()).toHaveLength(1);
	});

	it('after a lost answer that wrote nothing, each item gets its own error', async () => {
		const rows = rowsOf(
			await insertMany('jobs', ['https://a.example.com', 'https://b.example.com'].map(jobInsert), {
				status: 503,
			}),
		);
		expect(rows.map((row) => (row as NodeApiError).context?.itemIndex)).toEqual([0, 1]);
		for (const row of rows) {
			expect(row).toBeInstanceOf(NodeApiError);
			expect((row as NodeApiError).description).toContain(
				'Not found yet: no job with these values was created between the request and the lookup.',
			);
		}
	});
});
