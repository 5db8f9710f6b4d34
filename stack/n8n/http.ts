/* eslint-disable @typescript-eslint/no-explicit-any -- dev code, never shipped: n8n's untyped JSON (npx n8n-node lint reads every .ts file) */
/** JSON over HTTP for the tooling (n8n's REST API, health probes), one connection per request. */

import { Agent, request } from 'undici';

/**
 * No keep-alive: a pooled connection that n8n closes after its 5 s idle timeout while this process
 * lags (a loaded machine) is reused for the next call, which then fails with "other side closed".
 * A fresh loopback connection per call costs well under a millisecond.
 */
const oneShot = new Agent({ pipelining: 0 });

/** `json` is the parsed body when it is JSON (untyped: each caller narrows it), else undefined. */
export type HttpAnswer = {
	status: number;
	headers: Record<string, string | string[]>;
	bytes: Buffer;
	text: string;
	json: any;
};
export type HttpOptions = { body?: unknown; headers?: Record<string, string>; timeoutMs?: number };

/**
 * One request: a body that is not a string is sent as JSON. Resolves on every HTTP status;
 * rejects when the server cannot be reached or does not answer within `timeoutMs`.
 */
export async function httpRequest(
	method: string,
	url: string,
	{ body, headers = {}, timeoutMs = 15000 }: HttpOptions = {},
): Promise<HttpAnswer> {
	const payload =
		body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
	const res = await request(url, {
		method: method as import('undici').Dispatcher.HttpMethod,
		headers: {
			accept: 'application/json',
			...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
			...headers,
		},
		body: payload,
		dispatcher: oneShot,
		signal: AbortSignal.timeout(timeoutMs),
	});
	const bytes = Buffer.from(await res.body.arrayBuffer());
	const text = bytes.toString('utf8');
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: plainHeaders(res.headers), bytes, text, json };
}

/** The answer's headers with lower-case names, each a string; set-cookie always the list it is. */
function plainHeaders(
	headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		out[name] =
			name === 'set-cookie' ? [value].flat() : Array.isArray(value) ? value.join(', ') : value;
	}
	return out;
}
