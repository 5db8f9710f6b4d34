/** The node as the benchmark runs it: its parameters, input items and output checks. */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { WebsiteExport } from '../nodes/WebsiteExport/WebsiteExport.node.js';
import { NodeHarness } from '../test/harness';
import type { ServiceAccess } from '../stack/service/launch';
import { range } from './stats';

/** How the node reaches a service: its address, key and login. */
export type Service = Pick<ServiceAccess, 'baseUrl' | 'apiKey' | 'demoUser'>;

const node = new WebsiteExport();

/** The Requests in Flight default, as the editor offers it. */
export const DEFAULT_IN_FLIGHT = (
	node.description.properties
		.find((property) => property.name === 'options')
		?.options?.find((option) => option.name === 'requestsInFlight') as { default: number }
).default;

/** A harness with a fresh credential (no token yet): its first request logs in. */
export const harnessFor = (service: Service) =>
	new NodeHarness({ baseUrl: service.baseUrl, apiKey: service.apiKey, ...service.demoUser });

/**
 * Parameters of a single-record operation on the record whose ID is the item's `id`, one request
 * per item (Batching: One Request per Item) unless `extra.options` says otherwise.
 */
export function byId(
	resource: string,
	operation: string,
	extra: INodeParameters = {},
): INodeParameters {
	const options = { batching: 'perItem', ...(extra.options as INodeParameters) };
	return { resource, operation, selectBy: 'id', recordId: '={{ $json.id }}', ...extra, options };
}

/** The same parameters with Batching → Automatic, the node's default. */
export const batched = (parameters: INodeParameters): INodeParameters => ({
	...parameters,
	options: { ...(parameters.options as INodeParameters), batching: 'automatic' },
});

export const jobGet = (requestsInFlight?: number) =>
	byId('job', 'get', requestsInFlight === undefined ? {} : { options: { requestsInFlight } });

/** `n` job rows to insert, one site each. */
export const jobRows = (n: number) =>
	range(n).map((i) => ({ url: `https://site${i}.example.com`, email: 'bench@example.com' }));

export const idItems = (rows: object[]): INodeExecutionData[] =>
	rows.map((row) => ({ json: { id: (row as IDataObject).id } }));

/** Every output item is a record (no error item), one per input item. */
export const complete = (output: INodeExecutionData[], n: number) =>
	output.length === n &&
	output.every((item) => item.json.id !== undefined && item.json.error === undefined);

export function expectRecords(output: INodeExecutionData[], n: number, what: string): void {
	if (!complete(output, n))
		throw new Error(`${what} returned ${output.length} items, not ${n} records`);
}

/** Runs the Website Export node once; resolves to its output items. */
export async function runNode(
	harness: NodeHarness,
	parameters: INodeParameters,
	items?: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const [output] = await harness.execute(node, { parameters, items });
	return output;
}
