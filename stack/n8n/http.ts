/* eslint-disable @typescript-eslint/no-explicit-any -- dev code, never shipped: n8n's untyped JSON (npx n8n-node lint reads every .ts file) */
/** JSON over HTTP for the tooling (n8n's REST API, health probes), on the platform's fetch. */

/** `json` is the parsed body when it is JSON (untyped: each caller narrows it), else undefined. */
export type HttpAnswer = {
	status: number;
	headers: Record<string, string | string[]>;
	text: string;
	json: any;
};
export type HttpOptions = { body?: unknown; headers?: Record<string, string>; timeoutMs?: number };

/**
 * The answer's headers as a plain object with lower-case names; set-cookie as the list it is.
 */
function plainHeaders(headers: Headers): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = Object.fromEntries(headers.entries());
	const cookies = headers.getSetCookie();
	if (cookies.length) out['set-cookie'] = cookies;
	return out;
}

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
	const res = await fetch(url, {
		method,
		headers: {
			accept: 'application/json',
			...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
			...headers,
		},
		body: payload,
		redirect: 'manual',
		signal: AbortSignal.timeout(timeoutMs),
	});
	const text = await res.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.status, headers: plainHeaders(res.headers), text, json };
}
