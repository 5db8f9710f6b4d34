/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * n8n's floor (issue 31): Job → Create, Get, Update and Delete over N items, each beside n8n's
 * own Edit Fields node evaluating the same expressions over the same items in this process, with
 * the emulator in a child process at 20 ms per answer. Our time less requests × latency, as a
 * multiple of that floor; the requests; the peak heap growth of both.
 */
import type { INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';
import { createRequire } from 'module';

import type { ServiceProcess } from '../../stack/service/launch';
import { provision } from '../../stack/n8n/provision';
import { expectRecords, harnessFor, jobRows, runNode } from '../nodes';
import { childService } from '../services';
import { count, median, mib, peakHeapGrowth, ratio, seconds, timed } from '../stats';
import { judged, type Row } from '../table';
import type { NodeHarness } from '../../test/harness';

/** Edit Fields (Set) as n8n 2.41 ships it (type version 3.4), from the n8n the e2e suites run. */
const EDIT_FIELDS_VERSION = 3.4;

/** n8n's own Edit Fields node, loaded from the provisioned n8n (its n8n-nodes-base package). */
async function editFieldsNode(): Promise<INodeType> {
	const { prefix } = await provision();
	const file = createRequire(`${prefix}/`).resolve('n8n-nodes-base/dist/nodes/Set/Set.node.js');
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- n8n's own compiled node, found at run time
	const { Set } = require(file) as { Set: new () => { nodeVersions: Record<number, INodeType> } };
	return new Set().nodeVersions[EDIT_FIELDS_VERSION];
}

/** Edit Fields parameters that set each named field to the expression reading it from the item. */
const editFieldsReading = (fields: string[]): INodeParameters => ({
	mode: 'manual',
	includeOtherFields: false,
	options: {},
	assignments: {
		assignments: fields.map((name) => ({
			id: name,
			name,
			value: `={{ $json.${name} }}`,
			type: name === 'id' ? 'number' : 'string',
		})),
	},
});

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

/** `work`'s wall and CPU time (this process's: the service's is in its own), output and peak heap growth. */
async function measure(work: () => Promise<INodeExecutionData[][]>) {
	const { bytes, value } = await peakHeapGrowth(() => timed(work));
	return { ...value, heapBytes: bytes, output: value.value[0] };
}

type Measured = Awaited<ReturnType<typeof measure>>;

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
		const log = await emulator.log();
		const requests = log.filter((entry) => entry.seq > since && entry.kind === 'rest').length;
		expectRecords(ours.output, items.length, `job ${floorCase.operation}`);
		pairs.push({ ours, floor: floorBefore ?? (await runFloor()), requests });
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
				figure: `${name}, ${count(n)} items (${expressions}): time less ${requestsOf(requests)} × ${LATENCY_MS} ms, as a multiple of Edit Fields over the same expressions, median of ${rounds.length} rounds`,
				measured: `${ratio(multiple)}× (medians ${seconds(oursSeconds)} vs ${seconds(floorSeconds)}); CPU time ${ratio(cpu)}×`,
				target: `≤ ${MAX_RATIO}×`,
			},
			multiple <= MAX_RATIO,
			`beyond n8n's evaluation of the expressions (CPU time ${ratio(cpu)}×), the node waits for the service's own work on ${requestsOf(requests)}, after every item is checked`,
		),
		judged(
			{
				figure: `${name}, ${count(n)} items: requests; peak heap growth beside Edit Fields'`,
				measured: `${requestsOf(requests)}; ${mib(oursHeap)} (Edit Fields ${mib(floorHeap)})`,
				target: `≤ ${MAX_REQUESTS} requests`,
				strict: true,
			},
			requests <= MAX_REQUESTS,
			'items went in more requests than Items per Request and the 8 KiB request line need',
		),
	];
}

/** The four operations over `n` items beside Edit Fields: a warm-up round, then `rounds` measured, the order alternating. */
export async function editFieldsFloor(n: number, rounds: number): Promise<Row[]> {
	const [editFields, emulator] = await Promise.all([editFieldsNode(), childService()]);
	const bench = { emulator, harness: harnessFor(emulator), editFields };
	const sites = jobRows(n).map((row) => ({ json: row }));
	await emulator.patchSettings({ latencyMs: LATENCY_MS });
	// The warm-up round compiles n8n's code and ours for this many items, and logs in.
	await runRound(bench, sites, true);
	const measured: Pair[][] = [];
	for (let round = 0; round < rounds; round++)
		measured.push(await runRound(bench, sites, round % 2 === 1));
	const roundsOf = (index: number) => measured.map((pairs) => pairs[index]);
	return CASES.flatMap((floorCase, index) => rowsOf(n, floorCase, roundsOf(index)));
}
