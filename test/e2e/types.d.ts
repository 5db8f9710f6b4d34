// The shapes the e2e suites pass between their modules, declared once so that a suite's JSDoc
// can name them without importing a module (and what that module loads).

import type { FaultSpec, LogEntry } from '../../stack/service/types';

/**
 * A row, item or answer as JSON from the service or from n8n: untyped, read by the assertions
 * that check it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** One request the emulator received (GET /__emulator/log). */
export type { LogEntry };

/** A login of the emulator's GoTrue. */
export interface EmulatorUser {
	email: string;
	password: string;
}

/** What /__emulator/health answers once the emulator is up. */
export interface EmulatorHealth {
	ok: boolean;
	baseUrl: string;
	apiKey: string;
	demoUser: EmulatorUser;
	freeUser: EmulatorUser;
}

/** The running emulator, driven through its control API (test/e2e/emulator.js). */
export interface Emulator {
	baseUrl: string;
	apiKey: string;
	demoUser: EmulatorUser;
	freeUser: EmulatorUser;
	pid: number | undefined;
	output: () => string;
	now(): Promise<number>;
	insert(table: string, rows: Json[]): Promise<Json[]>;
	rows(table: string): Promise<Json[]>;
	settings(): Promise<Json>;
	patchSettings(patch: Json): Promise<Json>;
	fault(spec: FaultSpec): Promise<Json>;
	clearFaults(): Promise<Json>;
	advanceClock(ms: number): Promise<Json>;
	log(): Promise<LogEntry[]>;
	lastSeq(): Promise<number>;
	stop(): Promise<void>;
}

/** An n8n item as `n8n execute` printed it. */
export interface Item {
	json: Json;
	binary?: Json;
	pairedItem?: Json;
}

/** What scripts/n8n/lib.js's executeWorkflow resolves to (the parts the suites read). */
export interface RunResult {
	ok: boolean;
	status: string;
	error: { message: string; description?: string } | null;
	lastNode?: string;
	durationMs: number;
	signal?: string | null;
	run?: Json;
	stdout: string;
	stderr: string;
	items(nodeName: string, options?: { withBinary?: boolean }): Item[] | null | undefined;
}

/** Runs one check and prints its line (test/e2e/suite.js). */
export type Check = (name: string, fn: () => unknown) => Promise<boolean>;

/** Prints a note line (test/e2e/suite.js). */
export type Note = (text: string) => void;

/** Environment variables for an n8n child process. */
export type Env = Record<string, string | undefined>;

/** The part of a running `n8n start` (scripts/n8n/lib.js startN8n) that lists executions. */
export interface ExecutionSource {
	executions(filter: { workflowId: string }): Promise<Json[]>;
	execution(id: string): Promise<Json>;
}
