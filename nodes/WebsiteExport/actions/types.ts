// Why: the contract between the router and each operation.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { WebsiteExportClient } from '../../shared/transport';

/** What the router hands an operation for one input item. */
export interface ItemRun<Input = unknown> {
	client: WebsiteExportClient;
	itemIndex: number;
	item: INodeExecutionData;
	/** What `prepare` read and validated for this item. */
	input: Input;
}

/**
 * One operation of one resource: its own editor properties, how it reads one item, and what it
 * does with it. The router owns the loop over items, pairedItem, continueOnFail and concurrency.
 */
export interface Operation<Input = unknown> {
	description: INodeProperties[];
	/**
	 * Reads and validates the item's parameters, without any request. The router runs it for
	 * every item before the first request, so that a bad item stops the node before anything
	 * is written.
	 */
	prepare(this: IExecuteFunctions, itemIndex: number): Input;
	execute(this: IExecuteFunctions, run: ItemRun<Input>): Promise<INodeExecutionData[]>;
	/**
	 * Writes (create, update, delete) go one item after another by default, so that none is
	 * sent after one failed (n8n's item contract); reads go side by side.
	 */
	writes?: boolean;
	/**
	 * Batching → Automatic: the runs of an execution in the fewest requests, each item's result as
	 * `execute` would give it, in input order. Without Continue On Fail a write stops at the first
	 * item that fails: the items after it are left `undefined`, never sent. Undefined when these
	 * runs cannot be batched: the router runs them one by one.
	 */
	batch?(
		this: IExecuteFunctions,
		runs: Array<ItemRun<Input>>,
		how: BatchOptions,
	): Promise<ItemResult[] | undefined>;
}

/** How a batch runs: Continue On Fail, and the requests it may have in flight at once. */
export interface BatchOptions {
	continueOnFail: boolean;
	inFlight: number;
}

/** One item's output, its error, or nothing (never sent, after an earlier failure). */
export type ItemResult = INodeExecutionData[] | Error | undefined;

export type Resource = 'option' | 'job' | 'download';
