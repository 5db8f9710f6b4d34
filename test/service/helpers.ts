/* eslint-disable @typescript-eslint/no-explicit-any -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Test helpers: a thin undici client for the emulator.
import { request } from 'undici';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../stack/service/index';

/** 2026-11-22T18:07:14.764Z: a fixed start for frozen-clock tests. */
export const T0 = Date.UTC(2026, 10, 22, 18, 7, 14, 764);

export interface Res {
	status: number;
	headers: Record<string, string>;
	text: string;
	/** Parsed JSON body, undefined when the body is empty or not JSON. */
	json: any;
}

export interface CallOptions {
	headers?: Record<string, string>;
	/** An object/array is sent as JSON; a string as is. */
	body?: unknown;
	/** Sent as `Authorization: Bearer <token>`. */
	token?: string;
	/** The gateway key; null sends none. Defaults to the emulator's key. */
	apikey?: string | null;
}

export async function call(
	emu: Emulator,
	method: string,
	path: string,
	opts: CallOptions = {},
): Promise<Res> {
	const headers: Record<string, string> = {};
	if (opts.apikey !== null) headers.apikey = opts.apikey ?? emu.apiKey;
	if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
	let body: string | undefined;
	if (opts.body !== undefined) {
		body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
		headers['content-type'] = 'application/json';
	}
	Object.assign(headers, opts.headers);
	const res = await request(emu.baseUrl + path, { method: method as 'GET', headers, body });
	const text = await res.body.text();
	let json: unknown;
	try {
		json = text === '' ? undefined : JSON.parse(text);
	} catch {
		json = undefined;
	}
	const flat: Record<string, string> = {};
	for (const [k, v] of Object.entries(res.headers))
		if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
	return { status: res.statusCode, headers: flat, text, json };
}

export async function login(
	emu: Emulator,
	email = emu.demoUser.email,
	password = emu.demoUser.password,
): Promise<string> {
	const res = await call(emu, 'POST', '/auth/v1/token?grant_type=password', {
		body: { email, password },
	});
	if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
	return res.json.access_token as string;
}

/** A frozen-clock emulator at T0 unless told otherwise. */
export function start(options: EmulatorOptions = {}): Promise<Emulator> {
	return startEmulator({ freezeClock: true, now: T0, ...options });
}

export const ids = (rows: Array<{ id: number }>): number[] => rows.map((r) => r.id);

/** `/rest/v1/<table>?…` with every value URL-encoded (as a client that quotes correctly does). */
export function rest(
	table: string,
	params: Record<string, string> | Array<[string, string]> = [],
): string {
	const search = new URLSearchParams(params).toString();
	return `/rest/v1/${table}${search ? `?${search}` : ''}`;
}
