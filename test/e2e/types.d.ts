// The shapes the e2e suites pass between their modules, declared once so that a suite's JSDoc
// can name them without importing a module (and what that module loads).

import type { LogEntry } from '../../stack/service/types';

/**
 * A row, item or answer as JSON from the service or from n8n: untyped, read by the assertions
 * that check it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** One request the emulator received (GET /__emulator/log). */
export type { LogEntry };

/** The running service stand-in, driven through its control API (stack/service/launch.ts). */
export type { ServiceProcess as Emulator } from '../../stack/service/launch';

/** An n8n item as `n8n execute` printed it. */
export interface Item {
	json: Json;
	binary?: Json;
	pairedItem?: Json;
}

/** What stack/n8n/lib.js's executeWorkflow resolves to (the parts the suites read). */
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

/** The part of a running `n8n start` (stack/n8n/lib.js startN8n) that lists executions. */
export interface ExecutionSource {
	executions(filter: { workflowId: string }): Promise<Json[]>;
	execution(id: string): Promise<Json>;
}
