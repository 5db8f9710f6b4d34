// Why: how far a poll without state looks back: the longest gap between two polls Poll Times allow.
import { toCronExpression, type TriggerTime } from 'n8n-workflow';

import { DOWNLOAD_VALIDITY_MS } from '../shared/constants';

const MINUTE = 60_000;
const DAY_SECONDS = 86_400;

/**
 * For n8n's `pollTimes` ({ item: [...] }): polls happen at every time of every entry, so the
 * gap is at most the smallest gap of one entry. Nothing readable: n8n's default, every minute.
 * Never more than a link's validity (older downloads cannot be emitted anyway). A poll without
 * state looks back that far (plus the overlap): a lost state costs re-reading, never a skipped
 * download.
 */
export function longestPollGapMs(pollTimes: unknown): number {
	const items = ((pollTimes as { item?: unknown[] } | undefined)?.item ?? []).filter(
		(item) => typeof item === 'object' && item !== null,
	);
	if (items.length === 0) return MINUTE;
	// n8n turns each entry into a cron expression (with a random second) and polls on it; an
	// entry it could not turn into one counts as a day.
	return Math.min(
		DOWNLOAD_VALIDITY_MS,
		...items.map((item) =>
			isPollTime(item) ? cronGapMs(toCronExpression(item)) : DOWNLOAD_VALIDITY_MS,
		),
	);
}

/** An entry toCronExpression reads (it reads `cronExpression` for any other). */
function isPollTime(item: object): item is TriggerTime {
	const { mode, unit, cronExpression } = item as Record<string, unknown>;
	if (mode === 'everyX') return unit === 'minutes' || unit === 'hours';
	const modes = ['everyMinute', 'everyHour', 'everyDay', 'everyWeek', 'everyMonth'];
	return modes.includes(String(mode)) || typeof cronExpression === 'string';
}

/**
 * The longest gap between the times of a cron expression within a day (seconds, minutes and hours
 * fields). Day fields that restrict the days make it a day or more.
 */
export function cronGapMs(expression: string): number {
	const fields = expression.trim().split(/\s+/);
	if (fields.length === 5) fields.unshift('0');
	if (fields.length !== 6) return DOWNLOAD_VALIDITY_MS;
	const [second, minute, hour, ...days] = fields;
	if (days.some((field) => field !== '*' && field !== '?')) return DOWNLOAD_VALIDITY_MS;
	const [seconds, minutes, hours] = [values(second, 60), values(minute, 60), values(hour, 24)];
	if (!seconds?.length || !minutes?.length || !hours?.length) return DOWNLOAD_VALIDITY_MS;
	const times: number[] = [];
	for (const h of hours)
		for (const m of minutes) for (const s of seconds) times.push(h * 3600 + m * 60 + s);
	times.sort((a, b) => a - b);
	let gap = times[0] + DAY_SECONDS - times[times.length - 1];
	for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
	return gap * 1000;
}

/**
 * The values a cron field allows in 0…size-1: `*`, `*\/n`, `a`, `a-b`, `a-b/n`, lists; undefined
 * when unreadable.
 */
function values(field: string, size: number): number[] | undefined {
	const allowed = new Set<number>();
	for (const part of field.split(',')) {
		const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
		if (!match) return undefined;
		const [, , from, to, step] = match;
		const start = from === undefined ? 0 : Number(from);
		const end =
			from === undefined ? size - 1 : to === undefined ? (step ? size - 1 : start) : Number(to);
		const by = step === undefined ? 1 : Number(step);
		if (start >= size || end >= size || by < 1) return undefined;
		for (let v = start; v <= end; v += by) allowed.add(v);
	}
	return [...allowed];
}
