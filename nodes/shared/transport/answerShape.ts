// Why: a 2xx is rows only once its body is a JSON list of records, never a proxy's page.
// n8n's request helper hands an HTML page or a cut-off body to the node as a string, no error.
import type { ServiceFailure } from '../serviceError';

/**
 * What an answer must carry to be read: `rows`, a JSON list of records (a write's 201 or 204
 * may carry none); `record`, a JSON object (the login's token).
 */
export type ExpectedAnswer = 'rows' | 'record';

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

const isRecord = (value: unknown) =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** What is wrong with a body where `expected` was due, or undefined when nothing is. */
function wrongBody(
	body: unknown,
	status: number,
	headers: Record<string, unknown>,
	expected: ExpectedAnswer,
): Omit<ServiceFailure, 'status'> | undefined {
	const due = expected === 'rows' ? 'a list' : 'an object';
	if (body === undefined || body === null || body === '')
		// A write answered as the spec shows it (201 Created, 204 No Content) carries no rows.
		return expected === 'rows' && (status === 201 || status === 204)
			? undefined
			: { message: `The service answered with an empty body where ${due} was due` };
	if (typeof body === 'string') return unreadableText(body, header(headers, 'content-type') ?? '');
	if (expected === 'record')
		return isRecord(body)
			? undefined
			: { message: `The service answered with ${kindOf(body)} where an object was due` };
	if (!Array.isArray(body))
		return { message: `The service answered with ${kindOf(body)} where a list was due` };
	if (!body.every(isRecord))
		return {
			message: 'The service answered with a list of values where a list of records was due',
		};
	return undefined;
}

const kindOf = (value: unknown) => {
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value} (${excerpt(String(value))})`;
};

/**
 * The failure a broken answer is (`broken`: retried as a 5xx would be, or for a write a lost
 * answer), or undefined when the answer has the shape `expected` and a Content-Range that parses.
 */
export function brokenAnswer(
	response: { body: unknown; headers?: Record<string, unknown>; statusCode: number },
	expected: ExpectedAnswer,
): ServiceFailure | undefined {
	const { body, headers = {}, statusCode: status } = response;
	const range = header(headers, 'content-range');
	const wrong = wrongBody(body, status, headers, expected);
	if (wrong) return { ...wrong, status, broken: true };
	if (range !== undefined && !CONTENT_RANGE.test(range))
		return {
			message: `The service answered with a Content-Range that does not parse: "${excerpt(range)}"`,
			status,
			broken: true,
		};
	return undefined;
}
