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
import { itemIndexOf, restSince, runError, runJson } from './helpers';

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
});
