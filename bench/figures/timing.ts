/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * Wall-time figures, against the emulator in a child process: it answers on the other core while
 * the node works, as a real service would, so the node's process holds only n8n and our code.
 * (In this process, the emulator's own CPU time would be added to every run and push every
 * ratio towards 1.)
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { Pool } from 'undici';

import { offsetReturnAll } from '../offsetPaging';

import type { NodeHarness } from '../../test/harness';
import {
	bareHelperLoop,
	DEFAULT_IN_FLIGHT,
	harnessFor,
	idItems,
	jobGet,
	jobRows,
	runNode,
} from '../nodes';
import { type ServiceProcess, startServiceProcess } from '../../stack/service/launch';
import { collectGarbage, count, median, ratio, seconds, timed } from '../stats';
import { judged, reported, type Row } from '../table';

interface Bench {
	emulator: ServiceProcess;
	harness: NodeHarness;
	items: INodeExecutionData[];
}

/** A child emulator holding `n` jobs, and a harness already logged in (no login inside a timed run). */
async function prepare(n: number): Promise<Bench> {
	const emulator = await startServiceProcess();
	const jobs = await emulator.insert('jobs', jobRows(n));
	const items = idItems(jobs);
	const harness = harnessFor(emulator);
	await runNode(harness, jobGet(1), items.slice(0, 1));
	return { emulator, harness, items };
}

function expectRecords(output: INodeExecutionData[], n: number, what: string): void {
	if (output.length !== n || output.some((item) => item.json.id === undefined))
		throw new Error(`${what} returned ${output.length} items, not ${n} records`);
}

type Variant = (items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;

/** Per variant, one figure for each measured round. */
type PerRound = Record<string, number[]>;

/** The three ways of sending the same N job reads: the node, n8n's bare helper loop, raw undici. */
function variantsFor(
	emulator: ServiceProcess,
	harness: NodeHarness,
	pool: Pool,
): Record<string, Variant> {
	const token = harness.credential.accessToken as string;
	const bare = bareHelperLoop(emulator.baseUrl);
	const parameters = { recordId: '={{ $json.id }}' };
	return {
		node: (input) => runNode(harness, jobGet(1), input),
		helper: async (input) => (await harness.execute(bare, { parameters, items: input }))[0],
		undici: async (input) => {
			const output: INodeExecutionData[] = [];
			for (const item of input) {
				const { body } = await pool.request({
					method: 'GET',
					path: `/rest/v1/jobs?select=*&id=in.(${item.json.id as number})&order=id.asc&limit=1000`,
					headers: {
						apikey: emulator.apiKey,
						authorization: `Bearer ${token}`,
						accept: 'application/json',
						prefer: 'count=exact',
					},
				});
				output.push({ json: ((await body.json()) as INodeExecutionData['json'][])[0] });
			}
			return output;
		},
	};
}

/** The variants compare only if they send the very same requests: checked on the first 3 items. */
async function expectSameRequests(
	emulator: ServiceProcess,
	variants: Record<string, Variant>,
	items: INodeExecutionData[],
): Promise<void> {
	const sent: string[][] = [];
	for (const name of Object.keys(variants)) {
		await emulator.clearLog();
		await variants[name](items.slice(0, 3));
		sent.push(
			(await emulator.log()).map((entry) => `${entry.method} ${entry.path}?${entry.query}`),
		);
	}
	if (sent.some((requests) => JSON.stringify(requests) !== JSON.stringify(sent[0])))
		throw new Error(`the variants send different requests: ${JSON.stringify(sent)}`);
}

/** Wall and CPU seconds of every variant in each round, in a rotating order, after one warm-up round. */
async function timeRounds(
	variants: Record<string, Variant>,
	items: INodeExecutionData[],
	rounds: number,
): Promise<{ times: PerRound; cpu: PerRound }> {
	const names = Object.keys(variants);
	const times: PerRound = Object.fromEntries(names.map((name) => [name, []]));
	const cpu: PerRound = Object.fromEntries(names.map((name) => [name, []]));
	for (let round = -1; round < rounds; round++) {
		const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
		for (const name of order) {
			collectGarbage();
			const before = process.cpuUsage();
			const { seconds: took, value } = await timed(() => variants[name](items));
			const used = process.cpuUsage(before);
			expectRecords(value, items.length, name);
			if (round < 0) continue;
			times[name].push(took);
			cpu[name].push((used.user + used.system) / 1e6);
		}
	}
	return { times, cpu };
}

/** Each round's own ratio (the runs of one round share the machine's load of the moment), then their median. */
const perRound = (of: PerRound, a: string, b: string): number =>
	median(of[a].map((value, round) => value / of[b][round]));

/** The overhead row (judged) and n8n's floor row (reported) from the rounds' times. */
function overheadRows(n: number, rounds: number, times: PerRound, cpu: PerRound): Row[] {
	const [node, helper, undici] = ['node', 'helper', 'undici'].map((name) => median(times[name]));
	const overhead = perRound(times, 'node', 'helper');
	const spread = (name: string) =>
		`${Math.min(...times[name]).toFixed(2)}–${Math.max(...times[name]).toFixed(2)} s`;
	return [
		judged(
			{
				figure: `Our overhead: ${count(n)} × job.get (1 in flight) vs n8n's bare helper loop, median of ${rounds} rounds`,
				measured: `${ratio(overhead)} (medians ${seconds(node)} vs ${seconds(helper)}; CPU-time ratio ${ratio(perRound(cpu, 'node', 'helper'))})`,
				target: '≤ 1.10',
			},
			overhead <= 1.1,
			`the node took ${(((node - helper) / n) * 1e6).toFixed(0)} µs more per item than n8n's helper alone, whose own rounds took ${spread('helper')}`,
		),
		reported(
			`n8n's floor: bare helper loop vs raw undici keep-alive loop, median of ${rounds} rounds`,
			`${ratio(perRound(times, 'helper', 'undici'))} (medians ${seconds(helper)} vs ${seconds(undici)})`,
			'reported (about 8)',
		),
	];
}

/**
 * Our overhead (the node vs n8n's bare helper loop) and n8n's floor (the bare helper loop vs raw
 * undici on a keep-alive connection): the same N requests, one at a time, same process, the
 * three variants alternating in a rotating order, median of `rounds` after one warm-up round.
 */
export async function overheadAndFloor(n: number, rounds: number): Promise<Row[]> {
	const { emulator, harness, items } = await prepare(n);
	const pool = new Pool(emulator.baseUrl, { connections: 1 });
	try {
		const variants = variantsFor(emulator, harness, pool);
		await expectSameRequests(emulator, variants, items);
		const { times, cpu } = await timeRounds(variants, items, rounds);
		return overheadRows(n, rounds, times, cpu);
	} finally {
		await pool.close();
		await emulator.stop();
	}
}

/**
 * Why the default width misses its latency target: the answers of one round arrive together and
 * the event loop interleaves their handling, so a round lasts the latency plus the CPU time of
 * all its answers (n8n's helper: a new connection and axios for every request).
 */
function missedLatency(n: number, latencyMs: number, cpuSeconds: number): string {
	const perRequestMs = (cpuSeconds / n) * 1000;
	const rounds = n / DEFAULT_IN_FLIGHT;
	const modelSeconds = (rounds * (latencyMs + DEFAULT_IN_FLIGHT * perRequestMs)) / 1000;
	return (
		`the node's process spent ${perRequestMs.toFixed(1)} ms of CPU per request (mostly n8n's helper: see n8n's floor); ` +
		`the ${DEFAULT_IN_FLIGHT} answers of a round are handled interleaved, so ${rounds} rounds × (${latencyMs} ms + ${DEFAULT_IN_FLIGHT} × ${perRequestMs.toFixed(1)} ms) ≈ ${seconds(modelSeconds)}`
	);
}

/**
 * N × Job → Get with every answer delayed by the emulator (`latencyMs`), one request at a time
 * and with Requests in Flight at its default; `extra` adds rows for other widths.
 */
export async function latencyBound(n: number, latencyMs: number, extra: number[]): Promise<Row[]> {
	const { emulator, harness, items } = await prepare(n);
	try {
		await emulator.patchSettings({ latencyMs });
		let cpu = 0;
		const run = async (inFlight: number) => {
			collectGarbage();
			const before = process.cpuUsage();
			const { seconds: took, value } = await timed(() => runNode(harness, jobGet(inFlight), items));
			const used = process.cpuUsage(before);
			cpu = (used.user + used.system) / 1e6;
			expectRecords(value, n, `${inFlight} in flight`);
			return took;
		};
		const sequential = await run(1);
		const concurrent = await run(DEFAULT_IN_FLIGHT);
		const concurrentCpu = cpu;
		const scale = n / 1000;
		const floor = (n * latencyMs) / 1000;
		if (sequential < floor)
			throw new Error(
				`sequential took ${seconds(sequential)}, less than ${n} × ${latencyMs} ms: the latency was not applied`,
			);
		const label = `Latency-bound: ${count(n)} × job.get, ${latencyMs} ms per answer`;
		const rows: Row[] = [
			// Below n × latency the emulator did not delay (thrown above): this target cannot be missed.
			judged(
				{
					figure: `${label}, sequential (1 in flight)`,
					measured: seconds(sequential),
					target: `≥ ${seconds(50 * scale)}`,
				},
				true,
				'',
			),
			judged(
				{
					figure: `${label}, ${DEFAULT_IN_FLIGHT} in flight (default)`,
					measured: `${seconds(concurrent)}, ${ratio(sequential / concurrent)}× faster`,
					target: `≤ ${seconds(8 * scale)}`,
				},
				concurrent <= 8 * scale,
				missedLatency(n, latencyMs, concurrentCpu),
			),
		];
		for (const inFlight of extra) {
			const took = await run(inFlight);
			rows.push(
				reported(
					`${label}, ${inFlight} in flight`,
					`${seconds(took)}, ${ratio(sequential / took)}× faster`,
				),
			);
		}
		return rows;
	} finally {
		await emulator.stop();
	}
}

/**
 * Return All of `total` jobs (1 000-row pages) with every answer delayed: offset pages 8 side by
 * side (before issue 9) vs keyset pages one after the other (the node now). Keyset pages cannot
 * go side by side (each starts after the last row of the one before), which is the price of
 * exact results: see returnAllUnderChurn.
 */
export async function returnAllLatency(total: number, latencyMs: number): Promise<Row> {
	const emulator = await startServiceProcess();
	try {
		await emulator.insert('jobs', jobRows(total));
		const harness = harnessFor(emulator);
		await runNode(harness, { resource: 'job', operation: 'getAll', returnAll: true }); // login and warm-up
		await emulator.patchSettings({ latencyMs });
		collectGarbage();
		const before = await timed(() =>
			offsetReturnAll(emulator, 'jobs', 'created_at.desc,id.desc', DEFAULT_IN_FLIGHT),
		);
		if (before.value.rows.length !== total)
			throw new Error(`offset paging gave ${before.value.rows.length} rows, not ${total}`);
		collectGarbage();
		const after = await timed(() =>
			runNode(harness, { resource: 'job', operation: 'getAll', returnAll: true }),
		);
		expectRecords(after.value, total, 'Return All');
		return reported(
			`Return All: ${count(total)} jobs, ${latencyMs} ms per answer: offset pages ${DEFAULT_IN_FLIGHT} in flight (before) vs keyset pages (now)`,
			`${seconds(before.seconds)} vs ${seconds(after.seconds)} (${ratio(after.seconds / before.seconds)}×), ${before.value.requests} vs ${Math.ceil(total / 1000)} requests`,
		);
	} finally {
		await emulator.stop();
	}
}
