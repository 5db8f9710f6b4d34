// Why: the service's timestamps come in many forms; one without a zone is UTC, not the host's.
import { DateTime } from 'luxon';

const UTC = { zone: 'utc' };

/**
 * Milliseconds since the epoch, or NaN when the value is not a timestamp this can read. The
 * service does not fix `created_at`'s format (downloads type it `any`).
 * Numbers (or digit strings) are epoch seconds, or milliseconds from 10^11 on (year 5138 in
 * seconds, March 1973 in milliseconds).
 */
export function parseTimestamp(value: unknown): number {
	if (typeof value === 'number') return epoch(value);
	if (typeof value !== 'string') return NaN;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return epoch(Number(text));
	// ISO 8601, else Postgres' text form (a space before the time, zones such as ` UTC`), which
	// some write with a `T` too. Luxon keeps milliseconds: Postgres' microseconds are dropped.
	let moment = DateTime.fromISO(text, UTC);
	if (!moment.isValid) moment = DateTime.fromSQL(text.replace('T', ' '), UTC);
	return moment.isValid ? moment.toMillis() : NaN;
}

function epoch(value: number): number {
	if (!Number.isFinite(value) || value < 0) return NaN;
	return Math.round(value >= 1e11 ? value : value * 1000);
}

/** One ISO form for every instant the nodes output: `2026-11-22T18:07:14.764Z`. */
export const isoInstant = (ms: number): string => new Date(ms).toISOString();
