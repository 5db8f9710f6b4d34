/* eslint-disable @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Public entry point of the Website Export service emulator: real Postgres and PostgREST behind a gateway (see README.md).
import { DEMO_USER } from './accounts';
import { backendReuse } from './backends';
import { DEFAULT_API_KEY, EmulatorCore } from './core';
import { EmulatorServer } from './server';
import type { FaultSpec, LogEntry, Plan, Settings, Stats, TableName } from './types';

export type { FaultSpec, LogEntry, Plan, Settings, Stats, TableName };

/** How to start, and the settings to start with (one left out takes DEFAULT_SETTINGS'). */
export interface EmulatorOptions extends Partial<Settings> {
	/** TCP port; 0 = any free port. */
	port?: number;
	/** Listen address; loopback only. */
	host?: string;
	apiKey?: string;
	seedDemo?: boolean;
	/** Initial emulated time (ms since the epoch); the clock then runs with real time. */
	now?: number;
	/** The clock moves only through clock.advance()/set(): fully deterministic timestamps. */
	freezeClock?: boolean;
}

const DEFAULT_SETTINGS: Settings = {
	maxRows: 1000,
	tokenLifetimeSeconds: 3600,
	jobDurationMs: 3000,
	archiveBytes: 64 * 1024,
	latencyMs: 0,
	downloadDelayMs: 0,
	ignorePrefer: false,
	downloadTimestamps: 'timestamptz',
};

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
	const { port = 0, host = '127.0.0.1', now, freezeClock = false, ...rest } = options;
	const { apiKey = DEFAULT_API_KEY, seedDemo = true, ...initial } = rest;
	if (!LOOPBACK.test(host))
		throw new Error(`the emulator listens on loopback addresses only, not ${host}`);
	// A setting given as undefined takes its default, as one left out.
	const given = Object.entries(initial).filter(([, value]) => value !== undefined);
	const settings: Settings = { ...DEFAULT_SETTINGS, ...Object.fromEntries(given) };
	const core = await EmulatorCore.create({ apiKey, seedDemo, now, freezeClock, settings });
	const server = new EmulatorServer(core);
	let baseUrl: string;
	try {
		baseUrl = await server.listen(host, port);
		await core.setBaseUrl(baseUrl);
	} catch (error) {
		await core.close();
		throw error;
	}
	const clock = core.clock;
	let closing: Promise<void> | undefined; // close() runs once: later calls get the same promise
	return {
		baseUrl,
		apiKey: core.apiKey,
		demoUser: { ...DEMO_USER },
		close: () => (closing ??= server.close().then(() => core.close())),
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
