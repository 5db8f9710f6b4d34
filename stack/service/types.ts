// Shared types of the Website Export emulator.

export type TableName = 'options' | 'jobs' | 'downloads';
export const TABLE_NAMES: readonly TableName[] = ['options', 'jobs', 'downloads'];

export function isTableName(name: string): name is TableName {
	return (TABLE_NAMES as readonly string[]).includes(name);
}

export type Plan = 'business' | 'free';

/**
 * How downloads show created_at (the spec types it `any`): PostgREST's timestamptz
 * (`…+00:00`), `Z`, Postgres' short offset (`…+00`), no offset (a `timestamp` column, UTC),
 * Postgres' text form with a space, or epoch seconds / milliseconds (a bigint column).
 */
export const TIMESTAMP_FORMATS = [
	'timestamptz',
	'z',
	'short-offset',
	'no-offset',
	'text',
	'epoch-seconds',
	'epoch-ms',
] as const;
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

export interface NumericSettings {
	maxRows: number;
	tokenLifetimeSeconds: number;
	jobDurationMs: number;
	archiveBytes: number;
	latencyMs: number;
	/** How long after its job turns finished a download row appears (a service that writes it later). */
	downloadDelayMs: number;
}

export interface Settings extends NumericSettings {
	/** Answer writes as the spec shows them (201/204, no body), whatever `Prefer: return=…` asks. */
	ignorePrefer: boolean;
	downloadTimestamps: TimestampFormat;
}

export type LogKind = 'token' | 'rest' | 'archive' | 'other';

export interface LogEntry {
	seq: number;
	at: number;
	method: string;
	path: string;
	query: string;
	/** 0 while no answer was sent (a hung request, or one still in flight). */
	status: number;
	kind: LogKind;
	table?: string;
	responseBytes: number;
	faulted: boolean;
	/** How long the answer was held back on purpose (a fault's delayMs plus settings.latencyMs). */
	delayedMs: number;
}

export interface Stats {
	total: number;
	token: number;
	rest: number;
	archive: number;
	byTable: Record<string, number>;
	byMethod: Record<string, number>;
}

export interface FaultSpec {
	match?: { method?: string; path?: string | RegExp };
	status?: number;
	retryAfter?: number;
	body?: unknown;
	delayMs?: number;
	hang?: boolean;
	times?: number;
	applyAfterHandling?: boolean;
	/**
	 * With applyAfterHandling: only a request the service carried out (a 2xx) loses its answer,
	 * a lost answer after the commit; a refused one gets its real answer and the fault waits.
	 */
	afterCommit?: boolean;
	/** Close the connection without an answer (with applyAfterHandling: after the write committed). */
	reset?: boolean;
}
