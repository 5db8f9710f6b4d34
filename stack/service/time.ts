// The service's clock (moved by tests, read by the database through private.clock) and the
// forms of downloads' created_at that PostgREST never writes (the gateway's clearly named rewrite).
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

	/** The clock as private.clock holds it: the offset from the real time, or the frozen instant. */
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
export const FORMAT_AS: Readonly<Record<TimestampFormat, (iso: string) => string | number>> = {
	timestamptz: (iso) => iso,
	z: (iso) => iso.replace(/\+00:00$/, 'Z'),
	'short-offset': (iso) => iso.replace(/:00$/, ''),
	'no-offset': (iso) => iso.replace(/\+00:00$/, ''),
	text: (iso) => iso.replace('T', ' ').replace(/:00$/, ''),
	'epoch-seconds': (iso) => Math.floor(Date.parse(iso) / 1000),
	'epoch-ms': (iso) => Date.parse(iso),
};
