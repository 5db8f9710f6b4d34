/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the one way to run the service stand-in in a process of its own and drive it over its control API (npm start, the e2e suites, the benchmark, the browser check).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { FaultSpec, LogEntry, Settings, TableName } from './index';
import { loadExeca } from '../execa';
import { httpRequest } from '../n8n/http';

const CLI = join(__dirname, 'cli.ts');

/** Node's options that run TypeScript (stack/tsx.mjs), for the tooling's child processes. */
export const RUN_TYPESCRIPT = ['--import', pathToFileURL(join(__dirname, '..', 'tsx.mjs')).href];

/** What the service reports once it listens (cli.ts, over IPC). */
export interface ServiceAccess {
	baseUrl: string;
	apiKey: string;
	demoUser: { email: string; password: string };
	freeUser: { email: string; password: string };
}

export interface ServiceProcessOptions {
	/** 0 (default): any free port, which the service reports. */
	port?: number;
	jobMs?: number;
	/** Where its output goes; by default a temporary file removed by stop(). */
	logFile?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * The service in a child process (tsx runs its TypeScript), once it listens. It stops when
 * stop() disconnects it, or by itself when this process ends (its IPC channel closes), so
 * that none outlives its parent; a terminal's Ctrl-C is the parent's to handle.
 */
export async function startServiceProcess(
	options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
	const logFile =
		options.logFile ?? join(mkdtempSync(join(tmpdir(), 'website-export-service-')), 'service.log');
	const args = ['--port', String(options.port ?? 0)];
	if (options.jobMs !== undefined) args.push('--job-ms', String(options.jobMs));
	const { execaNode } = await loadExeca();
	const child = execaNode(CLI, args, {
		nodeOptions: RUN_TYPESCRIPT,
		ipc: true,
		serialization: 'json',
		stdin: 'ignore',
		stdout: { file: logFile, append: true },
		stderr: { file: logFile, append: true },
		reject: false,
	});
	const stop = async () => {
		if (child.connected) child.disconnect();
		const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
		await child;
		clearTimeout(timer);
		if (!options.logFile) rmSync(dirname(logFile), { recursive: true, force: true });
	};
	try {
		const access = (await child.getOneMessage()) as unknown as ServiceAccess;
		return new ServiceProcess(
			access,
			child.pid,
			stop,
			child.then(() => undefined),
		);
	} catch (error) {
		const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
		await stop();
		throw new Error(`The service stand-in did not start (${(error as Error).message}):\n${log}`);
	}
}

/** A running service: how to reach it, and its control API (/__emulator/*, README.md). */
export class ServiceProcess implements ServiceAccess {
	readonly baseUrl: string;
	readonly apiKey: string;
	readonly demoUser: ServiceAccess['demoUser'];
	readonly freeUser: ServiceAccess['freeUser'];

	constructor(
		access: ServiceAccess,
		readonly pid: number | undefined,
		/** Stops it and removes its temporary log. */
		readonly stop: () => Promise<void>,
		/** Settles when it has exited, for whatever reason. */
		readonly exited: Promise<void>,
	) {
		({ baseUrl: this.baseUrl, apiKey: this.apiKey } = access);
		({ demoUser: this.demoUser, freeUser: this.freeUser } = access);
	}

	private async control(method: string, path: string, body?: unknown): Promise<Json> {
		const response = await httpRequest(method, `${this.baseUrl}/__emulator/${path}`, {
			body,
			timeoutMs: 120_000,
		});
		if (response.status >= 300)
			throw new Error(`service ${method} ${path} → ${response.status} ${response.text}`);
		return response.text ? JSON.parse(response.text) : undefined;
	}

	/** Back to the state it started in: its seed rows only, clock, settings, faults and log cleared. */
	reset(): Promise<void> {
		return this.control('POST', 'reset');
	}
	/** The service's clock (ms): created_at of rows, token expiry, link validity. */
	async now(): Promise<number> {
		return (await this.control('GET', 'clock')).now;
	}
	advanceClock(ms: number): Promise<Json> {
		return this.control('POST', 'clock', { advanceMs: ms });
	}
	/** Inserts rows (owner: the demo user); resolves to the stored rows. */
	insert(table: TableName, rows: Json[]): Promise<Json[]> {
		return this.control('POST', `rows/${table}`, { rows });
	}
	rows(table: TableName): Promise<Json[]> {
		return this.control('GET', `rows/${table}`);
	}
	settings(): Promise<Settings> {
		return this.control('GET', 'settings');
	}
	patchSettings(patch: Partial<Settings>): Promise<Settings> {
		return this.control('PATCH', 'settings', patch);
	}
	fault(spec: FaultSpec): Promise<Json> {
		return this.control('POST', 'faults', spec);
	}
	/** Every request the service received, in order. */
	async log(): Promise<LogEntry[]> {
		return (await this.control('GET', 'log')).log;
	}
	/** The seq of the newest request logged (0 before any): what came later has a greater one. */
	async lastSeq(): Promise<number> {
		return (await this.log()).reduce((max, entry) => Math.max(max, entry.seq), 0);
	}
}
