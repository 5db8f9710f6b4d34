// Every request line within the 8 KiB a gateway takes, pages included (issue 47, item 6): a
// filter whose first page fits but whose later pages (their keyset added) would not is refused
// before any request, naming the field; one whose every page fits is read in full.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	MAX_REQUEST_LINE_BYTES,
	type ListQuery,
	type WebsiteExportClient,
} from '../../nodes/shared/transport';
import { startService, withClient, type Service } from '../support';
import { itemIndexOf, itemsOf, restSince, runError, runJson } from './helpers';

const NEWEST_FIRST = ['created_at', 'id'].map((column) => ({ column, descending: true }));

/** An address `n` characters after its host, each 6 bytes once URL-encoded (`ü` is %C3%BC). */
const longUrl = (n: number) => `https://example.com/${'ü'.repeat(n)}`;

const byUrl = (url: string): INodeParameters => ({
	resource: 'job',
	operation: 'getAll',
	returnAll: true,
	sort: 'newest',
	filters: { url },
});

describe('request lines of every page within 8 KiB (issue 47, item 6)', () => {
	let service: Service;

	beforeEach(async () => {
		service = await startService();
		service.emulator.settings.maxRows = 3;
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	/** The request line of Get Many's first page for `url` (no keyset yet), as sent. */
	const firstPageBytes = (client: WebsiteExportClient, url: string) => {
		const query: ListQuery = {
			filters: [{ column: 'url', operator: 'eq', value: url }],
			order: NEWEST_FIRST,
			limit: 1000,
		};
		return client.requestLineBytes('jobs', query);
	};

	/** The longest address whose first page's line is at most `bytes`, and that line's length. */
	const longestUrlWithin = (bytes: number) =>
		withClient(service, async (client) => {
			let n = 2000;
			while (firstPageBytes(client, longUrl(n)) > bytes) n--;
			return { url: longUrl(n), firstPage: firstPageBytes(client, longUrl(n)) };
		});

	const addJobs = (url: string, count: number) =>
		service.emulator.insert(
			'jobs',
			Array.from({ length: count }, () => ({ url, email: 'a@example.com' })),
		);

	it('a URL whose page 1 fits and page 2 would not: refused before any request, naming URL', async () => {
		const { url, firstPage } = await longestUrlWithin(MAX_REQUEST_LINE_BYTES - 80);
		expect(firstPage).toBeGreaterThan(MAX_REQUEST_LINE_BYTES - 200);
		await addJobs(url, 4);
		const since = service.emulator.log.length;
		const error = await runError(service, byUrl(url));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Invalid input: URL is too long');
		expect(String(error.description)).toMatch(/8192: shorten URL\. \[item 0\]$/);
		expect(itemIndexOf(error)).toBe(0);
		expect(restSince(service, since)).toEqual([]);
	});

	it('a URL whose every page fits: every job, over several pages, no line refused', async () => {
		const { url } = await longestUrlWithin(MAX_REQUEST_LINE_BYTES - 400);
		const jobs = (await addJobs(url, 7)) as IDataObject[];
		const since = service.emulator.log.length;
		const rows = await runJson(service, byUrl(url));
		expect(rows.map((row) => row.id)).toEqual(jobs.map((job) => job.id).reverse());
		const pages = restSince(service, since);
		// Page 1 is 206 Partial Content (its count says more match), the others 200.
		expect(pages.map((entry) => entry.status)).toEqual([206, 200, 200]);
	});

	/** Select By → Another Field → URL = `url` (Job → Get). */
	const selectUrl = (url: string): INodeParameters => ({
		resource: 'job',
		operation: 'get',
		selectBy: 'field',
		selectField: 'url',
		selectValue: url,
	});

	/** The longest line any page of a Select By read of `url` can have, as `operator` sends it. */
	const readLineBytes = (client: WebsiteExportClient, url: string, operator: 'eq' | 'in') =>
		client.pageLineBytes('jobs', {
			filters: [{ column: 'url', operator, value: operator === 'in' ? [url] : url }],
			order: [{ column: 'id' }],
		});

	/** The address whose read (`url=eq.…`, its longest page) is exactly `bytes` long. */
	const urlReadIn = (bytes: number) =>
		withClient(service, async (client) => {
			let url = longUrl(Math.floor((bytes - 200) / 6));
			while (readLineBytes(client, url, 'eq') < bytes) url += 'a';
			return { url, inList: readLineBytes(client, url, 'in') };
		});

	it('a Select By value read as one by one reads it: found at 8 KiB exactly, refused 1 byte over', async () => {
		const { url, inList } = await urlReadIn(MAX_REQUEST_LINE_BYTES);
		// Quoted in an `in.(…)` list, it would pass 8 KiB: alone, it goes as `url=eq.…`.
		expect(inList).toBeGreaterThan(MAX_REQUEST_LINE_BYTES);
		const [job] = (await addJobs(url, 1)) as IDataObject[];
		for (const batching of ['automatic', 'perItem']) {
			const rows = await runJson(service, { ...selectUrl(url), options: { batching } });
			expect(rows.map((row) => row.id)).toEqual([job.id]);
		}
		const over = `${url}a`;
		const since = service.emulator.log.length;
		const error = await runError(service, selectUrl(over));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Invalid input: Value is too long');
		expect(String(error.description)).toContain(`up to ${MAX_REQUEST_LINE_BYTES + 1} bytes`);
		expect(restSince(service, since)).toEqual([]);
	});

	it('items naming the same value too long each get their own refusal, naming their own item', async () => {
		const { url } = await urlReadIn(MAX_REQUEST_LINE_BYTES + 1);
		const items = itemsOf({ value: url }, { value: 'https://nowhere.example.com' }, { value: url });
		const parameters = { ...selectUrl('={{ $json.value }}'), options: { batching: 'automatic' } };
		const since = service.emulator.log.length;
		const output = await runJson(service, parameters, { items, onError: 'continueRegularOutput' });
		expect(output.map((json) => json.error)).toEqual([
			'Invalid input: Value is too long',
			'No job with url "https://nowhere.example.com" was found',
			'Invalid input: Value is too long',
		]);
		expect(String(output[0].details)).toMatch(/\[item 0\]$/);
		expect(String(output[2].details)).toMatch(/\[item 2\]$/);
		// The value too long is never sent: one read, the other item's.
		expect(restSince(service, since)).toHaveLength(1);
	});
});
