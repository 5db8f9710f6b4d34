// Why: what the node tests share: running the node in n8n's real contexts against a service, its items and errors, and the Batching settings they compare.
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	NodeOperationError,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { requestsSince, type Service } from '../support';

export interface RunOptions {
	items?: INodeExecutionData[];
	onError?: INode['onError'];
	/** The node's version; its only one (2) when omitted. */
	typeVersion?: number;
}

/** Runs the Website Export node once and returns its output items. */
export async function runNode(
	service: Service,
	parameters: INodeParameters,
	options: RunOptions = {},
): Promise<INodeExecutionData[]> {
	const [output] = await service.harness.execute(new WebsiteExport(), { parameters, ...options });
	return output;
}

/** Like runNode, for the JSON of the output items only. */
export async function runJson(
	service: Service,
	parameters: INodeParameters,
	options: RunOptions = {},
): Promise<IDataObject[]> {
	return (await runNode(service, parameters, options)).map((item) => item.json);
}

/** The error a run fails with (the test fails when the run succeeds). */
export async function runError(
	service: Service,
	parameters: INodeParameters,
	options: RunOptions = {},
): Promise<Error & IDataObject> {
	try {
		await runNode(service, parameters, options);
	} catch (error) {
		return error;
	}
	throw new Error('Expected the node to fail, but it succeeded');
}

/** Input items with the given JSON, e.g. for parameters such as `={{ $json.id }}`. */
export const itemsOf = (...json: IDataObject[]): INodeExecutionData[] =>
	json.map((j) => ({ json: j }));

/** The node's parameters for an operation on the record with this ID (or expression). */
export const byId = (
	resource: string,
	operation: string,
	recordId: string | number,
	parameters: INodeParameters = {},
): INodeParameters => ({
	resource,
	operation,
	selectBy: 'id',
	recordId: String(recordId),
	...parameters,
});

/** Asserts that a run fails with the service's answer (a NodeApiError) saying `message`. */
export async function expectServiceError(
	service: Service,
	parameters: INodeParameters,
	message: string,
): Promise<void> {
	const error = await runError(service, parameters);
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toBe(message);
}

/** Options → Batching: Automatic (grouped, the default) or One Request per Item. */
export type Batching = 'automatic' | 'perItem';
export const BATCHINGS: readonly Batching[] = ['automatic', 'perItem'];

/** The parameters with Options → Batching set to `batching`, their other options kept. */
export const withBatching = (parameters: INodeParameters, batching: Batching): INodeParameters => ({
	...parameters,
	options: { ...(parameters.options as IDataObject), batching },
});

/** The parameters with Batching → One Request per Item. */
export const perItem = (parameters: INodeParameters): INodeParameters =>
	withBatching(parameters, 'perItem');

/** The REST requests of the emulator's log since `since` (a log length taken earlier). */
export const restSince = (service: Service, since = 0) =>
	requestsSince(service.emulator, since).entries.filter((e) => e.kind === 'rest');

/** The node's output with Batching → Automatic and with One Request per Item, and the REST requests of each. */
export async function bothWays(
	service: Service,
	parameters: INodeParameters,
	items: INodeExecutionData[],
	onError?: 'continueRegularOutput',
) {
	const run = async (params: INodeParameters) => {
		const since = service.emulator.log.length;
		const output = await runNode(service, params, { items, onError });
		return { output, requests: restSince(service, since).length };
	};
	return { batched: await run(parameters), perItem: await run(perItem(parameters)) };
}

/** `n` jobs' fields, each its own site: `${prefix}<i>.example.com`, email a@example.com. */
export const sites = (n: number, prefix = 'https://site') =>
	Array.from({ length: n }, (_, i) => ({
		url: `${prefix}${i}.example.com`,
		email: 'a@example.com',
	}));

/** Inserts jobs as their owner would have created them, and returns them as stored. */
export const addJobs = async (service: Service, rows: IDataObject[]) =>
	(await service.emulator.insert('jobs', rows)) as IDataObject[];

/** Input items with each record's id, for `={{ $json.id }}`. */
export const idItems = (rows: IDataObject[]): INodeExecutionData[] =>
	itemsOf(...rows.map(({ id }) => ({ id })));

/** The item a node error points at. */
export const itemIndexOf = (error: Error): number | undefined =>
	(error as unknown as NodeApiError | NodeOperationError).context.itemIndex as number | undefined;
