// The trigger meets broken answers (issue 47): a 200 whose body is an HTML page, a cut-off JSON
// body, an object or nothing, on the downloads read or the jobs read, with and without Include Job
// and Job URL Contains. It loses nothing and emits nothing twice: a download whose job could not
// be read is not handled yet, and a job that could not be read is not a deleted job.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { FaultSpec } from '../../stack/service/types';
import type { Service } from '../support';
import { ActiveTrigger, insertDownloads, MINUTE, SECOND, startFrozenService } from './support';

const HTML = '<!doctype html><html><body><h1>Bad Gateway</h1></body></html>';

/** The broken bodies, by what the error says came back. */
const BODIES: Record<string, [Omit<FaultSpec, 'match'>, RegExp]> = {
	html: [{ status: 200, body: HTML, contentType: 'text/html' }, /an HTML page, not JSON/],
	cut: [{ cutAfterBytes: 12 }, /a JSON body cut off after 12 bytes/],
	object: [{ status: 200, body: { message: 'ok' } }, /an object where a list was due/],
	empty: [{ cutAfterBytes: 0 }, /an empty body where a list was due/],
};

const SETTINGS: Record<string, INodeParameters> = {
	'Include Job': { includeJob: true },
	'neither Include Job nor Job URL Contains': { includeJob: false },
	'Job URL Contains': { includeJob: false, options: { jobUrlContains: 'docs.example' } },
	'Include Job and Job URL Contains': {
		includeJob: true,
		options: { jobUrlContains: 'docs.example' },
	},
};

/** Which read breaks, how, under which settings: every read of a poll under every setting. */
const CASES: Array<[string, 'downloads' | 'jobs', keyof typeof BODIES]> = [
	['Include Job', 'downloads', 'html'],
	['neither Include Job nor Job URL Contains', 'downloads', 'cut'],
	['Job URL Contains', 'downloads', 'object'],
	['Include Job and Job URL Contains', 'downloads', 'empty'],
	['Include Job', 'jobs', 'cut'],
	['Job URL Contains', 'jobs', 'html'],
	['Include Job and Job URL Contains', 'jobs', 'object'],
	['Job URL Contains', 'jobs', 'empty'],
];

describe('Website Export Trigger: broken answers lose nothing and emit nothing twice', () => {
	let service: Service;
	let jobId: number;
	const emu = () => service.emulator;
	const now = () => emu().clock.now();

	beforeEach(async () => {
		service = await startFrozenService();
		const job = { url: 'https://docs.example.com/guide', email: 'ops@example.com' };
		const [row] = (await emu().insert('jobs', [
			{ ...job, status: 'finished', files: 3 },
		])) as IDataObject[];
		jobId = row.id as number;
	});
	afterEach(async () => {
		await service?.emulator.close();
	});

	/** A trigger with `settings` whose baseline was taken a minute ago, and one new download. */
	const triggerWithNewDownload = async (settings: INodeParameters) => {
		const trigger = new ActiveTrigger(service.harness, settings);
		expect(await trigger.ids()).toEqual([]);
		await emu().clock.advance(MINUTE);
		const [download] = await insertDownloads(emu(), [now() - SECOND], jobId);
		return { trigger, download };
	};

	const breakRead = (table: string, body: keyof typeof BODIES, times: number) =>
		emu().fault({ match: { method: 'GET', path: `/rest/v1/${table}` }, ...BODIES[body][0], times });

	it.each(CASES)(
		'%s, the %s read broken at every attempt (%s): the poll fails, the next emits it once',
		async (setting, table, body) => {
			const { trigger, download } = await triggerWithNewDownload(SETTINGS[setting]);
			const before = JSON.stringify(trigger.state);
			breakRead(table, body, 4);
			const failed = await trigger.poll();
			expect(failed.ok).toBe(false);
			expect(failed.error).toBeInstanceOf(NodeApiError);
			expect(failed.error?.message).toMatch(BODIES[body][1]);
			expect(JSON.stringify(trigger.state)).toBe(before);

			await emu().clock.advance(MINUTE);
			const next = await trigger.poll();
			expect(next.emitted.map((json) => json.id)).toEqual([download]);
			if (SETTINGS[setting].includeJob)
				expect(next.emitted[0].job).toMatchObject({ url: 'https://docs.example.com/guide' });
			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([]);
		},
	);

	it.each([
		['downloads', 'html'],
		['jobs', 'cut'],
	] as const)(
		'the %s read broken once (%s): tried again, the download emitted by this poll, once',
		async (table, body) => {
			const settings = SETTINGS['Include Job and Job URL Contains'];
			const { trigger, download } = await triggerWithNewDownload(settings);
			breakRead(table, body, 1);
			const result = await trigger.poll();
			expect(result.emitted.map((json) => json.id)).toEqual([download]);
			expect(result.emitted[0].job).toMatchObject({ status: 'finished', files: 3 });
			await emu().clock.advance(MINUTE);
			expect(await trigger.ids()).toEqual([]);
		},
	);
});
