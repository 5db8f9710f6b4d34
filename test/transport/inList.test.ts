// `in.(…)` lists against the real PostgREST behind the emulator's gateway (414 over 8 KiB):
// reserved characters and duplicates select the right rows, and groups end where the longest
// request sent with them (a keyset page, a PATCH or DELETE by them) would pass the 8 KiB line.
import type { IDataObject } from 'n8n-workflow';

import {
	MAX_REQUEST_LINE_BYTES,
	WebsiteExportClient,
	type FilterValue,
	type ListQuery,
} from '../../nodes/shared/transport';
import { requestsSince, serviceEachTest, withClient as withClientOf } from '../support';

describe('in.(…) lists', () => {
	const service = serviceEachTest();

	const withClient = <T>(work: (client: WebsiteExportClient) => Promise<T>) =>
		withClientOf(service, work);

	it('selects values with reserved characters, duplicates given once', async () => {
		const urls = [
			'https://a.example.com/x,y',
			'https://b.example.com/(p)',
			'say "hi"',
			'back\\slash',
			'a b.c:d',
		];
		await service.emulator.insert(
			'jobs',
			[...urls, 'https://other.example.com'].map((url) => ({ url, email: 'a@example.com' })),
		);
		const values = [...urls, urls[0], urls[2]];
		const rows = await withClient(async (client) => {
			const query = { filters: [{ column: 'url', operator: 'in' as const, value: values }] };
			return (await client.select<IDataObject>('jobs', query)).rows;
		});
		expect(rows.map((row) => row.url).sort()).toEqual([...urls].sort());
	});

	it('cuts groups where the next value would take the longest request line past 8 KiB', async () => {
		const urls = Array.from(
			{ length: 400 },
			(_, i) => `https://site-${i}.example.com/some/long/path,with(reserved)"chars"`,
		);
		await service.emulator.insert(
			'jobs',
			urls.map((url) => ({ url, email: 'a@example.com' })),
		);
		const since = service.emulator.log.length;
		const found = await withClient(async (client) => {
			const filterOf = (value: FilterValue[]) => ({
				column: 'url',
				operator: 'in' as const,
				value,
			});
			const queryOf = (value: FilterValue[]): ListQuery => ({ filters: [filterOf(value)] });
			const lineOf = (group: string[]) => client.listLineBytes('jobs', filterOf(group));
			const chunks = client.inGroups('jobs', 'url', urls, 1000);
			for (const [index, chunk] of chunks.entries()) {
				// The longest line sent with a group: a keyset page after the largest id.
				const page = { ...queryOf(chunk), order: [{ column: 'id' }], limit: 1000 };
				const longest = { ...page, after: { id: Number.MAX_SAFE_INTEGER } };
				expect(lineOf(chunk)).toBe(client.requestLineBytes('jobs', longest));
				expect(lineOf(chunk)).toBeLessThanOrEqual(MAX_REQUEST_LINE_BYTES);
				const next = urls[urls.indexOf(chunk[chunk.length - 1]) + 1];
				if (index < chunks.length - 1)
					expect(lineOf([...chunk, next])).toBeGreaterThan(MAX_REQUEST_LINE_BYTES);
			}
			const pages = await Promise.all(chunks.map((chunk) => client.select('jobs', queryOf(chunk))));
			return { chunks: chunks.length, rows: pages.flatMap((page) => page.rows).length };
		});
		expect(found.rows).toBe(400);
		expect(found.chunks).toBeGreaterThan(1);
		const rest = requestsSince(service.emulator, since).entries.filter((e) => e.kind === 'rest');
		expect(rest.map((e) => e.status)).toEqual(Array(found.chunks).fill(200));
	});
});
