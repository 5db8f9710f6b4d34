/* eslint-disable @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Public entry point of the Website Export service emulator: real Postgres and PostgREST behind a gateway (see README.md).
import { DEMO_USER } from './accounts';
import { backendReuse } from './backends';
import { DEFAULT_API_KEY, EmulatorCore } from './core';
import { EmulatorServer } from './server';
import type {
	FaultSpec,
	LogEntry,
	Plan,
	Settings,
	Stats,
	TableName,
	TimestampFormat,
} from './types';

export type { FaultSpec, LogEntry, Plan, Settings, Stats, TableName };

export interface EmulatorOptions {
	/** TCP port; 0 = any free port. */
	port?: number;
	/** Listen address; loopback only. */
	host?: string;
	apiKey?: string;
	tokenLifetimeSeconds?: number;
	maxRows?: number;
	jobDurationMs?: number;
	seedDemo?: boolean;
	archiveBytes?: number;
	/** Initial emulated time (ms since the epoch); the clock then runs with real time. */
	now?: number;
	/** Delay before every non-control answer. */
	latencyMs?: number;
	downloadDelayMs?: number;
	ignorePrefer?: boolean;
	downloadTimestamps?: TimestampFormat;
	/** The clock moves only through clock.advance()/set(): fully deterministic timestamps. */
	freezeClock?: boolean;
}

export interface Emulator {
	readonly baseUrl: string;
	readonly apiKey: string;
	readonly demoUser: { email: string; password: string };
	close(): Promise<void>;
	reset(): Promise<void>;
	addUser(u: { email: string; password: string; plan?: Plan }): Promise<{ id: string }>;
	userId(email: string): string;
	readonly clock: {
		now(): number;
		advance(ms: number): Promise<void>;
		set(ms: number): Promise<void>;
	};
	insert(table: TableName, rows: object[], opts?: { owner?: string }): Promise<object[]>;
	/** Deletes rows by id, as another client of the account would. */
	remove(table: TableName, ids: number[]): Promise<void>;
	rows(table: TableName): Promise<object[]>;
	count(table: TableName): Promise<number>;
	readonly settings: Settings;
	fault(f: FaultSpec): void;
	clearFaults(): void;
	readonly log: LogEntry[];
	/** Runs `listener` as each request arrives, before it is handled (which waits for its promise); returns the remover. */
	onArrival(listener: (entry: LogEntry) => unknown): () => void;
	clearLog(): void;
	stats(): Stats;
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|::1)$/;

/**
 * Under a test framework that calls closeEmulators() when a file is done
 * (test/harness/reuse-backends.ts): every start of the file, finished or not. A setup that timed
 * out leaves no emulator (and no PostgREST) behind to keep the worker alive.
 */
const starts: Set<Promise<Emulator>> = new Set();

/** An emulator on the loopback address, with its own database and PostgREST; close() is idempotent. */
export function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
	const started = launchEmulator(options);
	if (backendReuse()) starts.add(started);
	return started;
}

/** Closes every emulator started since the last call, once its start settled (the file is done). */
export async function closeEmulators(): Promise<void> {
	const pending = [...starts];
	starts.clear();
	for (const settled of await Promise.allSettled(pending))
		if (settled.status === 'fulfilled') await settled.value.close();
}

async function launchEmulator(options: EmulatorOptions): Promise<Emulator> {
	const host = options.host ?? '127.0.0.1';
	if (!LOOPBACK.test(host))
		throw new Error(`the emulator listens on loopback addresses only, not ${host}`);
	const core = await EmulatorCore.create({
		apiKey: options.apiKey ?? DEFAULT_API_KEY,
		seedDemo: options.seedDemo ?? true,
		now: options.now,
		freezeClock: options.freezeClock ?? false,
		settings: {
			maxRows: options.maxRows ?? 1000,
			tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
			jobDurationMs: options.jobDurationMs ?? 3000,
			archiveBytes: options.archiveBytes ?? 64 * 1024,
			latencyMs: options.latencyMs ?? 0,
			downloadDelayMs: options.downloadDelayMs ?? 0,
			ignorePrefer: options.ignorePrefer ?? false,
			downloadTimestamps: options.downloadTimestamps ?? 'timestamptz',
		},
	});
	const server = new EmulatorServer(core);
	let baseUrl: string;
	try {
		baseUrl = await server.listen(host, options.port ?? 0);
		await core.setBaseUrl(baseUrl);
	} catch (error) {
		await core.close();
		throw error;
	}
	const clock = core.clock;
	return {
		baseUrl,
		apiKey: core.apiKey,
		demoUser: { ...DEMO_USER },
		close: once(async () => {
			await server.close();
			await core.close();
		}),
		reset: () => core.reset(),
		addUser: (u) => core.addUser(u),
		userId: (email) => core.userId(email),
		clock: {
			now: () => clock.now(),
			advance: (ms) => core.advanceClock(ms),
			set: (ms) => core.setClock(ms),
		},
		insert: (table, rows, opts) => core.insert(table, rows, opts),
		remove: (table, ids) => core.remove(table, ids),
		rows: (table) => core.rows(table),
		count: (table) => core.count(table),
		settings: core.settings,
		fault: (f) => core.faults.add(f),
		clearFaults: () => core.faults.clear(),
		log: core.log.entries,
		onArrival: (listener) => core.log.onArrival(listener),
		clearLog: () => core.log.clear(),
		stats: () => core.log.stats(),
	};
}

/** `action` run at most once: later calls get the first call's promise. */
function once(action: () => Promise<void>): () => Promise<void> {
	let done: Promise<void> | undefined;
	return () => (done ??= action());
}
