// Why: how items go to the service: Batching, Items per Request, Requests in Flight, Timeout.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { collection } from '../../shared/collection';
import { readTimeout, timeoutProperty } from '../../shared/timeout';
import type { RunSettings } from './types';

/** Rows per create request: 1 000 rows of this service are a body of about 100 KB. */
export const MAX_GROUP_SIZE = 1000;
/** Requests in Flight by default (bench/README.md: why 8) and at most. */
const DEFAULT_IN_FLIGHT = 8;
const MAX_IN_FLIGHT = 32;

/** The node's Options collection. */
export const runOptionsProperty: INodeProperties = collection('Options', 'options', 'Add Option', [
	{
		displayName: 'Batching',
		name: 'batching',
		type: 'options',
		default: 'automatic',
		options: [
			{
				name: 'Automatic',
				value: 'automatic',
				description:
					'Items go to the service in as few requests as it allows, e.g. one read for many records',
			},
			{
				name: 'One Request per Item',
				value: 'perItem',
				description: 'Each item goes to the service on its own, as the HTTP Request node sends it',
			},
		],
		description: 'How input items are grouped into requests to the service',
		hint: 'Automatic needs far fewer requests; a request the service fails fails every item in it',
	},
	{
		displayName: 'Items per Request',
		name: 'itemsPerRequest',
		type: 'number',
		default: MAX_GROUP_SIZE,
		typeOptions: { minValue: 1, maxValue: MAX_GROUP_SIZE },
		displayOptions: { hide: { batching: ['perItem'] } },
		description: 'The most items sent in one request; fewer when the request would pass 8 KiB',
	},
	{
		displayName: 'Requests in Flight',
		name: 'requestsInFlight',
		type: 'number',
		default: DEFAULT_IN_FLIGHT,
		typeOptions: { minValue: 1, maxValue: MAX_IN_FLIGHT },
		description: 'How many requests the node sends to the service at once',
		hint: 'Without On Error: Continue, writes go one request at a time, so that nothing is sent after a failed item',
	},
	{
		...timeoutProperty,
		hint: 'A write the service answers later than this may still be carried out after the node gave up',
	},
]);

/** Batching, Items per Request, Requests in Flight and Timeout, the same for every item. */
export function readRunSettings(this: IExecuteFunctions, continueOnFail: boolean): RunSettings {
	const setting = (name: string, fallback: unknown) =>
		this.getNodeParameter(`options.${name}`, 0, fallback);
	// A whole number from 1 to `max`; `fallback` when it is not one.
	const count = (name: string, fallback: number, max: number) =>
		Math.min(max, Math.max(1, Math.floor(Number(setting(name, fallback))) || fallback));
	const perItem = setting('batching', 'automatic') === 'perItem';
	const inFlight = count('requestsInFlight', DEFAULT_IN_FLIGHT, MAX_IN_FLIGHT);
	const groupSize = perItem ? 1 : count('itemsPerRequest', MAX_GROUP_SIZE, MAX_GROUP_SIZE);
	const timeoutMs = readTimeout(setting('timeout', ''));
	return { continueOnFail, inFlight, groupSize, timeoutMs };
}
