/**
 * Request and token counts, against the emulator in this process (counts do not depend on where
 * it runs, and its clock can then move together with the node's: see expireTokenMidRun).
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { expireTokenMidRun } from '../../test/concurrency/scenarios';
import type { NodeHarness } from '../../test/harness';
import type { Emulator, TableName } from '../../stack/service';
import {
	batched,
	byId,
	complete,
	DEFAULT_IN_FLIGHT,
	harnessFor,
	idItems,
	jobGet,
	jobRows,
	runNode,
} from '../nodes';
import { newEmulator } from '../services';
import { count, range, timed } from '../stats';
import { judged, type Row } from '../table';

/** The rows `n` new records of a table are made of. */
const NEW_ROWS: Partial<Record<TableName, (n: number) => object[]>> = {
	options: (n) => range(n).map(() => ({ mode: 'offline' })),
	jobs: jobRows,
	downloads: (n) => range(n).map(() => ({ job_id: null })),
};

/** Items with the IDs of `n` new records of `table`. */
async function newRecords(emulator: Emulator, table: TableName, n: number) {
	return idItems(await emulator.insert(table, NEW_ROWS[table]?.(n) ?? []));
}

/**
 * One single-record operation to count: its label, its parameters, and the table whose records
 * it works on (`n` new ones for each run; none: `n` empty items, for a create).
 */
type SingleRecordCase = [string, INodeParameters, TableName?];

const create = (resource: string, fields: INodeParameters): INodeParameters => ({
	resource,
	operation: 'create',
	...fields,
	options: { batching: 'perItem' },
});

const JOB = { url: 'https://example.com', email: 'bench@example.com' };

const SINGLE_RECORD_CASES: SingleRecordCase[] = [
	['option.create', create('option', { mode: 'offline' })],
	['option.get', byId('option', 'get'), 'options'],
	['option.update', byId('option', 'update', { updateFields: { mode: 'offline' } }), 'options'],
	['option.delete', byId('option', 'delete'), 'options'],
	['job.create', create('job', JOB)],
	['job.create with an export option', create('job', { ...JOB, optionMode: 'offline' })],
	['job.get', byId('job', 'get'), 'jobs'],
	['job.update', byId('job', 'update', { updateFields: { email: 'changed@example.com' } }), 'jobs'],
	['job.delete', byId('job', 'delete'), 'jobs'],
	['download.get', byId('download', 'get'), 'downloads'],
];

/** Batched, the goal for N items: at most this many requests (issue 24: 10 for 1 000). */
const BATCHED_MAX_REQUESTS = 10;

/** Each answer's delay in these rows, as a service across a network would take (issue 24). */
const LATENCY_MS = 50;

/**
 * One execution of a case with a fresh credential at 50 ms per answer, judged on its REST and
 * token requests (one per item, or, `batching`, at most BATCHED_MAX_REQUESTS); its time beside.
 */
async function singleRecordRow(
	emulator: Emulator,
	n: number,
	[label, parameters, table]: SingleRecordCase,
	batching: boolean,
): Promise<Row> {
	const input = table ? await newRecords(emulator, table, n) : range(n).map(() => ({ json: {} }));
	emulator.clearLog();
	emulator.settings.latencyMs = LATENCY_MS;
	const run = await timed(() =>
		runNode(harnessFor(emulator), batching ? batched(parameters) : parameters, input),
	).finally(() => (emulator.settings.latencyMs = 0));
	const { rest, token } = emulator.stats();
	const whole = complete(run.value, n);
	// Update and Delete read their record first, so that a missing one is known before anything
	// is written; a job with its export option is two creates, the job's and the option's.
	const twice = /\.(update|delete)$/.test(label) || label.endsWith('export option');
	const expected = twice ? 2 * n : n;
	const row = {
		figure: `Requests: ${count(n)} items of ${label}, one execution, ${batching ? 'Batching: Automatic' : 'one request per item'}, ${LATENCY_MS} ms per answer`,
		measured: `${count(rest)} + ${token} token, ${run.seconds.toFixed(2)} s`,
		target: `${batching ? `≤ ${BATCHED_MAX_REQUESTS}` : count(expected)} + ≤ 1 token`,
		strict: true,
	};
	const met = batching ? rest <= BATCHED_MAX_REQUESTS : rest === expected;
	const why = whole
		? `${rest} REST and ${token} token requests`
		: `${run.value.length} output items, some not records`;
	return judged(row, met && token <= 1 && whole, why);
}

/** Requests for N items of each single-record operation, each in one execution with a fresh credential. */
export async function singleRecordRequests(n: number): Promise<Row[]> {
	const emulator = await newEmulator();
	const rows: Row[] = [];
	for (const singleRecordCase of SINGLE_RECORD_CASES)
		for (const batching of [false, true])
			rows.push(await singleRecordRow(emulator, n, singleRecordCase, batching));
	return rows;
}

/** Token requests for `executions` runs of Job → Get within the token's hour, one stored credential. */
export async function tokensAcrossExecutions(executions: number, itemsEach: number): Promise<Row> {
	const emulator = await newEmulator();
	const items = await newRecords(emulator, 'jobs', itemsEach);
	const harness = harnessFor(emulator);
	let completeRuns = 0;
	for (let run = 0; run < executions; run++) {
		if (complete(await runNode(harness, jobGet(), items), itemsEach)) completeRuns++;
	}
	const { token } = emulator.stats();
	const row = {
		figure: `Token requests: ${executions} executions within the hour (${itemsEach} items each, ${DEFAULT_IN_FLIGHT} in flight)`,
		measured: String(token),
		target: '1',
		strict: true,
	};
	return judged(
		row,
		token === 1 && completeRuns === executions,
		`${token} logins, ${completeRuns}/${executions} complete runs`,
	);
}

/**
 * Token requests when the token ends in the middle of an N-item Job → Get run, as `end` says
 * (`what` words it; `start` sets it up before the run, making `jumps` clock jumps, `restore`
 * undoes it): target one login more, every item a record; the requests refused (401) beside it.
 */
async function tokenEndsMidRun(
	n: number,
	inFlight: number,
	end: {
		what: string;
		jumps: number;
		start(emulator: Emulator, harness: NodeHarness): { jumped: number; restore(): void };
	},
): Promise<Row> {
	const emulator = await newEmulator();
	const items = await newRecords(emulator, 'jobs', n);
	const harness = harnessFor(emulator);
	const ending = end.start(emulator, harness);
	let output: INodeExecutionData[];
	try {
		output = await runNode(harness, jobGet(inFlight), items);
	} finally {
		ending.restore();
	}
	const { token, rest } = emulator.stats();
	if (ending.jumped !== end.jumps)
		throw new Error(
			`the clock jumped ${ending.jumped} times instead of ${end.jumps} (${rest} REST requests)`,
		);
	const refused = emulator.log.filter((entry) => entry.status === 401).length;
	const mode = inFlight === 1 ? 'sequential' : `${inFlight} in flight`;
	const row = {
		figure: `Token requests: ${end.what}, ${mode}`,
		measured: `${token - 1} extra (${token} in all), ${refused} refused, ${complete(output, n) ? 'run complete' : 'run INCOMPLETE'}`,
		target: '1 extra, run completes',
		strict: true,
	};
	return judged(row, token === 2 && complete(output, n), `${token - 1} extra logins`);
}

/**
 * The token expires by the clock: both clocks (the node's and the emulator's) move through the
 * token's last seconds at the run's halfway request (see expireTokenMidRun). The node's renewal
 * gate sees the expiry coming and sends one request alone: one 401 at most, however many are in
 * flight.
 */
export const tokenExpiresMidRun = (n: number, inFlight: number) =>
	tokenEndsMidRun(n, inFlight, {
		what: `token expires mid-run by the clock (${count(n)} × job.get`,
		jumps: 2,
		start: (emulator, harness) =>
			expireTokenMidRun(emulator, harness, { at: Math.floor(n / 2), settle: 2 * inFlight + 2 }),
	});

/**
 * The service alone moves past the token's expiry (its clock more than the node's 5 s gate plus
 * PostgREST's 30 s leeway ahead of n8n's, or the token revoked). The node cannot see it coming,
 * so every request in flight meets the 401; the credential shares one login among them
 * (nodes/shared/auth/renewal.ts).
 */
export const tokenRejectedUnforeseen = (n: number, inFlight: number) =>
	tokenEndsMidRun(n, inFlight, {
		what: "token refused early (the service's clock > 90 s ahead, or a revoked token)",
		jumps: 1,
		start: (emulator) => {
			let rest = 0;
			const ending = { jumped: 0, restore: () => undefined as void };
			ending.restore = emulator.onArrival(async (entry) => {
				if (entry.kind !== 'rest' || ++rest !== Math.floor(n / 2)) return;
				ending.jumped++;
				await emulator.clock.advance(3_600_000 + 60_000);
			});
			return ending;
		},
	});
