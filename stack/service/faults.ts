/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Injected faults and the request log.
import { STATUS_CODES } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { LINK_PATH_PREFIX } from './storage';
import { type Reply, jsonReply, safeDecode } from './reply';
import type { FaultSpec, LogEntry, LogKind, Stats } from './types';

interface ActiveFault extends FaultSpec {
	remaining: number;
	/** Matching requests still to let pass before the fault meets one. */
	toSkip: number;
}

export class Faults {
	private list: ActiveFault[] = [];

	add(spec: FaultSpec): void {
		if (
			spec.status !== undefined &&
			(!Number.isInteger(spec.status) || spec.status < 100 || spec.status > 599)
		) {
			throw new Error(`fault status must be an HTTP status code, got ${spec.status}`);
		}
		const times = spec.times ?? 1;
		if (!(times >= 1)) throw new Error('fault times must be at least 1');
		if (spec.delayMs !== undefined && !(spec.delayMs >= 0))
			throw new Error('fault delayMs must be ≥ 0');
		if (
			spec.cutAfterBytes !== undefined &&
			!(Number.isInteger(spec.cutAfterBytes) && spec.cutAfterBytes >= 0)
		)
			throw new Error('fault cutAfterBytes must be a whole number ≥ 0');
		const skip = spec.skip ?? 0;
		if (!Number.isInteger(skip) || skip < 0) throw new Error('fault skip must be an integer ≥ 0');
		this.list.push({ ...spec, remaining: times, toSkip: skip });
	}

	/**
	 * The first fault, in the order added, that matches and has no request left to let pass; its
	 * use counts against `times`. A matching fault still skipping counts this request as passed.
	 */
	take(method: string, path: string): FaultSpec | undefined {
		const index = this.list.findIndex((f) => matches(f, method, path) && !skipped(f));
		if (index < 0) return undefined;
		const fault = this.list[index];
		if (--fault.remaining <= 0) this.list.splice(index, 1);
		return fault;
	}

	/** Puts back a fault `take` handed out and that did not apply (`afterCommit` on a refused request). */
	giveBack(fault: FaultSpec): void {
		const active = fault as ActiveFault;
		active.remaining++;
		if (!this.list.includes(active)) this.list.unshift(active);
	}

	clear(): void {
		this.list = [];
	}
}

/** Whether a matching fault lets this request pass (one fewer to let pass). */
function skipped(fault: ActiveFault): boolean {
	if (fault.toSkip <= 0) return false;
	fault.toSkip--;
	return true;
}

function matches(fault: FaultSpec, method: string, path: string): boolean {
	const m = fault.match;
	if (!m) return true;
	if (m.method !== undefined && m.method.toUpperCase() !== method) return false;
	if (m.path === undefined) return true;
	return typeof m.path === 'string'
		? m.path === path
		: new RegExp(m.path.source, m.path.flags.replace('g', '')).test(path);
}

/** The answer a fault gives instead of the real one. */
export function faultReply(fault: FaultSpec): Reply {
	const status = fault.status as number;
	const body = fault.body ?? {
		code: String(status),
		details: null,
		hint: null,
		message: STATUS_CODES[status] ?? 'Error',
	};
	const headers: Record<string, string> = {};
	if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
	if (typeof body === 'string') {
		const contentType = fault.contentType ?? 'text/plain; charset=utf-8';
		return { status, headers: { 'content-type': contentType, ...headers }, body };
	}
	return jsonReply(status, body, headers);
}

/** The real answer with its body cut after `bytes` (a streamed one read whole first). */
export async function cutReply(reply: Reply, bytes: number): Promise<Reply> {
	const whole = reply.stream
		? await buffer(reply.stream)
		: Buffer.from(reply.body ?? Buffer.alloc(0));
	const headers = { ...reply.headers };
	delete headers['content-length'];
	return { status: reply.status, headers, body: whole.subarray(0, bytes) };
}

export class RequestLog {
	/** One array for the emulator's lifetime: clearing empties it in place. */
	readonly entries: LogEntry[] = [];
	private seq = 0;
	private readonly arrivalHooks = new Set<(entry: LogEntry) => unknown>();

	/** `hook` runs as each request arrives, and the request waits for what it returns. */
	onArrival(hook: (entry: LogEntry) => unknown): () => void {
		this.arrivalHooks.add(hook);
		return () => this.arrivalHooks.delete(hook);
	}

	async arrived(entry: LogEntry): Promise<void> {
		for (const hook of [...this.arrivalHooks]) await hook(entry);
	}

	start(at: number, method: string, path: string, query: string): LogEntry {
		const { kind, table } = classify(path);
		const entry: LogEntry = {
			seq: ++this.seq,
			at,
			method,
			path,
			query,
			status: 0,
			kind,
			responseBytes: 0,
			faulted: false,
			delayedMs: 0,
		};
		if (table !== undefined) entry.table = table;
		this.entries.push(entry);
		return entry;
	}

	clear(): void {
		this.entries.length = 0;
	}

	stats(): Stats {
		const stats: Stats = { total: 0, token: 0, rest: 0, archive: 0, byTable: {}, byMethod: {} };
		for (const e of this.entries) {
			stats.total++;
			if (e.kind !== 'other') stats[e.kind]++;
			if (e.table !== undefined) stats.byTable[e.table] = (stats.byTable[e.table] ?? 0) + 1;
			stats.byMethod[e.method] = (stats.byMethod[e.method] ?? 0) + 1;
		}
		return stats;
	}
}

function classify(path: string): { kind: LogKind; table?: string } {
	if (path === '/auth/v1/token') return { kind: 'token' };
	const rest = /^\/rest\/v1\/([^/]+)/.exec(path);
	if (rest) return { kind: 'rest', table: safeDecode(rest[1]) };
	if (path.startsWith('/rest/v1')) return { kind: 'rest' };
	if (path.startsWith(LINK_PATH_PREFIX)) return { kind: 'archive' };
	return { kind: 'other' };
}
