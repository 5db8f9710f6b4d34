/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The gateway: routing like Supabase's Kong (apikey check, /auth/v1 to GoTrue, /rest/v1 to the real
// PostgREST, storage), faults, latency, the log, the Date of the service clock, and writing replies.
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleControl } from './control';
import type { EmulatorCore } from './core';
import { cutReply, faultReply } from './faults';
import { handleAuth } from './gotrue';
import { proxyRest } from './proxy';
import {
	ApiError,
	type EmuRequest,
	type Reply,
	header,
	htmlReply,
	jsonReply,
	kongError,
} from './reply';
import { serveArchive } from './storage';
import type { LogEntry } from './types';

/** The longest request line a gateway takes (nginx's `large_client_header_buffers`, 8 KiB). */
export const MAX_REQUEST_LINE_BYTES = 8 * 1024;

/** Headers a browser client may read (supabase-js needs Content-Range for counts). */
const EXPOSED_HEADERS =
	'Content-Range, Content-Profile, Preference-Applied, Location, Retry-After, X-Supabase-Api-Version, X-Sb-Error-Code';

export class EmulatorServer {
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	/** Requests a `hang` fault holds open until reset() or close(). */
	private readonly hung = new Set<ServerResponse>();
	baseUrl = '';

	constructor(private readonly core: EmulatorCore) {
		this.server = createServer((req, res) => {
			this.onRequest(req, res).catch((error: unknown) => {
				if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ message: `emulator error: ${(error as Error).message}` }));
			});
		});
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
		core.onReset = () => this.releaseHung();
	}

	async listen(host: string, port: number): Promise<string> {
		// once() rejects on an 'error' first (a port in use).
		await once(this.server.listen(port, host), 'listening');
		const address = this.server.address() as AddressInfo;
		const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
		this.baseUrl = `http://${hostPart}:${address.port}`;
		return this.baseUrl;
	}

	async close(): Promise<void> {
		this.releaseHung();
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		for (const socket of this.sockets) socket.destroy();
		await closed;
	}

	private releaseHung(): void {
		for (const res of this.hung) res.destroy();
		this.hung.clear();
	}

	private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const rawUrl = req.url ?? '/';
		const queryStart = rawUrl.indexOf('?');
		const path = queryStart < 0 ? rawUrl : rawUrl.slice(0, queryStart);
		const query = queryStart < 0 ? '' : rawUrl.slice(queryStart + 1);
		const request: EmuRequest = {
			method: (req.method ?? 'GET').toUpperCase(),
			path,
			query,
			params: [...new URLSearchParams(query)],
			headers: req.headers,
			body: await buffer(req),
		};
		if (path === '/__emulator' || path.startsWith('/__emulator/')) {
			const local = /^(127\.|::1$|::ffff:127\.)/.test(req.socket.remoteAddress ?? '');
			const reply = local
				? await handleControl(request, this.core, this.baseUrl)
				: jsonReply(403, { error: 'loopback only' });
			await this.send(res, reply, undefined);
			return;
		}
		const core = this.core;
		const entry = core.log.start(core.clock.now(), request.method, path, query);
		await core.log.arrived(entry);
		const fault = core.faults.take(request.method, path);
		entry.delayedMs = (fault?.delayMs ?? 0) + core.settings.latencyMs;
		if (entry.delayedMs > 0) await sleep(entry.delayedMs);
		if (fault?.hang) {
			entry.faulted = true;
			this.hung.add(res);
			res.on('close', () => this.hung.delete(res));
			return;
		}
		const carriedOut = fault?.applyAfterHandling || fault?.cutAfterBytes !== undefined;
		const handled = carriedOut ? await this.route(request) : undefined;
		if (handled && fault?.afterCommit && (handled.status < 200 || handled.status > 299)) {
			// Not carried out: no commit whose answer could be lost. The fault waits for the next.
			core.faults.giveBack(fault);
			await this.send(res, withCors(request, handled), entry);
			return;
		}
		if (fault?.reset) {
			// The answer is lost on the way back: the write (with applyAfterHandling) is done.
			entry.faulted = true;
			req.socket.destroy();
			return;
		}
		let reply: Reply;
		if (fault?.status !== undefined) {
			entry.faulted = true;
			reply = faultReply(fault);
		} else if (handled && fault?.cutAfterBytes !== undefined) {
			entry.faulted = true;
			reply = await cutReply(handled, fault.cutAfterBytes);
		} else reply = handled ?? (await this.route(request));
		await this.send(res, withCors(request, reply), entry);
	}

	/** What Supabase would answer; errors thrown below become their service's error reply. */
	private async route(req: EmuRequest): Promise<Reply> {
		try {
			return await this.dispatch(req);
		} catch (error) {
			if (error instanceof ApiError) return error.toReply();
			throw error;
		}
	}

	private async dispatch(req: EmuRequest): Promise<Reply> {
		const core = this.core;
		// The gateway in front (Kong's nginx) refuses a request line over 8 KiB, before any route.
		const line = `${req.method} ${req.path}${req.query ? `?${req.query}` : ''} HTTP/1.1`;
		if (Buffer.byteLength(line) > MAX_REQUEST_LINE_BYTES)
			throw kongError(414, 'Request-URI Too Large');
		if (req.method === 'OPTIONS') return preflight(req);
		if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD'))
			return htmlReply(200, rootPage(this.baseUrl));
		await core.tick();
		// Public storage objects need no key (the storage route has no key-auth in Kong).
		if (req.path.startsWith('/storage/v1/'))
			return await serveArchive(req.path, req.method, core.db, core.settings);
		const isAuth = req.path.startsWith('/auth/v1/');
		const isRest = req.path === '/rest/v1' || req.path.startsWith('/rest/v1/');
		if (!isAuth && !isRest) throw kongError(404, 'no Route matched with those values');
		checkApiKey(req, core.apiKey);
		if (isAuth) {
			return await handleAuth(req, { core, baseUrl: this.baseUrl, nowMs: core.clock.now() });
		}
		return await proxyRest(req, core);
	}

	private async send(
		res: ServerResponse,
		reply: Reply,
		entry: LogEntry | undefined,
	): Promise<void> {
		// The Date header follows the emulated clock, like everything else.
		const headers: Record<string, string> = {
			date: new Date(this.core.clock.now()).toUTCString(),
			...reply.headers,
		};
		const body = reply.body === undefined ? undefined : Buffer.from(reply.body);
		if (body) headers['content-length'] = String(body.length);
		else if (
			!reply.stream &&
			headers['content-length'] === undefined &&
			reply.status !== 204 &&
			reply.status !== 304
		) {
			headers['content-length'] = '0';
		}
		res.writeHead(reply.status, headers);
		if (entry) entry.status = reply.status;
		if (!reply.stream) {
			if (entry && body) entry.responseBytes = body.length;
			res.end(body);
			return;
		}
		const source = reply.stream;
		if (entry) source.on('data', (chunk: Buffer) => (entry.responseBytes += chunk.length));
		// A client that goes away mid-download ends the pipeline with an error: nothing to do.
		await new Promise<void>((resolve) => pipeline(source, res, () => resolve()));
	}
}

/** Kong's key-auth: the `apikey` header, or an `apikey` query parameter. */
function checkApiKey(req: EmuRequest, apiKey: string): void {
	const given = header(req, 'apikey') ?? req.params.find(([key]) => key === 'apikey')?.[1];
	if (given === undefined || given === '') {
		throw kongError(
			401,
			'No API key found in request',
			'No `apikey` request header or url param was found.',
		);
	}
	if (given !== apiKey)
		throw kongError(
			401,
			'Invalid API key',
			'Double check your Supabase `anon` or `service_role` API key.',
		);
}

/** `GET /`: what this is, for someone who opens the base URL in a browser. */
function rootPage(baseUrl: string): string {
	return `<!doctype html>
<html><head><meta charset="utf-8"><title>Website Export emulator</title></head><body>
<h1>Website Export emulator</h1>
<p>A local stand-in for the Website Export service (Supabase): Postgres and PostgREST behind a gateway.</p>
<ul>
<li><code>POST ${baseUrl}/auth/v1/token?grant_type=password</code>: the login (header <code>apikey</code>)</li>
<li><code>${baseUrl}/rest/v1/options</code>, <code>/rest/v1/jobs</code>, <code>/rest/v1/downloads</code>: the API (headers <code>apikey</code> and <code>Authorization: Bearer</code>)</li>
<li><code>${baseUrl}/__emulator/health</code>: the API key, the demo login and the control API (see stack/service/README.md)</li>
</ul>
</body></html>
`;
}

function preflight(req: EmuRequest): Reply {
	return {
		status: 200,
		headers: {
			'access-control-allow-origin': header(req, 'origin') ?? '*',
			'access-control-allow-credentials': 'true',
			'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS',
			'access-control-allow-headers': header(req, 'access-control-request-headers') ?? '*',
			'access-control-max-age': '3600',
		},
	};
}

/** Kong's cors plugin answers every request that carries an Origin. */
function withCors(req: EmuRequest, reply: Reply): Reply {
	const origin = header(req, 'origin');
	if (origin === undefined || req.method === 'OPTIONS') return reply;
	return {
		...reply,
		headers: {
			...reply.headers,
			'access-control-allow-origin': origin,
			'access-control-allow-credentials': 'true',
			'access-control-expose-headers': EXPOSED_HEADERS,
		},
	};
}
