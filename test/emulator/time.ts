// The emulated clock and Postgres-style timestamps (microsecond precision, UTC session).
import type { TimestampFormat } from './types';

export class EmulatorClock {
	private offsetMs = 0;
	private frozenAtMs: number | undefined;
	private readonly listeners: Array<() => void> = [];

	constructor(
		private readonly initialMs: number | undefined,
		private readonly frozen: boolean,
	) {
		this.reset();
	}

	now(): number {
		return this.frozenAtMs ?? Date.now() + this.offsetMs;
	}

	advance(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error('clock.advance needs a finite number of ms');
		this.set(this.now() + ms);
	}

	set(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error('clock.set needs a finite ms timestamp');
		if (this.frozenAtMs !== undefined) this.frozenAtMs = Math.floor(ms);
		else this.offsetMs = Math.floor(ms) - Date.now();
		for (const listener of this.listeners) listener();
	}

	/** Back to the start state: `initialMs` if one was given, else real time. */
	reset(): void {
		const start = this.initialMs ?? Date.now();
		this.offsetMs = start - Date.now();
		this.frozenAtMs = this.frozen ? start : undefined;
	}

	onChange(listener: () => void): void {
		this.listeners.push(listener);
	}
}

/**
 * A deterministic sub-millisecond part, so that created_at carries microseconds like a real
 * Postgres `now()` does (a client that round-trips it through a JS Date loses them — a real bug).
 */
export function subMillisecondMicros(ms: number): number {
	return (Math.imul(ms % 2147483647 | 0, 2654435761) >>> 0) % 1000;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The UTC date of a microsecond timestamp and the microseconds within its second. */
function splitMicros(us: number): { date: Date; micros: number } {
	return { date: new Date(Math.floor(us / 1000)), micros: us - Math.floor(us / 1e6) * 1e6 };
}

/** Postgres drops trailing zeros of the fraction, and the dot when nothing is left. */
function fraction(micros: number): string {
	return micros === 0 ? '' : `.${pad(micros, 6)}`.replace(/0+$/, '');
}

function datePart(d: Date): string {
	return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function timePart(d: Date): string {
	return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** How PostgREST (to_json) writes a timestamptz: `2026-11-22T18:07:14.764123+00:00`. */
export function formatTimestamp(us: number): string {
	if (us === Infinity) return 'infinity';
	if (us === -Infinity) return '-infinity';
	const { date, micros } = splitMicros(us);
	return `${datePart(date)}T${timePart(date)}${fraction(micros)}+00:00`;
}

/** Postgres' text output, used in error details: `2026-11-22 18:07:14.764123+00`. */
export function formatTimestampText(us: number): string {
	if (!Number.isFinite(us)) return us > 0 ? 'infinity' : '-infinity';
	const { date, micros } = splitMicros(us);
	return `${datePart(date)} ${timePart(date)}${fraction(micros)}+00`;
}

/** created_at in one of the forms a service may use for it (the downloads table's `any`). */
export function formatAs(format: TimestampFormat, us: number): string | number {
	const iso = formatTimestamp(us);
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
			return formatTimestampText(us);
		case 'epoch-seconds':
			return Math.floor(us / 1e6);
		case 'epoch-ms':
			return Math.floor(us / 1000);
	}
}

export type TimestampParse = { ok: true; us: number } | { ok: false; outOfRange: boolean };

const TIMESTAMP_RE =
	/^(\d{4,})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(?:([Zz])|(?:UTC|GMT)|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const DAY_US = 86_400_000_000;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Parses what Postgres accepts for timestamptz in practice: ISO 8601 with `T` or a space,
 * optional seconds and fraction (rounded to microseconds), `Z`, `±HH`, `±HHMM`, `±HH:MM` or no
 * zone (the session zone is UTC), a bare date, and the special words now/today/epoch/…
 */
export function parseTimestamp(input: string, nowMs: number): TimestampParse {
	const text = input.trim();
	const special = specialTimestamp(text.toLowerCase(), nowMs);
	if (special !== undefined) return { ok: true, us: special };
	// Epoch seconds or milliseconds: how a bigint created_at (settings.downloadTimestamps) compares.
	if (/^\d{9,13}$/.test(text)) return { ok: true, us: Number(text) * (text.length >= 12 ? 1000 : 1_000_000) };
	const m = TIMESTAMP_RE.exec(text);
	if (!m) return { ok: false, outOfRange: false };
	const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, oh, om = '0'] = m;
	const year = Number(y);
	const month = Number(mo);
	const day = Number(d);
	const hour = Number(h);
	const minute = Number(mi);
	const second = Number(s);
	const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
	const monthDays = month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1];
	const timeOk = hour < 24 || (hour === 24 && minute === 0 && second === 0 && !/[1-9]/.test(frac));
	if (month < 1 || month > 12 || day < 1 || day > monthDays || !timeOk || minute > 59 || second > 60) {
		return { ok: false, outOfRange: true };
	}
	if (sign && (Number(oh) > 15 || Number(om) > 59)) return { ok: false, outOfRange: false };
	const dayStart = new Date(0);
	dayStart.setUTCFullYear(year, month - 1, day);
	dayStart.setUTCHours(0, 0, 0, 0);
	const micros = frac ? Math.round(Number(`0.${frac}`) * 1e6) : 0;
	const us =
		dayStart.getTime() * 1000 + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1_000_000 + micros;
	return { ok: true, us };
}

function isLeap(year: number): boolean {
	return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function specialTimestamp(word: string, nowMs: number): number | undefined {
	const todayUs = Math.floor(nowMs / 86_400_000) * DAY_US;
	switch (word) {
		case 'now':
			return nowMs * 1000;
		case 'today':
			return todayUs;
		case 'tomorrow':
			return todayUs + DAY_US;
		case 'yesterday':
			return todayUs - DAY_US;
		case 'epoch':
			return 0;
		case 'infinity':
			return Infinity;
		case '-infinity':
			return -Infinity;
		default:
			return undefined;
	}
}
