// Shared types of the Website Export emulator, and the rules its settings follow.
import { z } from 'zod';

export type TableName = 'options' | 'jobs' | 'downloads';

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

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

/** The settings and their ranges; the control API's PATCH /settings validates with this. */
export const SETTINGS_SCHEMA = z
	.object({
		maxRows: integer(1),
		tokenLifetimeSeconds: integer(1, 10 * 365 * 86400),
		jobDurationMs: integer(0),
		// yazl writes ZIP64 past 4 GiB; 64 GiB of noise is more than any test streams.
		archiveBytes: integer(0, 64 * 1024 ** 3),
		/** Delay before every non-control answer. */
		latencyMs: integer(0, 600_000),
		/** How long after its job turns finished a download row appears (a service that writes it later). */
		downloadDelayMs: integer(0),
		/** Answer writes as the spec shows them (201/204, no body), whatever `Prefer: return=…` asks. */
		ignorePrefer: z.boolean(),
		downloadTimestamps: z.enum(TIMESTAMP_FORMATS),
	})
	.strict();
export type Settings = z.infer<typeof SETTINGS_SCHEMA>;

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
	/** The Content-Type of a string `body` (text/plain by default), e.g. 'text/html'. */
	contentType?: string;
	/**
	 * The request is carried out and its real answer sent, status and headers kept, but its body
	 * cut after this many bytes (Content-Length says so): a proxy that truncated a well-formed answer.
	 */
	cutAfterBytes?: number;
	delayMs?: number;
	hang?: boolean;
	times?: number;
	/**
	 * Let this many matching requests pass first: the fault meets the (skip + 1)-th match, e.g.
	 * the k-th request of a run (no `match`) or the k-th read of a table, not only the first.
	 */
	skip?: number;
	applyAfterHandling?: boolean;
	/**
	 * With applyAfterHandling: only a request the service carried out (a 2xx) loses its answer,
	 * a lost answer after the commit; a refused one gets its real answer and the fault waits.
	 */
	afterCommit?: boolean;
	/** Close the connection without an answer (with applyAfterHandling: after the write committed). */
	reset?: boolean;
}
