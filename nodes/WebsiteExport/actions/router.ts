import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { mapInOrder } from '../../shared/pool';
import { WebsiteExportClient } from '../../shared/transport';
import * as download from './download/Download.resource';
import * as job from './job/Job.resource';
import * as option from './option/Option.resource';
import type { Operation, Resource } from './types';

const operations: Record<Resource, Record<string, Operation>> = {
	option: option.operations,
	job: job.operations,
	download: download.operations,
};

/** The per-item loop, once for every operation: order, pairedItem, continueOnFail, concurrency. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as Resource;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" is not supported for "${resource}"`);
	}
	// Requests in Flight bounds one of two things, never both at once: items side by side for the
	// single-record operations, the pages of Return All side by side for the others.
	const inFlight = Math.max(1, (this.getNodeParameter('options.requestsInFlight', 0, 8) as number) || 1);
	const [itemsInFlight, pagesInFlight] = operation.concurrent ? [inFlight, 1] : [1, inFlight];
	const client = await WebsiteExportClient.connect(this, { pageConcurrency: pagesInFlight });

	const perItem = await mapInOrder(items, itemsInFlight, async (item, itemIndex) => {
		try {
			const output = await operation.execute.call(this, { client, item, itemIndex });
			return output.map((result) => ({ ...result, pairedItem: { item: itemIndex } }));
		} catch (error) {
			if (this.continueOnFail()) {
				return [{ json: { error: error.message, ...(error.description ? { details: error.description } : {}) }, pairedItem: { item: itemIndex } }];
			}
			if (error instanceof NodeApiError) {
				error.context.itemIndex ??= itemIndex;
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject); // returns `error` itself
			}
			// Returns `error` itself when it already is a NodeOperationError.
			const failure = new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			failure.context.itemIndex ??= itemIndex;
			throw failure;
		}
	});
	return [perItem.flat()];
}
