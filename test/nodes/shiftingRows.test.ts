// Get Many → Return All while another writer changes rows between its pages (issue 47, item 2):
// every row that matched from the first page to the last is returned, once; it stops on evidence
// of the end (an empty page, or one shorter than the row cap), never on page 1's count.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startService, type Service } from '../support';
import { runJson } from './helpers';

const SECOND = 1000;
const JOB_MS = 60 * SECOND;

/** Newest first: F finished all along, Q queued until the job lifecycle finishes it. */
const LAYOUT = 'FFFQFQFQFF';

const finishedNewestFirst: INodeParameters = {
	resource: 'job',
	operation: 'getAll',
	returnAll: true,
	sort: 'newest',
	filters: { status: 'finished' },
};

describe('Get Many → Return All while rows change between pages (issue 47, item 2)', () => {
	let service: Service;
	/** The jobs of LAYOUT, newest first. */
	let jobs: IDataObject[];

	beforeEach(async () => {
		service = await startService({ freezeClock: true, jobDurationMs: JOB_MS });
		service.emulator.settings.maxRows = 3;
		const start = service.emulator.clock.now() - 10 * SECOND;
		const oldestFirst = [...LAYOUT].reverse().map((kind, i) => ({
			url: `https://site${i}.example.com`,
			email: 'a@example.com',
			status: kind === 'F' ? 'finished' : 'queued',
			created_at: new Date(start + i * 100).toISOString(),
		}));
		jobs = ((await service.emulator.insert('jobs', oldestFirst)) as IDataObject[]).reverse();
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	/** Runs `change` as page `page` of the jobs listing arrives, before the service reads it. */
	const beforePage = (page: number, change: () => Promise<unknown>) => {
		let pages = 0;
		const stop = service.emulator.onArrival(async (entry) => {
			if (entry.method !== 'GET' || entry.table !== 'jobs' || ++pages !== page) return;
			stop();
			await change();
		});
	};

	const ids = (rows: IDataObject[]) => rows.map((row) => row.id as number);
	const ofKind = (kind: string) => jobs.filter((_, i) => LAYOUT[i] === kind);

	it('the queued jobs finishing between page 1 and page 2 make no finished job go missing', async () => {
		// The service's own lifecycle: the queued jobs finish once the clock passes their duration.
		beforePage(2, async () => await service.emulator.clock.advance(JOB_MS));
		const rows = await runJson(service, finishedNewestFirst);
		// Each matched from the first page to the last (the queued ones since page 2, after it).
		expect(ids(rows)).toEqual(ids(jobs));
		expect(rows.every((row) => row.status === 'finished')).toBe(true);
	});

	it('an unread row deleted, a newer one inserted and the queued finishing, all at once', async () => {
		const unread = ofKind('F').at(-1) as IDataObject;
		let inserted: IDataObject[] = [];
		beforePage(2, async () => {
			await service.emulator.remove('jobs', [unread.id as number]);
			const newest = { url: 'https://new.example.com', email: 'a@example.com' };
			inserted = (await service.emulator.insert('jobs', [
				{ ...newest, status: 'finished' },
			])) as IDataObject[];
			await service.emulator.clock.advance(JOB_MS);
		});
		const rows = await runJson(service, finishedNewestFirst);
		const returned = ids(rows);
		expect(new Set(returned).size).toBe(returned.length);
		const throughout = ofKind('F').filter((job) => job.id !== unread.id);
		expect(ids(throughout).filter((id) => !returned.includes(id))).toEqual([]);
		// Newest first, keyset paging: a row inserted before page 2 sits before where it starts.
		expect(returned).not.toContain(inserted[0].id);
		expect(returned).not.toContain(unread.id);
	});
});
