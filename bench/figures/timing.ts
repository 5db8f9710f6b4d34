/**
 * Wall-time figures, against the emulator in a child process: it answers on the other core while
 * the node works, as a real service would, so the node's process holds only n8n and our code.
 * (In this process, the emulator's own CPU time would be added to every run and push every
 * ratio towards 1.)
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { Pool } from 'undici';

import { probeNode, type NodeHarness } from '../../test/harness';
import {
	DEFAULT_IN_FLIGHT,
	expectRecords,
	harnessFor,
	idItems,
	jobGet,
	jobRows,
	runNode,
} from '../nodes';
import type { ServiceProcess } from '../../stack/service/launch';
import { childService } from '../services';
import { collectGarbage, count, median, ratio, seconds, timed } from '../stats';
import { judged, reported, type Row } from '../table';

/** `n` jobs in the child emulator, and a harness already logged in (no login inside a timed run). */
async function prepare(n: number) {
	const emulator = await childService();
	const items = idItems(await emulator.insert('jobs', jobRows(n)));
	const harness = harnessFor(emulator);
	await runNode(harness, jobGet(1), items.slice(0, 1));
	return { emulator, harness, items };
}

/** The node's read of one job by ID: `eq` (a value alone), limited to the one row an id names, counted. */
const jobRead = (id: unknown) => ({
	path: `/rest/v1/jobs?select=*&id=eq.${id as number}&order=id.asc&limit=1`,
	headers: { accept: 'application/json', prefer: 'count=exact' },
});

/**
 * What a minimal n8n node would do for Job → Get: per item, read the ID parameter and call
 * n8n's `httpRequestWithAuthentication` with the same request the Website Export node sends
 * (same URL and query, same Accept header, the same credential adding key and token).
 */
function bareHelperLoop(baseUrl: string): INodeType {
	const probe = probeNode(async function (this: IExecuteFunctions) {
		const items = this.getInputData();
		const output: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const { path, headers } = jobRead(this.getNodeParameter('recordId', i));
			const rows = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'websiteExportApi',
				{ method: 'GET', url: `${baseUrl}${path}`, headers, json: true },
			)) as IDataObject[];
			output.push({ json: rows[0], pairedItem: { item: i } });
		}
		return [output];
	});
	const recordId = {
		displayName: 'Job ID',
		name: 'recordId',
		type: 'string',
		default: '',
	} as const;
	return { ...probe, description: { ...probe.description, properties: [recordId] } };
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
			const credential = { apikey: emulator.apiKey, authorization: `Bearer ${token}` };
			for (const item of input) {
				const { path, headers } = jobRead(item.json.id);
				const { body } = await pool.request({
					method: 'GET',
					path,
					headers: { ...headers, ...credential },
				});
				output.push({ json: ((await body.json()) as INodeExecutionData['json'][])[0] });
			}
			return output;
		},
	};
}

/**
 * Wall and CPU seconds of every variant in each round, in a rotating order, after one warm-up
 * round. The variants compare only if they send the very same requests: checked in the warm-up.
 */
async function timeRounds(
	emulator: ServiceProcess,
	variants: Record<string, Variant>,
	items: INodeExecutionData[],
	rounds: number,
): Promise<{ times: PerRound; cpu: PerRound }> {
	const names = Object.keys(variants);
	const sent: string[] = [];
	const times: PerRound = Object.fromEntries(names.map((name) => [name, []]));
	const cpu: PerRound = Object.fromEntries(names.map((name) => [name, []]));
	for (let round = -1; round < rounds; round++) {
		if (round === 0 && sent.some((requests) => requests !== sent[0]))
			throw new Error(`the variants send different requests: ${JSON.stringify(sent)}`);
		const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
		for (const name of order) {
			const since = round < 0 ? await emulator.lastSeq() : 0;
			collectGarbage();
			const run = await timed(() => variants[name](items));
			expectRecords(run.value, items.length, name);
			if (round < 0) {
				const log = (await emulator.log()).filter((entry) => entry.seq > since);
				sent.push(log.map((entry) => `${entry.method} ${entry.path}?${entry.query}`).join('\n'));
				continue;
			}
			times[name].push(run.seconds);
			cpu[name].push(run.cpuSeconds);
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
		const { times, cpu } = await timeRounds(emulator, variants, items, rounds);
		return overheadRows(n, rounds, times, cpu);
	} finally {
		await pool.close();
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
	await emulator.patchSettings({ latencyMs });
	const run = async (inFlight: number) => {
		collectGarbage();
		const took = await timed(() => runNode(harness, jobGet(inFlight), items));
		expectRecords(took.value, n, `${inFlight} in flight`);
		return took;
	};
	const sequential = (await run(1)).seconds;
	const concurrent = await run(DEFAULT_IN_FLIGHT);
	const scale = n / 1000;
	const floor = (n * latencyMs) / 1000;
	if (sequential < floor)
		throw new Error(
			`sequential took ${seconds(sequential)}, less than ${n} × ${latencyMs} ms: the latency was not applied`,
		);
	const label = `Latency-bound: ${count(n)} × job.get, ${latencyMs} ms per answer`;
	const faster = (took: number) => `${seconds(took)}, ${ratio(sequential / took)}× faster`;
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
				measured: faster(concurrent.seconds),
				target: `≤ ${seconds(8 * scale)}`,
			},
			concurrent.seconds <= 8 * scale,
			missedLatency(n, latencyMs, concurrent.cpuSeconds),
		),
	];
	for (const inFlight of extra)
		rows.push(reported(`${label}, ${inFlight} in flight`, faster((await run(inFlight)).seconds)));
	return rows;
}
