// Why: Options → Timeout of both nodes (as n8n's HTTP Request node has it), its field and how it is read, in one place.
import type { INodeProperties } from 'n8n-workflow';

import { REQUEST_TIMEOUT_MS } from './constants';

/** Options → Timeout: milliseconds to wait for an answer, for every request of the node. */
export const timeoutProperty: INodeProperties = {
	displayName: 'Timeout',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: REQUEST_TIMEOUT_MS,
	description:
		'Time in ms to wait for the server to send response headers (and start the response body) before aborting the request',
};

/** The Timeout the user set (a whole number ≥ 1), or undefined when not set: each request's own default. */
export function readTimeout(raw: unknown): number | undefined {
	const ms = Math.floor(Number(raw));
	return raw === undefined || raw === '' || !(ms >= 1) ? undefined : ms;
}
