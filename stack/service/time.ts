// The service's clock (moved by tests, read by the database through private.clock) and the
// clearly named gateway rewrite of downloads' created_at into the forms PostgREST never writes.
import type { TimestampFormat } from './types';

/**
 * The machine's clock as Postgres and PostgREST read it: tests may replace Date.now (to move
 * the node's and the emulator's time together), never this captured original.
 */
export const wallClock: () => number = Date.now;

export class EmulatorClock {
	private offsetMs = 0;
	private frozenAtMs: number | undefined;

	constructor(
		private readonly initialMs: number | undefined,
		private readonly frozen: boolean,
	) {
		this.reset();
	}

	now(): number {
		return this.frozenAtMs ?? Date.now() + this.offsetMs;
	}

	/** What private.clock holds: the offset from the machine's real time, or the frozen instant. */
	state(): { offsetMs: number; frozenMs: number | null } {
		return { offsetMs: this.now() - wallClock(), frozenMs: this.frozenAtMs ?? null };
	}

	advance(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error('clock.advance needs a finite number of ms');
		this.set(this.now() + ms);
	}

	set(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error('clock.set needs a finite ms timestamp');
		if (this.frozenAtMs !== undefined) this.frozenAtMs = Math.floor(ms);
		else this.offsetMs = Math.floor(ms) - Date.now();
	}

	/** Back to the start state: `initialMs` if one was given, else real time. */
	reset(): void {
		const start = this.initialMs ?? Date.now();
		this.offsetMs = start - Date.now();
		this.frozenAtMs = this.frozen ? start : undefined;
	}
}

/**
 * created_at as PostgREST writes a timestamptz (`2026-11-22T18:07:14.764123+00:00`), turned into
 * one of the other forms a service may use (the spec types the downloads' created_at `any`).
 */
export function formatAs(format: TimestampFormat, iso: string): string | number {
	switch (format) {
		case 'timestamptz':
			return iso;
		case 'z':
			return iso.replace(/\+00:00$/, 'Z');
		case 'short-offset':
			return iso.replace(/:00$/, '');
		case 'no-offset':
			return iso.replace(/\+00:00$/, '');
		case 'text':
			return iso.replace('T', ' ').replace(/:00$/, '');
		case 'epoch-seconds':
			return Math.floor(Date.parse(iso) / 1000);
		case 'epoch-ms':
			return Date.parse(iso);
	}
}

/** The gateway rewrite: rows whose id has a format other than timestamptz get created_at in it. */
export function rewriteDownloadTimestamps<T extends Record<string, unknown>>(
	rows: T[],
	formats: ReadonlyMap<number, TimestampFormat>,
): T[] {
	if (formats.size === 0) return rows;
	return rows.map((row) => {
		const format = formats.get(row.id as number);
		return format && typeof row.created_at === 'string'
			? { ...row, created_at: formatAs(format, row.created_at) }
			: row;
	});
}
