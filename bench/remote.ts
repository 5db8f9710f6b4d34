/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** An emulator in a child process (see emulator-child.ts), driven over its HTTP control API. */
import { fork, type ChildProcess } from 'child_process';
import { join } from 'path';

import type { EmulatorOptions, LogEntry, Settings, Stats, TableName } from '../stack/service';

export interface Service {
	baseUrl: string;
	apiKey: string;
	demoUser: { email: string; password: string };
}

export class RemoteEmulator implements Service {
	private constructor(
		private readonly child: ChildProcess,
		readonly baseUrl: string,
		readonly apiKey: string,
		readonly demoUser: { email: string; password: string },
	) {}

	static async start(options: EmulatorOptions = {}): Promise<RemoteEmulator> {
		const child = fork(join(__dirname, 'emulator-child.js'), [JSON.stringify(options)], {
			execArgv: [],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		const ready = await new Promise<Service>((resolve, reject) => {
			child.once('message', (message) => resolve(message as Service));
			child.once('error', reject);
			child.once('exit', (code) =>
				reject(new Error(`the emulator process exited with code ${code}`)),
			);
		});
		child.removeAllListeners('exit');
		return new RemoteEmulator(child, ready.baseUrl, ready.apiKey, ready.demoUser);
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	async control<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.baseUrl}/__emulator/${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`emulator control ${method} ${path}: ${response.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	insert(table: TableName, rows: object[]): Promise<Array<Record<string, unknown>>> {
		return this.control('POST', `rows/${table}`, { rows });
	}

	settings(patch: Partial<Settings>): Promise<Settings> {
		return this.control('PATCH', 'settings', patch);
	}

	log(): Promise<{ log: LogEntry[]; stats: Stats }> {
		return this.control('GET', 'log');
	}

	clearLog(): Promise<void> {
		return this.control('DELETE', 'log');
	}

	async close(): Promise<void> {
		if (this.child.exitCode !== null) return;
		const exited = new Promise((resolve) => this.child.once('exit', resolve));
		this.child.disconnect();
		await exited;
	}
}
