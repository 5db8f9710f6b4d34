import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, Workflow } from 'n8n-workflow';

import { OVERLAP_MS } from '../../nodes/WebsiteExportTrigger/cursor';
import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node';
import { NodeHarness } from '../harness';
import type { Service } from '../support';
import {
	ActiveTrigger,
	DAY,
	HOUR,
	insertDownloads,
	MINUTE,
	restRequests,
	SECOND,
	startFrozenService,
} from './support';

describe('Website Export Trigger', () => {
	let service: Service;
	const emu = () => service.emulator;
	const now = () => emu().clock.now();

	afterEach(async () => {
		await service?.emulator.close();
	});

	describe('description', () => {
		it('is a polling trigger with one event, on the shared credential', () => {
			const { description } = new WebsiteExportTrigger();
			expect(description).toMatchObject({
				name: 'websiteExportTrigger',
				displayName: 'Website Export Trigger',
				polling: true,
				inputs: [],
				outputs: ['main'],
				group: ['trigger'],
				credentials: [{ name: 'websiteExportApi', required: true }],
			});
			expect(description.usableAsTool).toBeUndefined();
			const event = description.properties.find((p) => p.name === 'event');
			expect(event?.options).toEqual([
				expect.objectContaining({ name: 'Download Ready', value: 'downloadReady' }),
			]);
			const includeJob = description.properties.find((p) => p.name === 'includeJob');
			expect(includeJob?.default).toBe(true);
		});
	});

	describe('against the emulator', () => {
		let jobId: number;

		/** A trigger with its baseline taken (its first poll), a minute ago. */
		const activatedAMinuteAgo = async (): Promise<ActiveTrigger> => {
			const trigger = new ActiveTrigger(service.harness);
			await trigger.ids();
			await emu().clock.advance(MINUTE);
			return trigger;
		};

		beforeEach(async () => {
			service = await startFrozenService();
			const [job] = (await emu().insert('jobs', [
				{
					url: 'https://Docs.Example.com/guide',
					email: 'ops@example.com',
					status: 'finished',
					files: 12,
				},
			])) as IDataObject[];
			jobId = job.id as number;
		});

		it('takes a baseline on the first poll, then emits each new download once, with its job', async () => {
			// Older than a poll without state looks back (a minute's poll gap plus the overlap).
			await insertDownloads(
				emu(),
				[now() - 3 * HOUR, now() - 20 * MINUTE, now() - 15 * MINUTE],
				jobId,
			);
			const trigger = new ActiveTrigger(service.harness);
			expect(await trigger.ids()).toEqual([]);
			expect(trigger.state).toMatchObject({ version: 1 });

			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([]);

			await emu().clock.advance(MINUTE);
			const fresh = await insertDownloads(emu(), [now() - 10 * SECOND, now()], jobId);
			await emu().clock.advance(MINUTE);
			const result = await trigger.poll();
			expect(result.emitted.map((json) => json.id)).toEqual(fresh);
			const [first] = result.emitted;
			expect(first).toEqual({
				id: fresh[0],
				created_at: expect.stringMatching(/\+00:00$/),
				job_id: jobId,
				download_link: expect.stringContaining('/storage/v1/object/public/exports/'),
				expires_at: new Date(Date.parse(first.created_at as string) + DAY).toISOString(),
				is_expired: false,
				job: {
					url: 'https://Docs.Example.com/guide',
					email: 'ops@example.com',
					status: 'finished',
					files: 12,
				},
			});

			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([]);
		});

		// A poll without a state emits nothing: it leaves what is new to the next poll, which
		// starts from a kept state (under the task scheduler, the activation poll's, saved late).
		it.each([
			['durable poll cursors (the activation poll commits nothing)', 'durable', 1],
			["n8n's default after a restart (only emitting polls are saved)", 'emits', 0],
			[
				"n8n's task scheduler (the activation poll's state saved after the next poll)",
				'scheduler',
				1,
			],
		] as const)(
			'emits a download finished 40 s after activation once under %s',
			async (_, persistence, pollsWithoutState) => {
				await insertDownloads(emu(), [now() - 30 * MINUTE], jobId);
				const trigger = new ActiveTrigger(service.harness, {}, persistence);
				expect(await trigger.ids()).toEqual([]);
				await emu().clock.advance(40 * SECOND);
				const [finished] = await insertDownloads(emu(), [now()], jobId);
				for (let poll = 0; poll < pollsWithoutState; poll++) {
					await emu().clock.advance(20 * SECOND);
					expect(await trigger.ids()).toEqual([]);
				}
				await emu().clock.advance(MINUTE);
				expect(await trigger.ids()).toEqual([finished]);
				await emu().clock.advance(MINUTE);
				expect(await trigger.ids()).toEqual([]);
			},
		);

		it('after a state that was not kept, re-reads and emits nothing twice', async () => {
			const trigger = await activatedAMinuteAgo();
			const [first] = await insertDownloads(emu(), [now()], jobId);
			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([first]);
			// Idle polls: their state is not kept, the emitting poll's is.
			for (let i = 0; i < 3; i++) {
				await emu().clock.advance(MINUTE);
				expect(await trigger.ids()).toEqual([]);
			}
			const [second] = await insertDownloads(emu(), [now()], jobId);
			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([second]);
		});

		it('looks back as far as Poll Times make the gap between polls', async () => {
			await insertDownloads(emu(), [now() - 2 * HOUR], jobId);
			const everyHour = { pollTimes: { item: [{ mode: 'everyHour' }] } };
			const hourly = new ActiveTrigger(service.harness, everyHour, 'durable');
			expect(await hourly.ids()).toEqual([]);
			await emu().clock.advance(30 * MINUTE);
			const [finished] = await insertDownloads(emu(), [now()], jobId);
			await emu().clock.advance(30 * MINUTE);
			// Still without a state (durable cursors keep none of the activation poll): counted as new
			// 30 minutes after it finished, left for the next poll.
			expect(await hourly.ids()).toEqual([]);
			await emu().clock.advance(HOUR);
			expect(await hourly.ids()).toEqual([finished]);
		});

		it('emits the downloads already available at the poll after activation when asked to, valid ones only, once', async () => {
			const valid = await insertDownloads(emu(), [now() - 23 * HOUR, now() - MINUTE]);
			await insertDownloads(emu(), [now() - DAY - MINUTE]);
			const trigger = new ActiveTrigger(service.harness, { options: { emitExisting: true } });
			expect(await trigger.ids()).toEqual([]);
			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual(valid);
			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([]);
		});

		it('costs one request per idle poll, and one more (for all jobs) per poll with new downloads', async () => {
			const trigger = await activatedAMinuteAgo();
			let since = emu().log.length;
			await trigger.ids();
			expect(restRequests(emu(), since).all).toHaveLength(1);

			const jobs = (await emu().insert(
				'jobs',
				Array.from({ length: 50 }, (_, i) => ({
					url: `https://site${i}.example.com`,
					email: 'a@example.com',
				})),
			)) as IDataObject[];
			for (const job of jobs) await insertDownloads(emu(), [now()], job.id as number);
			await emu().clock.advance(MINUTE);
			since = emu().log.length;
			const result = await trigger.poll();
			expect(result.emitted).toHaveLength(50);
			expect(
				result.emitted.every((json) => (json.job as IDataObject).email === 'a@example.com'),
			).toBe(true);
			const requests = restRequests(emu(), since);
			expect(requests.downloads).toHaveLength(1);
			expect(requests.jobs).toHaveLength(1);
			expect(decodeURIComponent(requests.jobs[0].query)).toContain(
				`id=in.(${jobs.map((j) => j.id).join(',')})`,
			);
		});

		it('emits downloads sharing a time stamp, including one committed after the others were emitted', async () => {
			const trigger = await activatedAMinuteAgo();
			const stamp = now();
			const pair = await insertDownloads(emu(), [stamp, stamp]);
			expect(await trigger.ids()).toEqual(pair);
			await emu().clock.advance(MINUTE);
			const third = await insertDownloads(emu(), [stamp]);
			expect(await trigger.ids()).toEqual(third);
			expect(await trigger.ids()).toEqual([]);
		});

		it('emits a download committed late with an earlier created_at, within the overlap', async () => {
			const trigger = await activatedAMinuteAgo();
			const onTime = await insertDownloads(emu(), [now()]);
			expect(await trigger.ids()).toEqual(onTime);
			await emu().clock.advance(2 * MINUTE);
			// Its transaction started 8 minutes ago, before the row already emitted.
			const late = await insertDownloads(emu(), [now() - 8 * MINUTE]);
			const current = await insertDownloads(emu(), [now()]);
			expect(await trigger.ids()).toEqual([...late, ...current]);
			// The designed limit: a row that shows up more than the overlap after its created_at.
			await emu().clock.advance(MINUTE);
			await insertDownloads(emu(), [now() - OVERLAP_MS - 2 * MINUTE]);
			expect(await trigger.ids()).toEqual([]);
		});

		describe('a failed poll', () => {
			/** The node's own static data object, as n8n hands it to the node (mutations in place). */
			function watchStaticData(): IDataObject[] {
				const seen: IDataObject[] = [];
				const original = Workflow.prototype.getStaticData;
				jest.spyOn(Workflow.prototype, 'getStaticData').mockImplementation(function (
					this: Workflow,
					...args
				) {
					const data = original.apply(this, args);
					seen.push(data);
					return data;
				});
				return seen;
			}

			afterEach(() => jest.restoreAllMocks());

			it.each([
				[
					'the downloads request fails for good (503 on every retry)',
					{ match: { path: '/rest/v1/downloads' }, status: 503, retryAfter: 0, times: 4 },
					'503',
				],
				[
					'the token is refused again after the one re-login (401)',
					{ match: { path: '/rest/v1/downloads' }, status: 401, times: 2 },
					'401',
				],
				[
					'the jobs request fails after the downloads were read',
					{ match: { path: '/rest/v1/jobs' }, status: 503, retryAfter: 0, times: 4 },
					'503',
				],
			])(
				'throws and changes no state when %s; the next poll emits what was missed, once',
				async (_, fault, httpCode) => {
					const trigger = await activatedAMinuteAgo();
					const missed = await insertDownloads(emu(), [now() - SECOND, now()], jobId);
					const before = JSON.stringify(trigger.state);

					emu().fault(fault);
					const touched = watchStaticData();
					const since = emu().log.length;
					const failed = await trigger.poll();
					expect(failed.ok).toBe(false);
					expect(failed.error).toBeInstanceOf(NodeApiError);
					expect(failed.error?.httpCode).toBe(httpCode);
					// A 401 is tried again once, after n8n has logged in again.
					const logins = emu()
						.log.slice(since)
						.filter((entry) => entry.kind === 'token');
					expect(logins).toHaveLength(httpCode === '401' ? 1 : 0);
					// n8n (without durable cursors) hands the node its live static data: it must be untouched.
					expect(touched.length).toBeGreaterThan(0);
					for (const data of touched) expect(JSON.stringify(data)).toBe(before);
					jest.restoreAllMocks();

					await emu().clock.advance(MINUTE);
					const later = await insertDownloads(emu(), [now()], jobId);
					expect(await trigger.ids()).toEqual([...missed, ...later]);
					expect(await trigger.ids()).toEqual([]);
				},
			);
		});

		it('survives a restart: static data through JSON, a new harness (new login) and a new node instance', async () => {
			const first = await activatedAMinuteAgo();
			const before = await insertDownloads(emu(), [now()]);
			expect(await first.ids()).toEqual(before);

			const restarted = new ActiveTrigger(
				new NodeHarness({ baseUrl: emu().baseUrl, apiKey: emu().apiKey, ...emu().demoUser }),
			);
			restarted.staticData = JSON.parse(JSON.stringify(first.staticData));
			restarted.activating = false;
			await emu().clock.advance(MINUTE);
			const after = await insertDownloads(emu(), [now() - 30 * SECOND, now()]);
			expect(await restarted.ids()).toEqual(after);
		});

		it('never emits links that expired while the workflow was inactive, and emits the ones still valid', async () => {
			const trigger = await activatedAMinuteAgo();
			const early = await insertDownloads(emu(), [now()]);
			await emu().clock.advance(3 * HOUR);
			const later = await insertDownloads(emu(), [now()]);
			// Inactive (or every poll failing) for a day: the first link has expired by now.
			await emu().clock.advance(DAY - HOUR);
			const result = await trigger.poll();
			expect(result.emitted.map((json) => json.id)).toEqual(later);
			expect(result.emitted[0].is_expired).toBe(false);
			expect(early).toHaveLength(1);
			await emu().clock.advance(2 * HOUR);
			expect(await trigger.ids()).toEqual([]);
		});

		it('reads 10 000 historical downloads once; then 3 new ones cost one request and give 3 items', async () => {
			// One every 8 s over the last 22 hours: 10 000 links still valid.
			const start = now() - 15 * MINUTE - 10_000 * 8 * SECOND;
			await insertDownloads(
				emu(),
				Array.from({ length: 10_000 }, (_, i) => start + i * 8 * SECOND),
			);
			const trigger = new ActiveTrigger(service.harness, { includeJob: false });
			expect(await trigger.ids()).toEqual([]);
			expect(Object.keys(trigger.state.seen as IDataObject).length).toBeLessThanOrEqual(
				OVERLAP_MS / (8 * SECOND) + 1,
			);

			await emu().clock.advance(MINUTE);
			let since = emu().log.length;
			expect(await trigger.ids()).toEqual([]);
			const idle = restRequests(emu(), since);
			expect(idle.all).toHaveLength(1);
			// The idle answer holds the overlap's 75 rows, not the history.
			expect(idle.all[0].responseBytes).toBeLessThan(100 * 160);

			await emu().clock.advance(MINUTE);
			const fresh = await insertDownloads(emu(), [now() - 2 * SECOND, now() - SECOND, now()]);
			since = emu().log.length;
			expect(await trigger.ids()).toEqual(fresh);
			expect(emu().log.slice(since)).toHaveLength(1);
		});

		describe('clock skew between this machine and the service', () => {
			it.each([
				['ahead', 5 * MINUTE],
				['behind', -5 * MINUTE],
			])('is exact when the service clock is 5 minutes %s', async (_, skew) => {
				await service.emulator.close();
				service = await startFrozenService(skew);
				// Judged by this machine's clock, one of these two would be wrong either way.
				const stillValid = await insertDownloads(emu(), [now() - DAY + 2 * MINUTE]);
				await insertDownloads(emu(), [now() - DAY - 2 * MINUTE]);
				const trigger = new ActiveTrigger(service.harness, {
					includeJob: false,
					options: { emitExisting: true },
				});
				expect(await trigger.ids()).toEqual([]);

				// The cursor is the service's created_at, not this machine's "now".
				await emu().clock.advance(SECOND);
				const fresh = await insertDownloads(emu(), [now()]);
				expect(await trigger.ids()).toEqual([...stillValid, ...fresh]);
				await emu().clock.advance(MINUTE);
				const next = await insertDownloads(emu(), [now()]);
				expect(await trigger.ids()).toEqual(next);
				expect(await trigger.ids()).toEqual([]);
			});
		});

		describe('Job URL Contains', () => {
			it('emits only downloads of matching jobs (not case-sensitive), with one jobs request even without Include Job', async () => {
				const [other] = (await emu().insert('jobs', [
					{ url: 'https://shop.example.org', email: 'b@example.com' },
				])) as IDataObject[];
				const trigger = new ActiveTrigger(service.harness, {
					includeJob: false,
					options: { jobUrlContains: ' docs.example.COM ' },
				});
				await trigger.ids();
				await emu().clock.advance(MINUTE);
				const wanted = await insertDownloads(emu(), [now() - SECOND], jobId);
				await insertDownloads(emu(), [now()], other.id as number);
				await insertDownloads(emu(), [now()], null);
				const since = emu().log.length;
				const result = await trigger.poll();
				expect(result.emitted.map((json) => json.id)).toEqual(wanted);
				expect(result.emitted[0].job).toBeUndefined();
				expect(restRequests(emu(), since).jobs).toHaveLength(1);
				// The others were looked at: they do not come back.
				await emu().clock.advance(MINUTE);
				expect(await trigger.ids()).toEqual([]);
			});
		});

		describe('Fetch Test Event (manual mode)', () => {
			it('shows the most recent valid download without touching the cursor', async () => {
				const trigger = new ActiveTrigger(service.harness);
				await insertDownloads(emu(), [now() - HOUR], jobId);
				const [latest] = await insertDownloads(emu(), [now() - MINUTE], jobId);
				await trigger.ids();
				const state = JSON.stringify(trigger.staticData);
				const { emitted, staticData } = await trigger.fetchTestEvent();
				expect(emitted?.[0].map((item) => item.json.id)).toEqual([latest]);
				expect(emitted?.[0][0].json).toMatchObject({
					is_expired: false,
					job: { url: 'https://Docs.Example.com/guide' },
				});
				expect(JSON.stringify(staticData)).toBe(state);
			});

			it('finds the most recent download of a matching job', async () => {
				const [other] = (await emu().insert('jobs', [
					{ url: 'https://shop.example.org', email: 'b@example.com' },
				])) as IDataObject[];
				const [wanted] = await insertDownloads(emu(), [now() - 2 * HOUR], jobId);
				await insertDownloads(emu(), [now() - HOUR], other.id as number);
				const trigger = new ActiveTrigger(service.harness, {
					options: { jobUrlContains: 'docs.example' },
				});
				const { emitted } = await trigger.fetchTestEvent();
				expect(emitted?.[0].map((item) => item.json.id)).toEqual([wanted]);
			});

			it('says clearly that there is nothing to show, instead of returning nothing', async () => {
				await insertDownloads(emu(), [now() - DAY - MINUTE], jobId);
				const trigger = new ActiveTrigger(service.harness);
				await expect(trigger.fetchTestEvent()).rejects.toThrow(NodeOperationError);
				await expect(trigger.fetchTestEvent()).rejects.toThrow('No download with a valid link');
				await expect(
					trigger.fetchTestEvent({ options: { jobUrlContains: 'shop' } }),
				).rejects.toThrow('No download with a valid link whose job URL contains "shop"');
				expect(trigger.staticData).toEqual({});
			});
		});
	});
});
