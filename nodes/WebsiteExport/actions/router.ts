// Why: the per-item loop, written once for every operation.
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { UnreadableTimestampError, unreadableTimestampApiError } from '../../shared/downloads';
import { mapInOrder } from './mapInOrder';
import { WebsiteExportClient } from '../../shared/transport';
import * as download from './download/Download.resource';
import * as job from './job/Job.resource';
import * as option from './option/Option.resource';
import type { ItemResult, ItemRun, Operation, Resource } from './types';

const operations: Record<Resource, Record<string, Operation>> = {
	option: option.operations,
	job: job.operations,
	download: download.operations,
};

/** Requests in Flight when the user did not set it. */
const DEFAULT_IN_FLIGHT = 8;

/** The per-item loop, once for every operation: validation first, order, pairedItem, continueOnFail, concurrency. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as Resource;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" is not supported for "${resource}"`,
		);
	}
	const continueOnFail = this.continueOnFail();

	// Every item is read and validated before the first request: a bad item sends nothing at all.
	const prepared = items.map(
		(_, itemIndex): { input: unknown } | { failed: INodeExecutionData[] } => {
			try {
				return { input: operation.prepare.call(this, itemIndex) as unknown };
			} catch (error) {
				if (continueOnFail) return { failed: asErrorItem(error as Error, itemIndex) };
				throw asNodeError.call(this, error, itemIndex);
			}
		},
	);
	const client = await WebsiteExportClient.connect(this);
	const runs = items.flatMap((item, itemIndex) => {
		const ready = prepared[itemIndex];
		return 'input' in ready ? [{ client, item, itemIndex, input: ready.input }] : [];
	});
	const results = await runAll.call(this, operation, runs, continueOnFail);
	const output = items.flatMap((_, itemIndex) => {
		const ready = prepared[itemIndex];
		if ('failed' in ready) return ready.failed;
		const result = results.get(itemIndex);
		if (!(result instanceof Error))
			return (result ?? []).map((one) => ({ ...one, pairedItem: { item: itemIndex } }));
		const failure = asNodeError.call(this, result, itemIndex);
		if (continueOnFail) return asErrorItem(failure, itemIndex);
		throw failure;
	});
	return [output];
}

/** Every run's result: batched (Batching → Automatic, where the operation can), or one by one. */
async function runAll(
	this: IExecuteFunctions,
	operation: Operation,
	runs: ItemRun[],
	continueOnFail: boolean,
): Promise<Map<number, ItemResult>> {
	// Writes go one by one unless the user asked for more (the README states the bound) or
	// failures become error items anyway: then no write can follow a failed one unseen.
	const chosen = Math.floor(Number(this.getNodeParameter('options.requestsInFlight', 0, 0))) || 0;
	const inFlight =
		chosen >= 1 ? chosen : operation.writes && !continueOnFail ? 1 : DEFAULT_IN_FLIGHT;
	const results = new Map<number, ItemResult>();
	const batching = this.getNodeParameter('options.batching', 0, 'automatic');
	const batched =
		batching === 'automatic' && runs.length > 0
			? await operation.batch?.call(this, runs, { continueOnFail, inFlight })
			: undefined;
	if (batched) runs.forEach((run, index) => results.set(run.itemIndex, batched[index]));
	else await runEachItem.call(this, operation, runs, inFlight, results);
	return results;
}

/**
 * One request (or a few) per item, `inFlight` items at once. Without Continue On Fail the first
 * failure (by item order) is thrown, and no item is started after it.
 */
async function runEachItem(
	this: IExecuteFunctions,
	operation: Operation,
	runs: ItemRun[],
	inFlight: number,
	results: Map<number, ItemResult>,
): Promise<void> {
	const continueOnFail = this.continueOnFail();
	await mapInOrder(runs, inFlight, async (run) => {
		try {
			results.set(run.itemIndex, await operation.execute.call(this, run));
		} catch (error) {
			if (!continueOnFail) throw asNodeError.call(this, error, run.itemIndex);
			results.set(run.itemIndex, error as Error);
		}
	});
}

/** The output of a failed item under Continue On Fail: its message and details, paired to it. */
function asErrorItem(
	error: Error & { description?: unknown },
	itemIndex: number,
): INodeExecutionData[] {
	return [
		{
			json: {
				error: error.message,
				...(error.description ? { details: error.description as string } : {}),
			},
			pairedItem: { item: itemIndex },
		},
	];
}

/** The error as n8n shows it, pointing at the item: service answers as NodeApiError, the rest as NodeOperationError. */
function asNodeError(
	this: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof UnreadableTimestampError)
		return unreadableTimestampApiError(this.getNode(), error, itemIndex);
	if (error instanceof NodeApiError) {
		error.context.itemIndex ??= itemIndex;
		return new NodeApiError(this.getNode(), error as unknown as JsonObject); // returns `error` itself
	}
	// Returns `error` itself when it already is a NodeOperationError.
	const failure = new NodeOperationError(this.getNode(), error as Error, { itemIndex });
	failure.context.itemIndex ??= itemIndex;
	return failure;
}
