'use strict';
/** JSON over HTTP for the tooling (n8n's REST API, health probes), on the platform's fetch. */

/**
 * @typedef {{ status: number, headers: Record<string, string | string[]>, text: string, json: any }} HttpAnswer
 *   `json` is the parsed body when it is JSON (untyped: each caller narrows it), else undefined.
 * @typedef {{ body?: unknown, headers?: Record<string, string>, timeoutMs?: number }} HttpOptions
 */

/**
 * The answer's headers as a plain object with lower-case names; set-cookie as the list it is.
 * @param {Headers} headers
 * @returns {Record<string, string | string[]>}
 */
function plainHeaders(headers) {
	/** @type {Record<string, string | string[]>} */
	const out = Object.fromEntries(headers.entries());
	const cookies = headers.getSetCookie();
	if (cookies.length) out['set-cookie'] = cookies;
	return out;
}

/**
 * One request: a body that is not a string is sent as JSON. Resolves on every HTTP status;
 * rejects when the server cannot be reached or does not answer within `timeoutMs`.
 * @param {string} method
 * @param {string} url
 * @param {HttpOptions} [options]
 * @returns {Promise<HttpAnswer>}
 */
async function httpRequest(method, url, { body, headers = {}, timeoutMs = 15000 } = {}) {
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

module.exports = { httpRequest };
