/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * n8n's floor (issue 31): Job → Create, Get, Update and Delete over N items, each beside n8n's
 * own Edit Fields node evaluating the same expressions over the same items in this process, with
 * the emulator in a child process at 20 ms per answer. Our time less requests × latency, as a
 * multiple of that floor; the requests; the peak heap growth of both.
 */
import type { INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import { startServiceProcess, type ServiceProcess } from '../../stack/service/launch';
import {
	EDIT_FIELDS_VERSION,
	editFieldsNode,
	editFieldsReading,
	harnessFor,
	jobRows,
	runNode,
} from '../nodes';
import { median, mib, peakHeapGrowth, ratio, seconds, timed } from '../stats';
import { judged, type Row } from '../table';
import type { NodeHarness } from '../../test/harness';

const LATENCY_MS = 20;
/** The most our time less latency may be, as a multiple of Edit Fields over the same expressions. */
const MAX_RATIO = 1.25;
const MAX_REQUESTS = 30;

const requestsOf = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

const byId = { __rl: true, mode: 'id', value: '={{ $json.id }}' };

/** One operation beside its floor: the fields its expressions read from each item. */
interface FloorCase {
	operation: string;
	parameters: INodeParameters;
	fields: string[];
}

const CASES: FloorCase[] = [
	{
		operation: 'create',
		parameters: { url: '={{ $json.url }}', email: '={{ $json.email }}' },
		fields: ['url', 'email'],
	},
	{ operation: 'get', parameters: { selectBy: 'id', recordId: byId }, fields: ['id'] },
	{
		operation: 'update',
		// Every item moves its job to the same address (items whose patches differ are a PATCH each).
		parameters: { selectBy: 'id', recordId: byId, updateFields: { email: '={{ $json.email }}' } },
		fields: ['id', 'email'],
	},
	{ operation: 'delete', parameters: { selectBy: 'id', recordId: byId }, fields: ['id'] },
];

interface Measured {
	seconds: number;
	/** This process's CPU time in the run (the service's is in its own processes). */
	cpuSeconds: number;
	heapBytes: number;
	output: INodeExecutionData[];
}

async function measure(work: () => Promise<INodeExecutionData[][]>): Promise<Measured> {
	const cpu = process.cpuUsage();
	const { bytes, value } = await peakHeapGrowth(() => timed(work));
	const { user, system } = process.cpuUsage(cpu);
	const cpuSeconds = (user + system) / 1e6;
	return { seconds: value.seconds, cpuSeconds, heapBytes: bytes, output: value.value[0] };
}

/** One operation's figures in one round. */
interface Pair {
	ours: Measured;
	floor: Measured;
	requests: number;
}

/**
 * One round: the four operations over `sites` (each after Create on what it made), each beside
 * Edit Fields over the same items; `floorFirst` says which of the two runs first.
 */
async function runRound(
	bench: { emulator: ServiceProcess; harness: NodeHarness; editFields: INodeType },
	sites: INodeExecutionData[],
	floorFirst: boolean,
): Promise<Pair[]> {
	const { emulator, harness, editFields } = bench;
	const pairs: Pair[] = [];
	let items = sites;
	for (const floorCase of CASES) {
		const runFloor = () =>
			measure(() =>
				harness.execute(editFields, {
					parameters: editFieldsReading(floorCase.fields),
					items,
					typeVersion: EDIT_FIELDS_VERSION,
				}),
			);
		const floorBefore = floorFirst ? await runFloor() : undefined;
		const since = await emulator.lastSeq();
		const parameters = { resource: 'job', operation: floorCase.operation, ...floorCase.parameters };
		const ours = await measure(async () => [await runNode(harness, parameters, items)]);
		const requests = (await emulator.log()).filter((e) => e.seq > since && e.kind === 'rest');
		if (ours.output.length !== items.length || ours.output.some((item) => !item.json.id))
			throw new Error(
				`job ${floorCase.operation} returned ${ours.output.length} records, not ${items.length}`,
			);
		pairs.push({ ours, floor: floorBefore ?? (await runFloor()), requests: requests.length });
		if (floorCase.operation === 'create')
			items = ours.output.map(({ json }) => ({
				json: { id: json.id, email: 'moved@example.com' },
			}));
	}
	return pairs;
}

/** The two rows of one operation from its rounds: medians of each round's own ratios. */
function rowsOf(n: number, floorCase: FloorCase, rounds: Pair[]): Row[] {
	const name = `Job → ${floorCase.operation[0].toUpperCase()}${floorCase.operation.slice(1)}`;
	const expressions = floorCase.fields.map((field) => `$json.${field}`).join(', ');
	const { requests } = rounds[rounds.length - 1];
	const own = (pair: Pair) => pair.ours.seconds - (pair.requests * LATENCY_MS) / 1000;
	const multiple = median(rounds.map((pair) => own(pair) / pair.floor.seconds));
	const cpu = median(rounds.map((pair) => pair.ours.cpuSeconds / pair.floor.cpuSeconds));
	const of = (pick: (pair: Pair) => number) => median(rounds.map(pick));
	const [oursSeconds, floorSeconds] = [of((p) => p.ours.seconds), of((p) => p.floor.seconds)];
	const [oursHeap, floorHeap] = [of((p) => p.ours.heapBytes), of((p) => p.floor.heapBytes)];
	return [
		judged(
			{
				figure: `${name}, ${n.toLocaleString('en-US')} items (${expressions}): time less ${requestsOf(requests)} × ${LATENCY_MS} ms, as a multiple of Edit Fields over the same expressions, median of ${rounds.length} rounds`,
				measured: `${ratio(multiple)}× (medians ${seconds(oursSeconds)} vs ${seconds(floorSeconds)}); CPU time ${ratio(cpu)}×`,
				target: `≤ ${MAX_RATIO}×`,
			},
			multiple <= MAX_RATIO,
			`beyond n8n's evaluation of the expressions (CPU time ${ratio(cpu)}×), the node waits for the service's own work on ${requestsOf(requests)}, after every item is checked`,
		),
		{
			...judged(
				{
					figure: `${name}, ${n.toLocaleString('en-US')} items: requests; peak heap growth beside Edit Fields'`,
					measured: `${requestsOf(requests)}; ${mib(oursHeap)} (Edit Fields ${mib(floorHeap)})`,
					target: `≤ ${MAX_REQUESTS} requests`,
				},
				requests <= MAX_REQUESTS,
				'items went in more requests than Items per Request and the 8 KiB request line need',
			),
			strict: true,
		},
	];
}

/** The four operations over `n` items beside Edit Fields: a warm-up round, then `rounds` measured, the order alternating. */
export async function editFieldsFloor(n: number, rounds: number): Promise<Row[]> {
	const [editFields, emulator] = await Promise.all([editFieldsNode(), startServiceProcess()]);
	try {
		const bench = { emulator, harness: harnessFor(emulator), editFields };
		const sites = jobRows(n).map((row) => ({ json: row }));
		await emulator.patchSettings({ latencyMs: LATENCY_MS });
		// The warm-up round compiles n8n's code and ours for this many items, and logs in.
		await runRound(bench, sites, true);
		const measured: Pair[][] = [];
		for (let round = 0; round < rounds; round++)
			measured.push(await runRound(bench, sites, round % 2 === 1));
		return CASES.flatMap((floorCase, index) =>
			rowsOf(
				n,
				floorCase,
				measured.map((pairs) => pairs[index]),
			),
		);
	} finally {
		await emulator.stop();
	}
}
