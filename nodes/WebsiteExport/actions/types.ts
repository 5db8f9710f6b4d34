import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { WebsiteExportClient } from '../../shared/transport';

/** What the router hands an operation for one input item. */
export interface ItemRun {
	client: WebsiteExportClient;
	itemIndex: number;
	item: INodeExecutionData;
}

/**
 * One operation of one resource: its own editor properties and what it does with one item.
 * The router owns the loop over items, pairedItem, continueOnFail and concurrency; an
 * operation only turns one item into its request(s) and returns the output items for it.
 */
export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, run: ItemRun): Promise<INodeExecutionData[]>;
	/** Items may run side by side (Requests in Flight); false for operations that page: their pages go side by side instead. */
	concurrent?: boolean;
}

export type Resource = 'option' | 'job' | 'download';
