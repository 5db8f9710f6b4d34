/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: issue 42, each download once even when polls of one trigger overlap in one n8n process (a
// poll slower than the interval, two Poll Times entries in the same minute), in n8n's default mode
// (one static-data object for every poll) and under its task scheduler (each poll on a copy).
import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node';
import type { Emulator } from '../../stack/service';
import type { Service } from '../support';
import { insertDownloads, MINUTE, startFrozenService, TriggerProcess } from './support';

/**
 * Holds the next downloads read at the service until `release()`: a slow answer, whose rows are
 * read from the database only once released. `arrived` settles when it has come in.
 */
function holdNextDownloadsRead(emu: Emulator) {
	let release = () => {};
	const released = new Promise<void>((resolve) => (release = resolve));
	let arrive = () => {};
	const arrived = new Promise<void>((resolve) => (arrive = resolve));
	const remove = emu.onArrival((entry) => {
		if (entry.kind !== 'rest' || entry.table !== 'downloads') return;
		remove();
		arrive();
		return released;
	});
	return { arrived, release };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Website Export Trigger: polls of one trigger that overlap in one process', () => {
	let service: Service;
	const emu = () => service.emulator;
	const now = () => emu().clock.now();

	beforeEach(async () => {
		service = await startFrozenService();
	});
	afterEach(async () => {
		await service?.emulator.close();
	});

	/** A trigger activated a minute ago (its activation poll took the baseline, kept by n8n). */
	async function activated(
		persistence: 'shared' | 'copies',
		parameters = {},
	): Promise<TriggerProcess> {
		const trigger = new TriggerProcess(service.harness, persistence, parameters);
		expect((await trigger.poll(undefined, { activation: true })).ids).toEqual([]);
		await emu().clock.advance(MINUTE);
		return trigger;
	}

	it.each([
		["n8n's default mode (every poll on the same static-data object)", 'shared'],
		["n8n's task scheduler (each poll on its own copy of the saved static data)", 'copies'],
	] as const)(
		'a poll held on a slow answer while a download finishes, and the next poll meanwhile: the download once, under %s',
		async (_, persistence) => {
			const trigger = await activated(persistence);
			const held = holdNextDownloadsRead(emu());
			const slow = trigger.poll();
			await held.arrived;
			const [finished] = await insertDownloads(emu(), [now()]);
			// The next cron tick, while the slow poll waits for its answer.
			const next = await trigger.poll();
			held.release();
			const first = await slow;
			expect({ slow: first.ids, next: next.ids }).toEqual({ slow: [finished], next: [] });

			// What comes after: nothing twice, the next download once.
			await emu().clock.advance(MINUTE);
			expect((await trigger.poll()).ids).toEqual([]);
			const [later] = await insertDownloads(emu(), [now()]);
			await emu().clock.advance(MINUTE);
			expect((await trigger.poll()).ids).toEqual([later]);
		},
	);

	it('task scheduler: a poll on a copy loaded before the previous poll saved its state emits nothing that poll emitted, and keeps it seen', async () => {
		const trigger = await activated('copies');
		const held = holdNextDownloadsRead(emu());
		const slow = trigger.poll();
		await held.arrived;
		const [finished] = await insertDownloads(emu(), [now()]);
		// n8n loads the next poll's copy before that poll starts: here, before the slow one saved.
		const stale = trigger.load();
		held.release();
		expect(await slow).toEqual({ ids: [finished], saved: true });

		await emu().clock.advance(MINUTE);
		const [other] = await insertDownloads(emu(), [now()]);
		expect((await trigger.poll(stale)).ids).toEqual([other]);
		// Its state, saved as it emitted, holds the download the slow poll emitted.
		expect(Object.keys(trigger.state.seen as object)).toContain(String(finished));
		await emu().clock.advance(MINUTE);
		expect((await trigger.poll()).ids).toEqual([]);
	});

	it('task scheduler: the downloads of a poll past its budget, which n8n abandoned, are emitted by the next poll', async () => {
		const trigger = await activated('copies');
		const held = holdNextDownloadsRead(emu());
		const abandoned = trigger.poll(undefined, { budgetMs: 100, dropped: true });
		await held.arrived;
		const [finished] = await insertDownloads(emu(), [now()]);
		await pause(300);
		held.release();
		expect(await abandoned).toEqual({ ids: [], saved: false });

		await emu().clock.advance(MINUTE);
		expect((await trigger.poll()).ids).toEqual([finished]);
		await emu().clock.advance(MINUTE);
		expect((await trigger.poll()).ids).toEqual([]);
	});

	it.each(['shared', 'copies'] as const)(
		'two Poll Times entries firing in the same minute (%s): two polls started at once emit each download once',
		async (persistence) => {
			const pollTimes = { item: [{ mode: 'everyMinute' }, { mode: 'everyHour' }] };
			const trigger = await activated(persistence, { pollTimes });
			const finished = await insertDownloads(emu(), [now() - 1000, now()]);
			const polls = await Promise.all([trigger.poll(), trigger.poll()]);
			expect(polls.flatMap((poll) => poll.ids)).toEqual(finished);
			await emu().clock.advance(MINUTE);
			expect((await trigger.poll()).ids).toEqual([]);
		},
	);

	it('a failed poll lets the next one run: it emits what was missed', async () => {
		const trigger = await activated('shared');
		const [finished] = await insertDownloads(emu(), [now()]);
		emu().fault({ match: { path: '/rest/v1/downloads' }, status: 503, retryAfter: 0, times: 4 });
		await expect(trigger.poll()).rejects.toThrow();
		expect((await trigger.poll()).ids).toEqual([finished]);
	});

	it('Fetch Test Event is neither held off by an active poll under way nor holds one off', async () => {
		const trigger = await activated('shared');
		const fetchTestEvent = () =>
			service.harness.poll(new WebsiteExportTrigger(), { parameters: {}, mode: 'manual' });
		const [first] = await insertDownloads(emu(), [now()]);
		const held = holdNextDownloadsRead(emu());
		const slow = trigger.poll();
		await held.arrived;
		expect((await fetchTestEvent()).emitted?.[0].map((item) => item.json.id)).toEqual([first]);
		held.release();
		expect((await slow).ids).toEqual([first]);

		await emu().clock.advance(MINUTE);
		const [second] = await insertDownloads(emu(), [now()]);
		const heldFetch = holdNextDownloadsRead(emu());
		const fetching = fetchTestEvent();
		await heldFetch.arrived;
		expect((await trigger.poll()).ids).toEqual([second]);
		heldFetch.release();
		expect((await fetching).emitted?.[0].map((item) => item.json.id)).toEqual([second]);
	});
});
