// Why: the per-item loop, written once for every operation.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { UnreadableTimestampError, unreadableTimestampApiError } from '../../shared/downloads';
import { errorForItem } from '../../shared/itemError';
import { WebsiteExportClient } from '../../shared/transport';
import { readRunSettings } from './runSettings';
import * as download from './download/Download.resource';
import * as job from './job/Job.resource';
import * as option from './option/Option.resource';
import type { Operation, Resource } from './types';

const operations: Record<Resource, Record<string, Operation>> = {
	option: option.operations,
	job: job.operations,
	download: download.operations,
};

/**
 * The per-item loop, once for every operation: validation first, order, pairedItem, continueOnFail.
 */
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
	const prepared = items.map((_, itemIndex) => {
		try {
			return { input: operation.prepare.call(this, itemIndex) as unknown };
		} catch (error) {
			if (continueOnFail) return { failed: asErrorItem(error as Error, itemIndex) };
			throw asNodeError.call(this, error, itemIndex);
		}
	});
	const settings = readRunSettings.call(this, continueOnFail);
	const { inFlight, timeoutMs } = settings;
	const client = await WebsiteExportClient.connect(this, { inFlight, timeoutMs });
	const tasks = items.flatMap((item, itemIndex) => {
		const ready = prepared[itemIndex];
		return 'input' in ready ? [{ client, item, itemIndex, input: ready.input }] : [];
	});
	const results = tasks.length > 0 ? await operation.execute.call(this, tasks, settings) : [];
	const resultOf = new Map(tasks.map((task, index) => [task.itemIndex, results[index]]));
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const ready = prepared[itemIndex];
		const result = 'failed' in ready ? ready.failed : resultOf.get(itemIndex);
		// Without Continue On Fail the run ends at the first failed item (nothing after it was sent).
		if (result === undefined) break;
		if (!(result instanceof Error)) {
			output.push(...result.map((one) => ({ ...one, pairedItem: { item: itemIndex } })));
			continue;
		}
		const failure = asNodeError.call(this, result, itemIndex);
		if (!continueOnFail) throw failure;
		output.push(...asErrorItem(failure, itemIndex));
	}
	return [output];
}

/** The output of a failed item under Continue On Fail: its message and details, paired to it. */
function asErrorItem(error: Error & { description?: unknown }, item: number): INodeExecutionData[] {
	const details = error.description ? { details: error.description as string } : {};
	return [{ json: { error: error.message, ...details }, pairedItem: { item } }];
}

/**
 * The error as n8n shows it, pointing at the item: service answers as NodeApiError, the rest as
 * NodeOperationError.
 */
function asNodeError(
	this: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof UnreadableTimestampError)
		return unreadableTimestampApiError(this.getNode(), error, itemIndex);
	if (error instanceof NodeApiError) {
		// An error made for another item (one answer for several) is copied for this one.
		const own = error.context.itemIndex ?? itemIndex;
		if (own !== itemIndex) return errorForItem(this.getNode(), error, itemIndex) as NodeApiError;
		error.context.itemIndex = itemIndex;
		return error;
	}
	// Returns `error` itself when it already is a NodeOperationError.
	const failure = new NodeOperationError(this.getNode(), error as Error, { itemIndex });
	failure.context.itemIndex ??= itemIndex;
	return failure;
}
