// Version 2 of the node: records picked From List (searched and paged by the service, newest
// first), By ID or, for a job, By URL; version 1's plain ID fields keep working.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { requestsSince, startService, type Service } from '../support';
import { runError, runJson } from './helpers';

const V2 = { typeVersion: 2 };
const locator = (mode: string, value: string) => ({ __rl: true, mode, value });

describe('Website Export node v2: resource locators', () => {
	let service: Service;
	const node = new WebsiteExport();

	beforeEach(async () => {
		service = await startService();
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	const jobs = (n: number, prefix = 'site') =>
		service.emulator.insert('jobs', Array.from({ length: n }, (_, i) => ({ url: `https://${prefix}${i}.example.com/`, email: `owner${i % 3}@example.com` }))) as IDataObject[];
	const search = (method: string, filter?: string, token?: string) => service.harness.listSearch(node, method, filter, token);

	describe('From List', () => {
		it('lists jobs newest first, 50 a page, with a token for the next page, until the end', async () => {
			const stored = jobs(120);
			const seen: string[] = [];
			let token: string | undefined;
			let pages = 0;
			do {
				const page = await search('searchJobs', undefined, token);
				seen.push(...page.results.map((result) => String(result.value)));
				token = page.paginationToken as string | undefined;
				pages++;
			} while (token);
			expect(pages).toBe(3);
			expect(seen).toEqual(stored.map((job) => String(job.id)).reverse());
			const [first] = (await search('searchJobs')).results;
			expect(first.name).toMatch(/^#\d+ · https:\/\/site119\.example\.com\/ · owner2@example\.com · queued · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
		});

		it('searches jobs by URL or email on the service, not in n8n', async () => {
			jobs(10);
			jobs(2, 'docs-');
			const before = service.emulator.log.length;
			const byUrl = await search('searchJobs', 'DOCS-');
			expect(byUrl.results.map((result) => result.name.split(' · ')[1])).toEqual(['https://docs-1.example.com/', 'https://docs-0.example.com/']);
			const byEmail = await search('searchJobs', 'owner1@');
			expect(byEmail.results).toHaveLength(4);
			expect(requestsSince(service.emulator, before).rest).toBe(2);
			// The user's % and _ are literal characters, not wildcards.
			expect((await search('searchJobs', '%')).results).toEqual([]);
		});

		it('searches options by job ID or mode, and downloads by job ID', async () => {
			const [a, b] = jobs(2);
			service.emulator.insert('options', [{ mode: 'offline', job_id: a.id }, { mode: 'relative', relative_path: '/x/', job_id: b.id }, { mode: 'offline', job_id: b.id }]);
			expect((await search('searchOptions', String(b.id))).results).toHaveLength(2);
			expect((await search('searchOptions', 'rel')).results.map((r) => r.name)).toEqual([expect.stringMatching(/ · relative · job #/)]);
			service.emulator.insert('downloads', [{ job_id: a.id }, { job_id: b.id }]);
			const downloads = await search('searchDownloads', String(a.id));
			expect(downloads.results).toHaveLength(1);
			expect(downloads.results[0].name).toContain(`job #${String(a.id)}`);
			expect((await search('searchDownloads', 'not a job id')).results).toEqual([]);
		});
	});

	describe('picking a record', () => {
		const get = (resource: string, recordId: unknown): INodeParameters => ({ resource, operation: 'get', selectBy: 'id', recordId: recordId as string });

		it.each(['list', 'id'])('gets a job picked %s', async (mode) => {
			const [, job] = jobs(3);
			const [got] = await runJson(service, get('job', locator(mode, String(job.id))), V2);
			expect(got.id).toBe(job.id);
		});

		it('gets, updates and deletes a job picked By URL', async () => {
			const [, job] = jobs(3);
			const byUrl = locator('url', String(job.url));
			expect((await runJson(service, get('job', byUrl), V2))[0].id).toBe(job.id);
			const [updated] = await runJson(service, { resource: 'job', operation: 'update', selectBy: 'id', recordId: byUrl as unknown as string, updateFields: { email: 'new@example.com' } }, V2);
			expect(updated).toMatchObject({ id: job.id, email: 'new@example.com' });
			const [deleted] = await runJson(service, { resource: 'job', operation: 'delete', selectBy: 'id', recordId: byUrl as unknown as string }, V2);
			expect(deleted).toMatchObject({ deleted: true, id: job.id });
		});

		it('refuses a URL that matches several jobs, or none', async () => {
			service.emulator.insert('jobs', [{ url: 'https://twice.example.com', email: 'a@example.com' }, { url: 'https://twice.example.com', email: 'b@example.com' }]);
			const several = await runError(service, get('job', locator('url', 'https://twice.example.com')), V2);
			expect(several).toBeInstanceOf(NodeApiError);
			expect(several.message).toBe('2 records match the job with URL "https://twice.example.com"');
			const none = await runError(service, get('job', locator('url', 'https://nowhere.example.com')), V2);
			expect(none.message).toBe('No job with URL "https://nowhere.example.com" was found');
		});

		it('gets an option and a download, and downloads an archive, picked From List', async () => {
			service.emulator.settings.jobDurationMs = 1;
			const [job] = jobs(1);
			const [option] = service.emulator.insert('options', [{ mode: 'offline', job_id: job.id }]) as IDataObject[];
			service.emulator.clock.advance(10);
			const [download] = service.emulator.rows('downloads') as IDataObject[];
			expect((await runJson(service, get('option', locator('list', String(option.id))), V2))[0].id).toBe(option.id);
			expect((await runJson(service, get('download', locator('list', String(download.id))), V2))[0].id).toBe(download.id);
			const [archive] = await runJson(service, { resource: 'download', operation: 'downloadArchive', downloadBy: 'id', downloadId: locator('list', String(download.id)) as unknown as string, binaryPropertyName: 'data' }, V2);
			expect(archive).toMatchObject({ id: download.id, fileName: expect.stringMatching(/\.zip$/) });
		});

		it('refuses a bad ID before any request, naming the field and the item', async () => {
			const error = await runError(service, get('job', locator('id', 'abc')), V2);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toContain('Job ID must be a whole number greater than 0');
			expect(service.emulator.log).toHaveLength(0);
		});

		it('keeps version 1 workflows working: a plain ID, and an expression', async () => {
			const [job] = jobs(1);
			expect((await runJson(service, get('job', String(job.id))))[0].id).toBe(job.id);
			expect((await runJson(service, get('job', '={{ $json.id }}'), { items: [{ json: { id: job.id } }] }))[0].id).toBe(job.id);
			expect((await runJson(service, get('job', locator('id', '={{ $json.id }}')), { ...V2, items: [{ json: { id: job.id } }] }))[0].id).toBe(job.id);
		});
	});

	it('offers version 2 by default, with From List, By ID and By URL for a job', () => {
		expect(node.description.defaultVersion).toBe(2);
		const locators = node.description.properties.filter((property) => property.type === 'resourceLocator');
		const jobLocator = locators.find((property) => property.modes?.some((mode) => mode.name === 'url'));
		expect(jobLocator?.modes?.map((mode) => mode.name)).toEqual(['list', 'id', 'url']);
		expect(new Set(locators.map((property) => property.name))).toEqual(new Set(['recordId', 'downloadId']));
	});
});
