/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// What a handler answers, and the error shapes of the services Supabase is made of.
import type { Readable } from 'node:stream';

export type HeaderMap = Record<string, string>;

/** A complete answer. Handlers build one; server.ts writes it (so a fault can replace it). */
export interface Reply {
	status: number;
	headers: HeaderMap;
	body?: Buffer | string;
	/** Streamed body of a known length (the archive); created only when actually sent. */
	stream?: Readable;
}

const JSON_UTF8 = 'application/json; charset=utf-8';

export function jsonReply(status: number, value: unknown, headers: HeaderMap = {}): Reply {
	return {
		status,
		headers: { 'content-type': JSON_UTF8, ...headers },
		body: JSON.stringify(value),
	};
}

export function htmlReply(status: number, html: string): Reply {
	return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html };
}

/** Thrown anywhere below a handler; the handler's caller turns it into its reply. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
		readonly headers: HeaderMap = {},
	) {
		super(
			typeof body === 'object' && body && 'message' in body
				? String(body.message)
				: `HTTP ${status}`,
		);
	}

	toReply(): Reply {
		return jsonReply(this.status, this.body, this.headers);
	}
}

/** Kong's answers (API key check, unknown route). */
export function kongError(status: number, message: string, hint?: string): ApiError {
	return new ApiError(status, hint === undefined ? { message } : { message, hint });
}

/** A request as the handlers see it: body read, query split, credentials already checked. */
export interface EmuRequest {
	method: string;
	path: string;
	/** Raw query string without `?`. */
	query: string;
	/** Decoded query parameters in order (`+` already turned into a space, as PostgREST does). */
	params: Array<[string, string]>;
	headers: Record<string, string | string[] | undefined>;
	body: Buffer;
}

export function header(req: EmuRequest, name: string): string | undefined {
	const value = req.headers[name.toLowerCase()];
	return Array.isArray(value) ? value.join(', ') : value;
}

/** The Bearer token of the Authorization header: undefined without one, '' when it is empty. */
export function bearerToken(req: EmuRequest): string | undefined {
	const match = /^bearer(?:\s+(.*))?$/i.exec(header(req, 'authorization')?.trim() ?? '');
	return match ? (match[1] ?? '').trim() : undefined;
}

/** decodeURIComponent that leaves malformed escapes as they are instead of throwing. */
export function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}
