/**
 * Request and token counts, against an emulator in this process (counts do not depend on where
 * it runs, and its clock can then move together with the node's: see expireTokenMidRun).
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { expireTokenMidRun } from '../../test/concurrency/scenarios';
import { startEmulator, type Emulator } from '../../stack/service';
import {
	batched,
	byId,
	DEFAULT_IN_FLIGHT,
	harnessFor,
	idItems,
	jobGet,
	jobRows,
	PER_ITEM,
	runNode,
} from '../nodes';
import { count, range } from '../stats';
import { judged, type Row } from '../table';

async function withEmulator<T>(work: (emulator: Emulator) => Promise<T>): Promise<T> {
	const emulator = await startEmulator({ port: 0 });
	try {
		return await work(emulator);
	} finally {
		await emulator.close();
	}
}

/** Every output item is a record (no error item), one per input item. */
const complete = (output: INodeExecutionData[], n: number) =>
	output.length === n &&
	output.every((item) => item.json.id !== undefined && item.json.error === undefined);

/** One single-record operation to count: its label, its parameters and its input items. */
type SingleRecordCase = [string, INodeParameters, INodeExecutionData[]];

/** `n` options, jobs and downloads in the emulator, and the operations on them, one case each. */
async function singleRecordCases(emulator: Emulator, n: number): Promise<SingleRecordCase[]> {
	const options = await emulator.insert(
		'options',
		range(n).map(() => ({ mode: 'offline' })),
	);
	const jobs = await emulator.insert('jobs', jobRows(n));
	const downloads = await emulator.insert(
		'downloads',
		range(n).map(() => ({ job_id: null })),
	);
	const blank = range(n).map(() => ({ json: {} }));
	return [
		[
			'option.create',
			{ resource: 'option', operation: 'create', mode: 'offline', options: PER_ITEM },
			blank,
		],
		['option.get', byId('option', 'get'), idItems(options)],
		[
			'option.update',
			byId('option', 'update', { updateFields: { mode: 'offline' } }),
			idItems(options),
		],
		['option.delete', byId('option', 'delete'), idItems(options)],
		[
			'job.create',
			{
				resource: 'job',
				operation: 'create',
				url: 'https://example.com',
				email: 'bench@example.com',
				options: PER_ITEM,
			},
			blank,
		],
		[
			'job.create with an export option',
			{
				resource: 'job',
				operation: 'create',
				url: 'https://example.com',
				email: 'bench@example.com',
				optionMode: 'offline',
				options: PER_ITEM,
			},
			blank,
		],
		['job.get', byId('job', 'get'), idItems(jobs)],
		[
			'job.update',
			byId('job', 'update', { updateFields: { email: 'changed@example.com' } }),
			idItems(jobs),
		],
		['job.delete', byId('job', 'delete'), idItems(jobs)],
		['download.get', byId('download', 'get'), idItems(downloads)],
	];
}

/** Batched, the goal for N items: at most this many requests (issue 24: 10 for 1 000). */
const BATCHED_MAX_REQUESTS = 10;

/** `n` new records of the table a case's label names (`job.delete`: jobs). */
async function freshRecords(emulator: Emulator, label: string, n: number) {
	if (label.startsWith('job.')) return await emulator.insert('jobs', jobRows(n));
	return await emulator.insert(
		'options',
		range(n).map(() => ({ mode: 'offline' })),
	);
}

/** Each answer's delay in these rows, as a service across a network would take (issue 24). */
const LATENCY_MS = 50;

/**
 * One execution of a case with a fresh credential at 50 ms per answer, judged on its REST and
 * token requests (one per item, or, `batching`, at most BATCHED_MAX_REQUESTS); its time beside.
 */
async function singleRecordRow(
	emulator: Emulator,
	n: number,
	[label, parameters, items]: SingleRecordCase,
	batching = false,
): Promise<Row> {
	emulator.clearLog();
	emulator.settings.latencyMs = LATENCY_MS;
	const started = performance.now();
	const output = await runNode(
		harnessFor(emulator),
		batching ? batched(parameters) : parameters,
		items,
	).finally(() => (emulator.settings.latencyMs = 0));
	const took = `${((performance.now() - started) / 1000).toFixed(2)} s`;
	const { rest, token } = emulator.stats();
	// Update and Delete read their record first, so that a missing one is known before anything
	// is written; a job with its export option is two creates, the job's and the option's.
	const twice = /\.(update|delete)$/.test(label) || label.endsWith('export option');
	const expected = twice ? 2 * n : n;
	const row = {
		figure: `Requests: ${count(n)} items of ${label}, one execution, ${batching ? 'Batching: Automatic' : 'one request per item'}, ${LATENCY_MS} ms per answer`,
		measured: `${count(rest)} + ${token} token, ${took}`,
		target: `${batching ? `≤ ${BATCHED_MAX_REQUESTS}` : count(expected)} + ≤ 1 token`,
		strict: true,
	};
	const met = batching ? rest <= BATCHED_MAX_REQUESTS : rest === expected;
	const why = !complete(output, n)
		? `${output.length} output items, some not records`
		: `${rest} REST and ${token} token requests`;
	return judged(row, met && token <= 1 && complete(output, n), why);
}

/** Requests for N items of each single-record operation, each in one execution with a fresh credential. */
export async function singleRecordRequests(n: number): Promise<Row[]> {
	return await withEmulator(async (emulator) => {
		const rows: Row[] = [];
		for (const singleRecordCase of await singleRecordCases(emulator, n)) {
			rows.push(await singleRecordRow(emulator, n, singleRecordCase));
			// Batched after one per item: a delete gets n new records to delete.
			const [label, parameters] = singleRecordCase;
			const again: SingleRecordCase = label.endsWith('.delete')
				? [label, parameters, idItems(await freshRecords(emulator, label, n))]
				: singleRecordCase;
			rows.push(await singleRecordRow(emulator, n, again, true));
		}
		return rows;
	});
}

/** Token requests for `executions` runs of Job → Get within the token's hour, one stored credential. */
export async function tokensAcrossExecutions(executions: number, itemsEach: number): Promise<Row> {
	return await withEmulator(async (emulator) => {
		const items = idItems(await emulator.insert('jobs', jobRows(itemsEach)));
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
	});
}

/** Requests the service refused (401) since the log began. */
const refused = (emulator: Emulator) => emulator.log.filter((entry) => entry.status === 401).length;

/**
 * Token requests when the token expires by the clock in the middle of an N-item Job → Get run.
 * Both clocks (the node's and the emulator's) move through the token's last seconds at the
 * run's halfway request: see expireTokenMidRun. The node's renewal gate sees the expiry coming
 * and sends one request alone: one 401 at most, however many are in flight.
 */
export async function tokenExpiresMidRun(n: number, inFlight: number): Promise<Row> {
	return await withEmulator(async (emulator) => {
		const items = idItems(await emulator.insert('jobs', jobRows(n)));
		const harness = harnessFor(emulator);
		const expiry = expireTokenMidRun(emulator, harness, {
			at: Math.floor(n / 2),
			settle: 2 * inFlight + 2,
		});
		let output: INodeExecutionData[];
		try {
			output = await runNode(harness, jobGet(inFlight), items);
		} finally {
			expiry.restore();
		}
		const { token, rest } = emulator.stats();
		const mode = inFlight === 1 ? 'sequential' : `${inFlight} in flight`;
		const measured = `${token - 1} extra (${token} in all), ${refused(emulator)} refused, ${complete(output, n) ? 'run complete' : 'run INCOMPLETE'}`;
		const row = {
			figure: `Token requests: token expires mid-run by the clock (${count(n)} × job.get, ${mode})`,
			measured,
			target: '1 extra, run completes',
			strict: true,
		};
		if (expiry.jumped !== 2)
			throw new Error(
				`the clock jumped ${expiry.jumped} times instead of 2 (${rest} REST requests)`,
			);
		return judged(row, token === 2 && complete(output, n), `${token - 1} extra logins`);
	});
}

/**
 * The service alone moves past the token's expiry (its clock more than the node's 5 s gate plus
 * PostgREST's 30 s leeway ahead of n8n's, or the token revoked). The node cannot see it coming,
 * so every request in flight meets the 401; the credential shares one login among them
 * (nodes/shared/auth/renewal.ts).
 */
export async function tokenRejectedUnforeseen(n: number, inFlight: number): Promise<Row> {
	return await withEmulator(async (emulator) => {
		const items = idItems(await emulator.insert('jobs', jobRows(n)));
		let rest = 0;
		const stop = emulator.onArrival(async (entry) => {
			if (entry.kind === 'rest' && ++rest === Math.floor(n / 2))
				await emulator.clock.advance(3_600_000 + 60_000);
		});
		let output: INodeExecutionData[];
		try {
			output = await runNode(harnessFor(emulator), jobGet(inFlight), items);
		} finally {
			stop();
		}
		const { token } = emulator.stats();
		const mode = inFlight === 1 ? 'sequential' : `${inFlight} in flight`;
		const measured = `${token - 1} extra, ${refused(emulator)} refused, ${complete(output, n) ? 'run complete' : 'run INCOMPLETE'}`;
		const row = {
			figure: `Token requests: token refused early (the service's clock > 90 s ahead, or a revoked token), ${mode}`,
			measured,
			target: '1 extra, run completes',
			strict: true,
		};
		return judged(row, token === 2 && complete(output, n), `${token - 1} extra logins`);
	});
}
