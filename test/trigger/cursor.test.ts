import type { IDataObject } from 'n8n-workflow';

import { DOWNLOAD_VALIDITY_MS } from '../../nodes/shared/constants';
import type { DownloadRecord } from '../../nodes/shared/downloads';
import { CLOCK_MARGIN_MS } from '../../nodes/shared/downloads';
import {
	advance,
	OVERLAP_MS,
	queryFilters,
	readState,
	stateLossLookbackMs,
	writeState,
	type CursorState,
} from '../../nodes/WebsiteExportTrigger/cursor';
import { cronGapMs, longestPollGapMs } from '../../nodes/WebsiteExportTrigger/pollGap';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const MIN = 60_000;
/** A poll every minute (n8n's default Poll Times). */
const LOOKBACK = stateLossLookbackMs(MIN);
/** Emit only downloads new to the trigger (Emit Downloads Already Available off). */
const NEW_ONLY = { emitExisting: false, lookbackMs: LOOKBACK };

/** A download created `atMs` (ms since epoch), written the way PostgREST writes it. */
function download(id: number, atMs: number): DownloadRecord {
	const iso = new Date(atMs).toISOString().replace('Z', '');
	return {
		id,
		created_at: `${iso}123+00:00`,
		job_id: id,
		download_link: `https://x.example/${id}.zip`,
	};
}

const ids = (rows: DownloadRecord[]) => rows.map((row) => row.id);

describe('trigger cursor (pure)', () => {
	describe('readState', () => {
		it('accepts its own state, after a JSON round trip', () => {
			const state: CursorState = { version: 1, newest: T0, seen: { '1': T0 } };
			expect(readState(JSON.parse(JSON.stringify(state)) as IDataObject)).toEqual(state);
			expect(readState({ version: 1, newest: null, seen: {} })).toEqual({
				version: 1,
				newest: null,
				seen: {},
			});
		});

		it.each([
			['empty static data', {}],
			['another version', { version: 2, newest: T0, seen: {} }],
			['a broken newest', { version: 1, newest: 'yesterday', seen: {} }],
			['broken ids', { version: 1, newest: T0, seen: { '1': 'x' } }],
			['seen as a list', { version: 1, newest: T0, seen: [1, 2] }],
		])('treats %s as no state', (_, data) => {
			expect(readState(data as IDataObject)).toBeUndefined();
		});
	});

	describe('queryFilters', () => {
		it('asks for the 24 h window only on the first poll, reaching back by the clock margin', () => {
			expect(queryFilters(undefined, T0)).toEqual([
				{
					column: 'created_at',
					operator: 'gt',
					value: new Date(T0 - DOWNLOAD_VALIDITY_MS - CLOCK_MARGIN_MS).toISOString(),
				},
			]);
		});

		it('asks from the newest created_at seen minus the overlap on, within the window', () => {
			const filters = queryFilters({ version: 1, newest: T0, seen: {} }, T0 + 5 * MIN);
			expect(filters).toEqual([
				{ column: 'created_at', operator: 'gte', value: new Date(T0 - OVERLAP_MS).toISOString() },
				{
					column: 'created_at',
					operator: 'gt',
					value: new Date(T0 + 5 * MIN - DOWNLOAD_VALIDITY_MS - CLOCK_MARGIN_MS).toISOString(),
				},
			]);
		});
	});

	describe('advance', () => {
		const rows = [download(1, T0 - 30 * MIN), download(2, T0 - 2 * MIN), download(3, T0 - MIN)];

		it('without state, leaves what is newer than the lookback to the next poll and remembers the rest as the baseline', () => {
			const withinLookback = advance(undefined, rows, T0, {
				emitExisting: false,
				lookbackMs: 5 * MIN,
			});
			expect(withinLookback.fresh).toEqual([]);
			expect(Object.keys(withinLookback.next.seen)).toEqual(['1']);
			// The next query reaches back to them, and the next poll emits them.
			expect(withinLookback.next.newest).toBe(T0 - 30 * MIN);
			const afterIt = advance(withinLookback.next, rows, T0 + MIN, NEW_ONLY);
			expect(ids(afterIt.fresh)).toEqual([2, 3]);
			// Activation long after the last download: nothing is new.
			const { fresh, next } = advance(undefined, rows, T0 + LOOKBACK, NEW_ONLY);
			expect(fresh).toEqual([]);
			expect(next.newest).toBe(T0 - MIN + 0);
			// Row 1 is older than the overlap: the next query cannot return it, so it is not kept.
			expect(Object.keys(next.seen).sort()).toEqual(['2', '3']);
		});

		it('takes a download another poll handed on as seen (the same id and created_at), with or without state', () => {
			const state: CursorState = {
				version: 1,
				newest: T0 - 30 * MIN,
				seen: { '1': T0 - 30 * MIN },
			};
			// Id 3 with another created_at is another download (another service's, say): new.
			const handedOn = { '2': T0 - 2 * MIN, '3': T0 - 5 * MIN };
			const { fresh, next } = advance(state, rows, T0, { ...NEW_ONLY, handedOn });
			expect(ids(fresh)).toEqual([3]);
			expect(next).toEqual({
				version: 1,
				newest: T0 - MIN,
				seen: { '2': T0 - 2 * MIN, '3': T0 - MIN },
			});
			// Without state: not left to the next poll either (only row 2 is).
			const first = advance(undefined, rows, T0, { ...NEW_ONLY, handedOn: { '3': T0 - MIN } });
			expect(first.fresh).toEqual([]);
			expect(first.next.seen).toEqual({ '3': T0 - MIN });
			expect(ids(advance(first.next, rows.slice(1), T0 + MIN, NEW_ONLY).fresh)).toEqual([2]);
		});

		it('emits the valid existing downloads at the poll after the first when asked to, and only those', () => {
			const expired = download(9, T0 - DOWNLOAD_VALIDITY_MS - MIN);
			const options = { emitExisting: true, lookbackMs: LOOKBACK };
			const first = advance(undefined, [expired, ...rows], T0, options);
			expect(first.fresh).toEqual([]);
			const second = advance(first.next, [expired, ...rows], T0 + MIN, options);
			expect(ids(second.fresh)).toEqual([1, 2, 3]);
			// Row 1 is older than the overlap now: the next query does not return it.
			expect(advance(second.next, rows.slice(1), T0 + 2 * MIN, options).fresh).toEqual([]);
		});

		it('emits rows sharing a timestamp and rows committed late inside the overlap, once', () => {
			const base = advance(undefined, rows, T0 + LOOKBACK, NEW_ONLY).next;
			const sameTime = download(4, T0 - MIN);
			const late = download(5, T0 - OVERLAP_MS + MIN);
			const first = advance(base, [rows[1], rows[2], sameTime, late], T0 + LOOKBACK, NEW_ONLY);
			expect(ids(first.fresh)).toEqual([4, 5]);
			const again = advance(first.next, [rows[1], rows[2], sameTime, late], T0 + 2 * MIN, NEW_ONLY);
			expect(again.fresh).toEqual([]);
		});

		it('never emits an expired link, judged by the service time given', () => {
			const state: CursorState = {
				version: 1,
				newest: T0 - DOWNLOAD_VALIDITY_MS - 5 * MIN,
				seen: {},
			};
			const almost = download(7, T0 - DOWNLOAD_VALIDITY_MS + 1000);
			expect(ids(advance(state, [almost], T0, NEW_ONLY).fresh)).toEqual([7]);
			expect(advance(state, [almost], T0 + 1000, NEW_ONLY).fresh).toEqual([]);
		});

		it('drops ids the next query cannot return: before the overlap, or expired', () => {
			const state: CursorState = {
				version: 1,
				newest: T0,
				seen: { '1': T0 - OVERLAP_MS - 1, '2': T0 - OVERLAP_MS, '3': T0 },
			};
			expect(Object.keys(advance(state, [], T0, NEW_ONLY).next.seen)).toEqual(['2', '3']);
			const dayLater = T0 + DOWNLOAD_VALIDITY_MS;
			expect(advance(state, [], dayLater, NEW_ONLY).next.seen).toEqual({});
		});

		it('keeps the state bounded by the overlap however many rows pass', () => {
			let state = advance(undefined, [], T0, NEW_ONLY).next;
			let id = 0;
			for (let minute = 0; minute < 600; minute++) {
				const batch = Array.from({ length: 5 }, () => download(++id, T0 + minute * MIN));
				state = advance(state, batch, T0 + minute * MIN + 1000, NEW_ONLY).next;
			}
			expect(Object.keys(state.seen).length).toBeLessThanOrEqual(5 * (OVERLAP_MS / MIN + 1));
			expect(state.newest).toBe(T0 + 599 * MIN);
		});

		it('does not change the state it was given', () => {
			const state: CursorState = { version: 1, newest: T0, seen: { '1': T0 } };
			const copy = JSON.parse(JSON.stringify(state));
			advance(state, [download(2, T0 + MIN)], T0 + 2 * MIN, NEW_ONLY);
			expect(state).toEqual(copy);
		});
	});

	describe('writeState', () => {
		it('replaces the static data, and leaves it alone when nothing changed', () => {
			const data: IDataObject = { stale: true };
			const state: CursorState = { version: 1, newest: T0, seen: { '1': T0 } };
			writeState(data, state);
			expect(data).toEqual(state);

			const writes: string[] = [];
			const watched = new Proxy(data, {
				set: (target, key, value) => {
					writes.push(String(key));
					return Reflect.set(target, key, value);
				},
				deleteProperty: (target, key) => {
					writes.push(String(key));
					return Reflect.deleteProperty(target, key);
				},
			});
			writeState(watched, JSON.parse(JSON.stringify(state)));
			expect(writes).toEqual([]);
		});
	});

	describe('longestPollGapMs', () => {
		it.each([
			["nothing (n8n's default, every minute)", undefined, MIN],
			['every minute', { item: [{ mode: 'everyMinute' }] }, MIN],
			['every 5 minutes', { item: [{ mode: 'everyX', value: 5, unit: 'minutes' }] }, 5 * MIN],
			['every 2 hours', { item: [{ mode: 'everyX', value: 2, unit: 'hours' }] }, 120 * MIN],
			[
				'every hour and every 10 minutes',
				{ item: [{ mode: 'everyHour' }, { mode: 'everyX', value: 10, unit: 'minutes' }] },
				10 * MIN,
			],
			[
				"every week (capped at a link's 24 h)",
				{ item: [{ mode: 'everyWeek' }] },
				DOWNLOAD_VALIDITY_MS,
			],
			[
				'cron every 15 minutes',
				{ item: [{ mode: 'custom', cronExpression: '0 */15 * * * *' }] },
				15 * MIN,
			],
		])('%s', (_, pollTimes, expected) => {
			expect(longestPollGapMs(pollTimes)).toBe(expected);
		});

		it.each([
			['*/10 * * * *', 10 * MIN],
			['0 0,30 9-17 * * *', (24 - 17 + 9) * 60 * MIN - 30 * MIN],
			['30 * * * * *', MIN],
			['0 0 9 * * 1-5', DOWNLOAD_VALIDITY_MS],
			['not a cron', DOWNLOAD_VALIDITY_MS],
		])('cron %s', (expression, expected) => {
			expect(cronGapMs(expression)).toBe(expected);
		});
	});
});
