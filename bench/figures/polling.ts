/**
 * Return All and the trigger's poll: counts against the emulator in this process, the time of
 * Return All against the one in a child process (see timing.ts). Offset paging, the node's way
 * until issue 9, is kept here only as the baseline of keyset paging.
 */
import type { Emulator } from '../../stack/service';
import { httpRequest } from '../../stack/n8n/http';
import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node.js';
import {
	DEFAULT_IN_FLIGHT,
	expectRecords,
	harnessFor,
	jobRows,
	runNode,
	type Service,
} from '../nodes';
import { childService, newEmulator } from '../services';
import { collectGarbage, count, range, ratio, seconds, timed } from '../stats';
import { judged, reported, type Row } from '../table';

const RETURN_ALL = { resource: 'job', operation: 'getAll', returnAll: true };

/** Return All of the jobs, newest first, as the node did it until issue 9: offset pages, the first counted, then `inFlight` at once. */
async function offsetReturnAll(
	service: Service,
	inFlight: number,
): Promise<{ ids: number[]; requests: number }> {
	const { baseUrl, apiKey, demoUser } = service;
	const login = await httpRequest('POST', `${baseUrl}/auth/v1/token?grant_type=password`, {
		headers: { apikey: apiKey },
		body: demoUser,
	});
	const headers = { apikey: apiKey, authorization: `Bearer ${login.json.access_token as string}` };
	const page = async (offset: number, prefer = {}) => {
		const query = `select=*&order=created_at.desc,id.desc&limit=1000&offset=${offset}`;
		return await httpRequest('GET', `${baseUrl}/rest/v1/jobs?${query}`, {
			headers: { ...headers, ...prefer },
		});
	};
	const first = await page(0, { prefer: 'count=exact' });
	const total = Number(/\/(\d+)$/.exec(String(first.headers['content-range']))?.[1]);
	const offsets: number[] = [];
	for (let offset = first.json.length; offset < total; offset += first.json.length)
		offsets.push(offset);
	const rows: Array<{ id: number }> = [...first.json];
	for (let start = 0; start < offsets.length; start += inFlight) {
		const batch = offsets.slice(start, start + inFlight).map((offset) => page(offset));
		for (const answer of await Promise.all(batch)) rows.push(...answer.json);
	}
	return { ids: rows.map((row) => row.id), requests: 1 + offsets.length };
}

/** Return All of `total` jobs when the service caps every page at its `maxRows`. */
export async function returnAll(total: number): Promise<Row> {
	const emulator = await newEmulator();
	const { maxRows } = emulator.settings;
	await emulator.insert('jobs', jobRows(total));
	const output = await runNode(harnessFor(emulator), RETURN_ALL);
	const { rest } = emulator.stats();
	// The end is known from an empty page or one shorter than the cap, never from page 1's count
	// (rows updated into the filter meanwhile come on top of it): ⌊N / cap⌋ + 1 pages.
	const minimum = Math.floor(total / maxRows) + 1;
	const ids = new Set(output.map((item) => item.json.id));
	if (output.length !== total || ids.size !== total)
		throw new Error(`Return All gave ${output.length} items (${ids.size} distinct), not ${total}`);
	return judged(
		{
			figure: `Return All: ${count(total)} jobs under a ${count(maxRows)}-row cap`,
			measured: `${rest} requests, ratio ${ratio(rest / minimum)}`,
			target: `${minimum} (ratio 1.00)`,
			strict: true,
		},
		rest === minimum,
		`${rest - minimum} requests more than ⌊${total} / ${maxRows}⌋ + 1`,
	);
}

/**
 * Return All of `total` jobs (1 000-row pages) with every answer delayed: offset pages 8 side by
 * side (before issue 9) vs keyset pages one after the other (the node now). Keyset pages cannot
 * go side by side (each starts after the last row of the one before), which is the price of
 * exact results: see returnAllUnderChurn.
 */
export async function returnAllLatency(total: number, latencyMs: number): Promise<Row> {
	const emulator = await childService();
	await emulator.insert('jobs', jobRows(total));
	const harness = harnessFor(emulator);
	await runNode(harness, RETURN_ALL); // login and warm-up
	await emulator.patchSettings({ latencyMs });
	collectGarbage();
	const before = await timed(() => offsetReturnAll(emulator, DEFAULT_IN_FLIGHT));
	if (before.value.ids.length !== total)
		throw new Error(`offset paging gave ${before.value.ids.length} rows, not ${total}`);
	collectGarbage();
	const after = await timed(() => runNode(harness, RETURN_ALL));
	expectRecords(after.value, total, 'Return All');
	return reported(
		`Return All: ${count(total)} jobs, ${latencyMs} ms per answer: offset pages ${DEFAULT_IN_FLIGHT} in flight (before) vs keyset pages (now)`,
		`${seconds(before.seconds)} vs ${seconds(after.seconds)} (${ratio(after.seconds / before.seconds)}×), ${before.value.requests} vs ${Math.ceil(total / 1000)} requests`,
	);
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * One idle poll (nothing new since the last one) of the trigger, with `stored` downloads in the
 * account: the same 10 recent ones (the last hour) and, beyond them, a history spread over the
 * past year. Returns the REST requests and response bytes of that poll.
 */
async function idlePoll(
	emulator: Emulator,
	stored: number,
): Promise<{ requests: number; bytes: number }> {
	await emulator.reset();
	const now = emulator.clock.now();
	const recent = 10;
	const history = stored - recent;
	const ages = [
		...range(history).map((i) => 2 * DAY + Math.floor((i * 365 * DAY) / history)),
		...range(recent).map((i) => (recent - i) * 5 * MINUTE),
	];
	const rows = ages.map((age) => ({ created_at: new Date(now - age).toISOString(), job_id: null }));
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
}

export async function idleTriggerPoll(small: number, large: number): Promise<Row> {
	const emulator = await newEmulator();
	const a = await idlePoll(emulator, small);
	const b = await idlePoll(emulator, large);
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

/**
 * From a fresh `total` jobs, one Return All (`returnAll` gives the ids) under churn: before every
 * jobs page after the first, 7 new jobs, and 7 not yet returned (newest first, 1 000 a page)
 * deleted. Counts rows returned twice, and rows missing that existed throughout.
 */
async function countUnderChurn(
	emulator: Emulator,
	total: number,
	returnAll: () => Promise<number[]>,
): Promise<{ twice: number; missing: number }> {
	await emulator.reset();
	const existing = (await emulator.insert('jobs', jobRows(total))).map(
		(job) => (job as { id: number }).id,
	);
	const deleted = new Set<number>();
	let pages = 0;
	const stop = emulator.onArrival(async (entry) => {
		if (entry.table !== 'jobs' || entry.method !== 'GET' || pages++ === 0) return;
		await emulator.insert('jobs', jobRows(7));
		const victims = existing
			.slice(-(pages * 1000 + 7), -(pages * 1000))
			.filter((id) => !deleted.has(id));
		for (const id of victims) deleted.add(id);
		await emulator.remove('jobs', victims);
	});
	try {
		const ids = await returnAll();
		const returned = new Set(ids);
		const missing = existing.filter((id) => !deleted.has(id) && !returned.has(id)).length;
		return { twice: ids.length - returned.size, missing };
	} finally {
		stop();
	}
}

/**
 * Return All (newest first) of `total` jobs while 7 jobs are created and 7 not yet returned are
 * deleted before every page after the first: rows returned twice and rows missing (that existed
 * throughout), offset paging (before issue 9, reported) vs keyset paging (the node now, judged).
 */
export async function returnAllUnderChurn(total: number): Promise<Row[]> {
	const emulator = await newEmulator();
	const before = await countUnderChurn(
		emulator,
		total,
		async () => (await offsetReturnAll(emulator, 1)).ids,
	);
	const after = await countUnderChurn(emulator, total, async () =>
		(await runNode(harnessFor(emulator), RETURN_ALL)).map((item) => item.json.id as number),
	);
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
