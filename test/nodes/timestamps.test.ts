// Any created_at format the service may use (the spec leaves it open), read the same under any
// host time zone: jest runs under TZ=Pacific/Chatham (+13:45) in CI.
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { parseTimestamp } from '../../nodes/shared/timestamps';
import { T0 } from '../service/helpers';
import { TIMESTAMP_FORMATS } from '../../stack/service/types';
import { serviceEachTest } from '../support';
import { runError, runJson } from './helpers';

const HOUR = 3_600_000;

// jest runs under a non-UTC zone, so the rows without an offset also show the host zone moves nothing.
describe('parseTimestamp', () => {
	it.each([
		['2026-11-22T18:07:14.764Z', T0],
		['2026-11-22T18:07:14.764+00:00', T0],
		['2026-11-22T18:07:14.764+00', T0],
		['2026-11-22T18:07:14.764', T0],
		['2026-11-22 18:07:14.764+00', T0],
		['2026-11-22 18:07:14.764', T0],
		['2026-11-22T18:07:14.764123+00:00', T0],
		['2026-11-22T18:07:14.7641+00:00', T0],
		['2026-11-22T18:07:14.76+00:00', T0 - 4],
		['2026-11-22T18:07:14.7+00:00', T0 - 64],
		['2026-11-22T18:07:14+00:00', T0 - 764],
		['2026-11-22T18:07:14.', NaN],
		['2026-11-22T23:37:14.764+05:30', T0],
		['2026-11-22T10:07:14.764-0800', T0],
		['2026-11-22T18:07:14.764 UTC', T0],
		[Math.floor(T0 / 1000), T0 - 764],
		[String(Math.floor(T0 / 1000)), T0 - 764],
		[T0, T0],
		[String(T0), T0],
		['2026-02-30T00:00:00Z', NaN],
		['yesterday', NaN],
		['', NaN],
		[null, NaN],
	])('%p → %p', (input, expected) => {
		expect(parseTimestamp(input)).toBe(expected);
	});
});

describe('Website Export node: downloads in every created_at format', () => {
	// A frozen clock (at the real time: Only Valid Links also reads n8n's): the times compared
	// below move only when the test moves them.
	const service = serviceEachTest({ jobDurationMs: 1, freezeClock: true });

	/** A download whose job finished `ageMs` ago by the service's clock. */
	async function downloadAged(ageMs: number): Promise<{ id: number; createdMs: number }> {
		const [job] = (await service.emulator.insert('jobs', [
			{ url: 'https://example.com', email: 'me@example.com' },
		])) as IDataObject[];
		await service.emulator.clock.advance(10);
		const download = ((await service.emulator.rows('downloads')) as IDataObject[]).find(
			(row) => row.job_id === job.id,
		) as IDataObject;
		const createdMs = parseTimestamp(download.created_at);
		await service.emulator.clock.advance(ageMs);
		return { id: download.id as number, createdMs };
	}

	it.each(TIMESTAMP_FORMATS)(
		'%s: a 23.5-hour-old link is valid, expires 24 h after it was made, and is listed',
		async (format) => {
			service.emulator.settings.downloadTimestamps = format;
			const { id, createdMs } = await downloadAged(23.5 * HOUR);
			const stored = ((await service.emulator.rows('downloads')) as IDataObject[])[0];
			// The download was made as its job ended: 1 ms (jobDurationMs) after the insert, 10 ms
			// before the clock moved on 23.5 h; epoch seconds drop the milliseconds.
			const made = service.emulator.clock.now() - 23.5 * HOUR - 10 + 1;
			expect(createdMs).toBe(format === 'epoch-seconds' ? made - (made % 1000) : made);
			const [got] = await runJson(service, {
				resource: 'download',
				operation: 'get',
				selectBy: 'id',
				recordId: String(id),
			});
			expect(got).toEqual({
				...stored,
				expires_at: new Date(createdMs + 24 * HOUR).toISOString(),
				is_expired: false,
			});
			const listed = await runJson(service, {
				resource: 'download',
				operation: 'getAll',
				returnAll: true,
				onlyValidLinks: true,
			});
			expect(listed.map((row) => row.id)).toEqual([id]);
		},
	);

	// The service's clock moves 24.5 h here, n8n's does not: validity must be the service's verdict.
	it.each(TIMESTAMP_FORMATS)(
		'%s: a 24.5-hour-old link is expired, and left out by Only Valid Links',
		async (format) => {
			service.emulator.settings.downloadTimestamps = format;
			const { id } = await downloadAged(24.5 * HOUR);
			const [got] = await runJson(service, {
				resource: 'download',
				operation: 'get',
				selectBy: 'id',
				recordId: String(id),
			});
			expect(got.is_expired).toBe(true);
			expect(
				await runJson(service, {
					resource: 'download',
					operation: 'getAll',
					returnAll: true,
					onlyValidLinks: true,
				}),
			).toEqual([]);
		},
	);

	it('names the download and the value when created_at cannot be read', async () => {
		service.emulator.fault({
			match: { method: 'GET', path: '/rest/v1/downloads' },
			status: 200,
			body: [
				{
					id: 77,
					created_at: 'last Tuesday',
					job_id: 1,
					download_link: 'https://example.com/a.zip',
				},
			],
		});
		const error = await runError(service, {
			resource: 'download',
			operation: 'get',
			selectBy: 'id',
			recordId: '77',
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('Download 77 has a created_at the node cannot read: "last Tuesday"');
	});
});
