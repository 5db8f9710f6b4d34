// Why: the contract between the router and each operation.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { WebsiteExportClient } from '../../shared/transport';

/** What the router hands an operation for one input item. */
export interface ItemTask<Input = unknown> {
	client: WebsiteExportClient;
	itemIndex: number;
	item: INodeExecutionData;
	/** What `prepare` read and validated for this item. */
	input: Input;
}

/**
 * One operation of one resource: its own editor properties, how it reads one item, and how it
 * runs the items. The router owns validation first, pairedItem, Continue On Fail and the output.
 */
export interface Operation<Input = unknown> {
	description: INodeProperties[];
	/**
	 * Reads and validates the item's parameters, without any request. The router runs it for
	 * every item before the first request, so that a bad item stops the node before anything
	 * is written.
	 */
	prepare(this: IExecuteFunctions, itemIndex: number): Input;
	/**
	 * Every item's result, in input order, for any number of items and any group size: one
	 * request per item is this same code with groups of one. Without Continue On Fail the items
	 * after the first failing one are left `undefined`: nothing was sent for them.
	 */
	execute(
		this: IExecuteFunctions,
		tasks: Array<ItemTask<Input>>,
		settings: RunSettings,
	): Promise<ItemResult[]>;
}

/** How the items of a run go to the service. */
export interface RunSettings {
	continueOnFail: boolean;
	/** Requests in Flight: the most requests at once (the client holds the others back). */
	inFlight: number;
	/** The most items in one request: 1 with Batching → One Request per Item. */
	groupSize: number;
	/** Options → Timeout in ms, when set (else each request's own default). */
	timeoutMs?: number;
}

/** One item's output, its error, or nothing (never sent, after an earlier failure). */
export type ItemResult = INodeExecutionData[] | Error | undefined;

export type Resource = 'option' | 'job' | 'download';
