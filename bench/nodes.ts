/** The node as the benchmark runs it: parameters, input items, and n8n's bare helper for comparison. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';

import { WebsiteExport } from '../nodes/WebsiteExport/WebsiteExport.node.js';
import { NodeHarness } from '../test/harness';
import { probeNode } from '../test/support';
import type { ServiceAccess } from '../stack/service/launch';

/** How the node reaches a service: its address, key and login. */
export type Service = Pick<ServiceAccess, 'baseUrl' | 'apiKey' | 'demoUser'>;
import { range } from './stats';

export const node = new WebsiteExport();

/** The Requests in Flight default, as the editor offers it. */
export const DEFAULT_IN_FLIGHT = (
	node.description.properties
		.find((property) => property.name === 'options')
		?.options?.find((option) => option.name === 'requestsInFlight') as
		| { default: number }
		| undefined
)?.default as number;

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

export const PER_ITEM = { batching: 'perItem' };

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

/** Runs the Website Export node once; resolves to its output items. */
export async function runNode(
	harness: NodeHarness,
	parameters: INodeParameters,
	items?: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const [output] = await harness.execute(node, { parameters, items });
	return output;
}

/**
 * What a minimal n8n node would do for Job → Get: per item, read the ID parameter and call
 * n8n's `httpRequestWithAuthentication` with the same request the Website Export node sends
 * (same URL and query, same Accept header, the same credential adding key and token).
 */
export function bareHelperLoop(baseUrl: string): INodeType {
	const probe = probeNode(async function (this: IExecuteFunctions) {
		const items = this.getInputData();
		const output: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const id = this.getNodeParameter('recordId', i) as string;
			const rows = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'websiteExportApi',
				{
					method: 'GET',
					// The node's own read of one value: an in-list of one, in full, counted (selectAll).
					url: `${baseUrl}/rest/v1/jobs?select=*&id=in.(${id})&order=id.asc&limit=1000`,
					headers: { Accept: 'application/json', Prefer: 'count=exact' },
					json: true,
				},
			)) as IDataObject[];
			output.push({ json: rows[0], pairedItem: { item: i } });
		}
		return [output];
	});
	const recordId = {
		displayName: 'Job ID',
		name: 'recordId',
		type: 'string' as const,
		default: '',
	};
	return { ...probe, description: { ...probe.description, properties: [recordId] } };
}
