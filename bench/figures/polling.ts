/** Paging and polling counts, against an emulator in this process (counts only). */
import type { INodeExecutionData } from 'n8n-workflow';

import { startEmulator, type Emulator } from '../../stack/service';
import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node.js';
import { harnessFor, jobRows, runNode } from '../nodes';
import { count, range, ratio } from '../stats';
import { judged, reported, type Row } from '../table';
import { offsetReturnAll } from '../offsetPaging';

/** Return All of `total` jobs when the service caps every page at `maxRows`. */
export async function returnAll(total: number, maxRows: number): Promise<Row> {
	const emulator = await startEmulator({ port: 0, maxRows });
	try {
		await emulator.insert('jobs', jobRows(total));
		const harness = harnessFor(emulator);
		const output: INodeExecutionData[] = await runNode(harness, {
			resource: 'job',
			operation: 'getAll',
			returnAll: true,
		});
		const { rest } = emulator.stats();
		const minimum = Math.ceil(total / maxRows);
		const ids = new Set(output.map((item) => item.json.id));
		if (output.length !== total || ids.size !== total)
			throw new Error(
				`Return All gave ${output.length} items (${ids.size} distinct), not ${total}`,
			);
		return judged(
			{
				figure: `Return All: ${count(total)} jobs under a ${count(maxRows)}-row cap`,
				measured: `${rest} requests, ratio ${ratio(rest / minimum)}`,
				target: `${minimum} (ratio 1.00)`,
				strict: true,
			},
			rest === minimum,
			`${rest - minimum} requests more than ⌈${total} / ${maxRows}⌉`,
		);
	} finally {
		await emulator.close();
	}
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * One idle poll (nothing new since the last one) of the trigger, with `stored` downloads in the
 * account: the same 10 recent ones (the last hour) and, beyond them, a history spread over the
 * past year. Returns the REST requests and response bytes of that poll.
 */
async function idlePoll(stored: number): Promise<{ requests: number; bytes: number }> {
	const emulator = await startEmulator({ port: 0 });
	try {
		const now = emulator.clock.now();
		const recent = 10;
		const history = stored - recent;
		const rows = [
			...range(history).map((i) => ({
				created_at: new Date(now - 2 * DAY - Math.floor((i * 365 * DAY) / history)).toISOString(),
			})),
			...range(recent).map((i) => ({
				created_at: new Date(now - (recent - i) * 5 * MINUTE).toISOString(),
			})),
		].map((row) => ({ ...row, job_id: null }));
		await emulator.insert('downloads', rows);
		const harness = harnessFor(emulator);
		const trigger = new WebsiteExportTrigger();
		const parameters = { event: 'downloadReady', includeJob: true, options: {} };
		// The first poll after activation takes the baseline (leaving the downloads of its
		// look-back, the last 11 minutes, to the next poll), the second emits those, the third is idle.
		const first = await harness.poll(trigger, { parameters });
		const second = await harness.poll(trigger, { parameters, staticData: first.staticData });
		emulator.clearLog();
		const idle = await harness.poll(trigger, { parameters, staticData: second.staticData });
		if (idle.emitted !== null) throw new Error('the idle poll emitted');
		const entries = emulator.log.filter((entry) => entry.kind === 'rest');
		return {
			requests: entries.length,
			bytes: entries.reduce((sum, entry) => sum + entry.responseBytes, 0),
		};
	} finally {
		await emulator.close();
	}
}

export async function idleTriggerPoll(small: number, large: number): Promise<Row> {
	const a = await idlePoll(small);
	const b = await idlePoll(large);
	const bytes = b.bytes / a.bytes;
	return judged(
		{
			figure: `Idle trigger poll: ${count(small)} vs ${count(large)} stored downloads`,
			measured: `${a.requests} vs ${b.requests} request, ${count(a.bytes)} vs ${count(b.bytes)} bytes (ratio ${ratio(bytes)})`,
			target: '1 request each, bytes ratio ≤ 1.10',
			strict: true,
		},
		a.requests === 1 && b.requests === 1 && bytes <= 1.1,
		`the poll's cost grows with the stored history`,
	);
}

/** Rows returned twice, and rows missing that existed throughout. */
interface ChurnCount {
	twice: number;
	missing: number;
}

/**
 * Before every jobs page after the first: 7 new jobs, and 7 not yet returned (newest first, 1 000
 * a page) deleted. Returns the stop function of the listener.
 */
function churnBeforeEachPage(
	emulator: Emulator,
	existing: number[],
	deleted: Set<number>,
): () => void {
	let pages = 0;
	return emulator.onArrival(async (entry) => {
		if (entry.table !== 'jobs' || entry.method !== 'GET' || pages++ === 0) return;
		await emulator.insert(
			'jobs',
			range(7).map((i) => ({
				url: `https://new${pages}-${i}.example.com`,
				email: 'bench@example.com',
			})),
		);
		const victims = existing
			.slice(-(pages * 1000 + 7), -(pages * 1000))
			.filter((id) => !deleted.has(id));
		for (const id of victims) deleted.add(id);
		await emulator.remove('jobs', victims);
	});
}

/** From a fresh `total` jobs, one Return All (`returnAll` gives the ids) under churn, counted. */
async function countUnderChurn(
	emulator: Emulator,
	total: number,
	returnAll: () => Promise<number[]>,
): Promise<ChurnCount> {
	await emulator.reset();
	const existing = ((await emulator.insert('jobs', jobRows(total))) as Array<{ id: number }>).map(
		(job) => job.id,
	);
	const deleted = new Set<number>();
	const stop = churnBeforeEachPage(emulator, existing, deleted);
	try {
		const ids = await returnAll();
		const twice = ids.length - new Set(ids).size;
		const returned = new Set(ids);
		const missing = existing.filter((id) => !deleted.has(id) && !returned.has(id)).length;
		return { twice, missing };
	} finally {
		stop();
	}
}

/** Offset paging's count reported, keyset paging's judged (none twice, none missing). */
function churnRows(total: number, before: ChurnCount, after: ChurnCount): Row[] {
	const figure = `Return All of ${count(total)} jobs (newest first) while 7 are created and 7 deleted before each page: rows twice / missing`;
	return [
		reported(`${figure}, offset paging (before)`, `${before.twice} / ${before.missing}`),
		judged(
			{
				figure: `${figure}, keyset paging (now)`,
				measured: `${after.twice} / ${after.missing}`,
				target: '0 / 0',
				strict: true,
			},
			after.twice === 0 && after.missing === 0,
			'rows repeated or skipped',
		),
	];
}

/**
 * Return All (newest first) of `total` jobs while 7 jobs are created and 7 not yet returned are
 * deleted before every page after the first: rows returned twice and rows missing (that existed
 * throughout), offset paging (before issue 9) vs keyset paging (the node now).
 */
export async function returnAllUnderChurn(total: number): Promise<Row[]> {
	const emulator = await startEmulator({ port: 0 });
	try {
		const before = await countUnderChurn(emulator, total, async () =>
			(await offsetReturnAll(emulator, 'jobs', 'created_at.desc,id.desc', 1)).rows.map(
				(row) => row.id,
			),
		);
		const after = await countUnderChurn(emulator, total, async () =>
			(
				await runNode(harnessFor(emulator), {
					resource: 'job',
					operation: 'getAll',
					returnAll: true,
				})
			).map((item) => item.json.id as number),
		);
		return churnRows(total, before, after);
	} finally {
		await emulator.close();
	}
}
