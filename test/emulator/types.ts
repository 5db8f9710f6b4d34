// Shared types of the Website Export emulator.

export type TableName = 'options' | 'jobs' | 'downloads';
export const TABLE_NAMES: readonly TableName[] = ['options', 'jobs', 'downloads'];

export function isTableName(name: string): name is TableName {
	return (TABLE_NAMES as readonly string[]).includes(name);
}

/** What a column holds after type coercion: bigint/integer as number, the rest as text. */
export type CellValue = string | number | null;

/** One stored row. `data` holds the public columns in table order. */
export interface Row {
	data: Record<string, CellValue>;
	/** RLS owner (user id); for jobs it mirrors `user_id`. */
	ownerId: string;
	/** created_at in microseconds since the epoch, used for comparisons and ordering. */
	createdUs: number;
	/** Emulator-clock millisecond of creation: drives the job lifecycle and link validity. */
	createdMs: number;
	/** Cached `JSON.stringify(data)` for `select=*`; dropped whenever the row changes. */
	json?: string;
}

export type Plan = 'business' | 'free';

/**
 * How the downloads table writes created_at (the spec types it `any`): PostgREST's timestamptz
 * (`…+00:00`), `Z`, Postgres' short offset (`…+00`), a `timestamp` column without offset (UTC),
 * Postgres' text form with a space, or epoch seconds / milliseconds (a bigint column).
 */
export const TIMESTAMP_FORMATS = ['timestamptz', 'z', 'short-offset', 'no-offset', 'text', 'epoch-seconds', 'epoch-ms'] as const;
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
	/** Close the connection without an answer (with applyAfterHandling: after the write committed). */
	reset?: boolean;
}
