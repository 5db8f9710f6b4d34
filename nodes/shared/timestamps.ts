/**
 * Reads the service's timestamps, whatever form they take: the spec leaves `created_at`'s format
 * open (downloads type it `any`), and a `timestamp` column without a time zone means UTC here,
 * never the n8n host's zone.
 */
import { DateTime } from 'luxon';

// ISO 8601 or Postgres' text form: `T` or a space, 0–9 fractional digits, `Z`, `±HH`, `±HHMM`,
// `±HH:MM` or no offset at all.
const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|UTC|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Milliseconds since the epoch, or NaN when the value is not a timestamp this can read.
 * Numbers (or digit strings) are epoch seconds, or milliseconds from 10^11 on (year 5138 in
 * seconds, March 1973 in milliseconds).
 */
export function parseTimestamp(value: unknown): number {
	if (typeof value === 'number') return epoch(value);
	if (typeof value !== 'string') return NaN;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return epoch(Number(text));
	const match = DATE_TIME.exec(text);
	if (!match) return NaN;
	const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone] = match;
	// Luxon reads milliseconds: the digits beyond them (Postgres gives microseconds) are dropped.
	const millis = fraction.padEnd(3, '0').slice(0, 3);
	const offset = zone === undefined || /^(z|utc)$/i.test(zone) ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
	const moment = DateTime.fromISO(`${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}${offset}`, { setZone: true });
	return moment.isValid ? moment.toMillis() : NaN;
}

function epoch(value: number): number {
	if (!Number.isFinite(value) || value < 0) return NaN;
	return Math.round(value >= 1e11 ? value : value * 1000);
}

/** One ISO form for every instant the nodes output: `2026-11-22T18:07:14.764Z`. */
export const isoInstant = (ms: number): string => new Date(ms).toISOString();
