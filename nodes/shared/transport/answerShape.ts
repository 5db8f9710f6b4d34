// Why: a 2xx is not rows until its body is a JSON list of records: n8n's request helper hands a proxy's HTML page or a cut-off body to the node as a string, without an error.
import type { IHttpRequestMethods } from 'n8n-workflow';

import type { ServiceFailure } from '../serviceError';

/** What an answer must carry to be read: `rows`, a JSON list of records (a write's 201 or 204 may carry none). */
export type ExpectedAnswer = 'rows';

/** PostgREST's `Content-Range`: `0-24/3573`, `*\/0`, `0-24/*`. */
const CONTENT_RANGE = /^\s*(?:\d+-\d+|\*)\/(?:\d+|\*)\s*$/;

/** Some words of a text answer, on one line, for the error's details (never the request). */
const excerpt = (text: string) => {
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length > 120 ? `${line.slice(0, 120)}…` : line;
};

const header = (headers: Record<string, unknown>, name: string) => {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
};

/** What a body that JSON.parse could not read is: a page, a JSON text cut off, or other text. */
function unreadableText(text: string, contentType: string): Omit<ServiceFailure, 'status'> {
	const start = text.trimStart().charAt(0);
	if (/html/i.test(contentType) || start === '<')
		return {
			message: 'The service answered with an HTML page, not JSON: is a proxy in between?',
			details: `The page begins: ${excerpt(text)}`,
		};
	if (/json/i.test(contentType) || start === '[' || start === '{')
		return {
			message: `The service answered with a JSON body cut off after ${Buffer.byteLength(text)} bytes`,
			details: 'The answer ended before its JSON did: a proxy or the network cut it.',
		};
	return { message: 'The service answered with text, not JSON', details: excerpt(text) };
}

/** What is wrong with a body where a list of records was due, or undefined when nothing is. */
function wrongBody(
	body: unknown,
	status: number,
	headers: Record<string, unknown>,
): Omit<ServiceFailure, 'status'> | undefined {
	if (body === undefined || body === null || body === '')
		// A write answered as the spec shows it (201 Created, 204 No Content) carries no rows.
		return status === 201 || status === 204
			? undefined
			: { message: 'The service answered with an empty body where a list was due' };
	if (typeof body === 'string') return unreadableText(body, header(headers, 'content-type') ?? '');
	if (!Array.isArray(body))
		return { message: `The service answered with ${kindOf(body)} where a list was due` };
	if (!body.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row)))
		return {
			message: 'The service answered with a list of values where a list of records was due',
		};
	return undefined;
}

const kindOf = (value: unknown) =>
	typeof value === 'object' ? 'an object' : `a ${typeof value} (${excerpt(String(value))})`;

/**
 * The failure a broken answer is (`broken`: retried as a 5xx would be, or for a write a lost
 * answer), or undefined when the answer has the shape `expected` and a Content-Range that parses.
 */
export function brokenAnswer(
	response: { body: unknown; headers: Record<string, unknown>; statusCode: number },
	expected: ExpectedAnswer,
	method: IHttpRequestMethods,
): ServiceFailure | undefined {
	const { body, headers = {}, statusCode: status } = response;
	const range = header(headers, 'content-range');
	const wrong =
		expected === 'rows' && method === 'GET' && (body === '' || body === undefined)
			? { message: 'The service answered with an empty body where a list was due' }
			: wrongBody(body, status, headers);
	if (wrong) return { ...wrong, status, broken: true };
	if (range !== undefined && !CONTENT_RANGE.test(range))
		return {
			message: `The service answered with a Content-Range that does not parse: "${excerpt(range)}"`,
			status,
			broken: true,
		};
	return undefined;
}
