import { NodeApiError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import type { OrderBy } from '../../nodes/shared/transport';
import type { FaultSpec } from '../../stack/service/types';
import { requestsSince, serviceEachTest, withClient } from '../support';

const ids = (rows: IDataObject[]) => rows.map((row) => row.id as number);

describe('WebsiteExportClient against the emulator', () => {
	const service = serviceEachTest();

	describe('paging under a silent max-rows cap', () => {
		beforeEach(async () => {
			await service.emulator.insert(
				'jobs',
				Array.from({ length: 2500 }, (_, i) => ({
					url: `https://site${i}.example.com`,
					email: 'a@example.com',
				})),
			);
		});

		it('returns all 2 500 rows in order with the minimum number of requests', async () => {
			const before = service.emulator.log.length;
			const rows = await withClient(service, (client) =>
				client.selectAll('jobs', { order: [{ column: 'id' }] }),
			);
			expect(rows).toHaveLength(2500);
			expect(ids(rows)).toEqual([...ids(rows)].sort((a, b) => a - b));
			expect(new Set(ids(rows)).size).toBe(2500);
			expect(requestsSince(service.emulator, before).rest).toBe(3);
		});

		it('stays complete when the server caps pages below what it is asked for', async () => {
			service.emulator.settings.maxRows = 300;
			const before = service.emulator.log.length;
			const rows = await withClient(service, (client) =>
				client.selectAll('jobs', { order: [{ column: 'id', descending: true }] }),
			);
			expect(rows).toHaveLength(2500);
			expect(ids(rows)).toEqual([...ids(rows)].sort((a, b) => b - a));
			expect(requestsSince(service.emulator, before).rest).toBe(Math.ceil(2500 / 300));
		});

		it.each([
			[
				'newest first',
				[
					{ column: 'created_at', descending: true },
					{ column: 'id', descending: true },
				],
			],
			['oldest first', [{ column: 'created_at' }, { column: 'id' }]],
		])(
			'neither repeats nor skips a row while rows are created and deleted between pages (%s)',
			async (_, order) => {
				service.emulator.settings.maxRows = 300;
				const existing = (await service.emulator.rows('jobs')) as IDataObject[];
				const deleted = new Set<number>();
				let pages = 0;
				// Before every page after the first: 7 jobs created, and 7 not yet returned deleted.
				const stop = service.emulator.onArrival(async (entry) => {
					if (entry.table !== 'jobs' || entry.method !== 'GET' || pages++ === 0) return;
					await service.emulator.insert(
						'jobs',
						Array.from({ length: 7 }, (_, i) => ({
							url: `https://new${pages}-${i}.example.com`,
							email: 'a@example.com',
						})),
					);
					const victims = existing.slice(pages * 97, pages * 97 + 7).map((job) => job.id as number);
					for (const id of victims) deleted.add(id);
					await service.emulator.remove('jobs', victims);
				});
				const before = service.emulator.log.length;
				const rows = await withClient(service, (client) =>
					client.selectAll('jobs', { order: order as OrderBy[] }),
				);
				stop();
				const returned = ids(rows);
				expect(new Set(returned).size).toBe(returned.length);
				const kept = ids(existing).filter((id) => !deleted.has(id));
				expect(kept.filter((id) => !returned.includes(id))).toEqual([]);
				expect(requestsSince(service.emulator, before).rest).toBe(Math.ceil(2500 / 300));
			},
		);

		it('stops at the requested maximum', async () => {
			const rows = await withClient(service, (client) =>
				client.selectAll('jobs', { order: [{ column: 'id' }] }, { max: 1234 }),
			);
			expect(ids(rows)).toEqual(Array.from({ length: 1234 }, (_, i) => ids(rows)[0] + i));
		});
	});

	describe('retries', () => {
		const JOB_LOOKUP = { noun: 'job', findHint: 'Job → Get Many' };
		const fastRetry = {
			retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 5000 },
		};
		const GET_JOBS = { method: 'GET', path: '/rest/v1/jobs' };
		const selectJobs = () => withClient(service, (client) => client.select('jobs', {}), fastRetry);
		/** Inserts one job with a fast-retrying client while the service meets its POST with `fault`. */
		const insertJobDespite = (fault: FaultSpec) => {
			service.emulator.fault({ match: { method: 'POST', path: '/rest/v1/jobs' }, ...fault });
			const body = { url: 'https://example.com', email: 'a@example.com' };
			return withClient(
				service,
				async (client) => {
					const result = await client.insertMany('jobs', [{ body, options: JOB_LOOKUP }]);
					const [row] = 'refused' in result ? [result.refused] : result.rows;
					if (row instanceof Error) throw row;
					return row;
				},
				fastRetry,
			);
		};

		it('retries a GET after 429, waiting Retry-After', async () => {
			service.emulator.fault({ match: GET_JOBS, status: 429, retryAfter: 1, times: 1 });
			const started = Date.now();
			const page = await selectJobs();
			expect(Date.now() - started).toBeGreaterThanOrEqual(950);
			expect(page.rows).toEqual([]);
			expect(
				requestsSince(service.emulator)
					.entries.filter((e) => e.kind === 'rest')
					.map((e) => e.status),
			).toEqual([429, 200]);
		});

		it('retries a POST refused with 429 (not processed) without creating a duplicate', async () => {
			const row = await insertJobDespite({ status: 429, retryAfter: 0, times: 2 });
			expect(row.url).toBe('https://example.com');
			expect(await service.emulator.count('jobs')).toBe(1);
		});

		it('never re-sends a POST whose outcome is unknown (500 after the write): it finds the row instead', async () => {
			const row = await insertJobDespite({ status: 500, applyAfterHandling: true, times: 1 });
			expect(row).toMatchObject({
				url: 'https://example.com',
				email: 'a@example.com',
				recovered: true,
			});
			expect(await service.emulator.count('jobs')).toBe(1);
			expect(
				requestsSince(service.emulator)
					.entries.filter((e) => e.kind === 'rest')
					.map((e) => e.method),
			).toEqual(['POST', 'GET']);
		});

		it('says the row may exist when a POST whose answer was lost left nothing to find', async () => {
			const error = await insertJobDespite({ status: 502, times: 1 }).catch((e: Error) => e);
			expect(error).toBeInstanceOf(NodeApiError);
			expect((error as NodeApiError).description).toMatch(
				/may have created the job\. Not found yet: no job with these values was created between the request and the lookup\. Look for it with Job → Get Many/,
			);
			expect(await service.emulator.count('jobs')).toBe(0);
		});

		it('retries idempotent requests after 5xx, then gives up with the service message', async () => {
			service.emulator.fault({ match: GET_JOBS, status: 503, times: 2 });
			await expect(selectJobs()).resolves.toMatchObject({ rows: [] });
			service.emulator.fault({ match: GET_JOBS, status: 500, times: 10 });
			const error = await selectJobs().catch((e: Error) => e);
			expect((error as { description?: string }).description).toMatch(/Gave up after 4 attempts/);
		});
	});

	describe('filter values', () => {
		const hostile = [
			'a&b=c',
			'x,y',
			'f(x)',
			'100%',
			'say "hi"',
			'p.q:r',
			'id=eq.1',
			'plus+sign',
			'back\\slash',
		];

		beforeEach(async () => {
			await service.emulator.insert(
				'jobs',
				[...hostile, 'decoy'].map((tail) => ({
					url: `https://example.com/${tail}`,
					email: 'a@example.com',
				})),
			);
		});

		it('match exactly and cannot inject filters or parameters', async () => {
			for (const tail of hostile) {
				const page = await withClient(service, (client) =>
					client.select('jobs', {
						filters: [{ column: 'url', operator: 'eq', value: `https://example.com/${tail}` }],
					}),
				);
				expect(page.rows.map((row) => row.url)).toEqual([`https://example.com/${tail}`]);
			}
		});

		it('match exactly inside in-lists', async () => {
			const wanted = hostile.map((tail) => `https://example.com/${tail}`);
			const page = await withClient(service, (client) =>
				client.select('jobs', { filters: [{ column: 'url', operator: 'in', value: wanted }] }),
			);
			expect(page.rows.map((row) => row.url).sort()).toEqual([...wanted].sort());
		});
	});

	it('refuses to update or delete without a filter', async () => {
		await expect(
			withClient(service, (client) => client.update('jobs', [], { email: 'x@example.com' })),
		).rejects.toThrow('without a filter');
		expect(requestsSince(service.emulator).rest).toBe(0);
	});
});
