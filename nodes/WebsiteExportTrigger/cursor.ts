// Why: the trigger's memory between polls, pure (no request, no clock): what to ask, what is new.
import type { IDataObject } from 'n8n-workflow';

import { DOWNLOAD_VALIDITY_MS } from '../shared/constants';
import { createdMs, expiresAt, windowFilter, type DownloadRecord } from '../shared/downloads';
import { isoInstant } from '../shared/timestamps';
import type { Filter, OrderBy } from '../shared/transport';

/**
 * How far before the newest `created_at` seen every poll looks again.
 *
 * Postgres stamps `created_at` with the start of the inserting transaction, so a row can become
 * visible after rows with a later stamp (a slow transaction, a lagging read replica). A row
 * visible at most OVERLAP_MS after its own `created_at` is always caught, whatever the polling
 * interval (the cursor never passes the service's clock at the previous poll). Such delays are
 * milliseconds to seconds; 10 minutes leaves a wide margin, and costs only re-reading those
 * 10 minutes' downloads on each poll (already-seen ids are dropped).
 */
export const OVERLAP_MS = 10 * 60_000;

/** Stable order, so paging never skips a row: same-timestamp rows are ordered by id. */
export const DOWNLOAD_ORDER: OrderBy[] = [{ column: 'created_at' }, { column: 'id' }];

/**
 * Kept in the node's workflow static data: small, JSON-safe, and correct even when n8n does not
 * save it (see `advance`).
 */
export interface CursorState extends IDataObject {
	version: 1;
	/**
	 * The newest `created_at` seen, in ms: a value from the service, never from this machine's clock.
	 */
	newest: number | null;
	/**
	 * Downloads already handled (emitted, or left out by the job URL filter): id → `created_at`
	 * in ms. Only those the next query can return again are kept.
	 */
	seen: Record<string, number>;
}

/** The state in the node's static data, or undefined when there is none (or it is not ours). */
export function readState(data: IDataObject): CursorState | undefined {
	const { version, newest, seen } = data;
	const isRecord = typeof seen === 'object' && seen !== null && !Array.isArray(seen);
	if (version !== 1 || !isRecord || !Object.values(seen).every(Number.isFinite)) return undefined;
	if (newest !== null && !Number.isFinite(newest)) return undefined;
	return { version, newest: newest as number | null, seen: seen as Record<string, number> };
}

/** Replaces the node's static data with `state`; leaves it untouched when nothing changed. */
export function writeState(data: IDataObject, state: CursorState): void {
	if (JSON.stringify(readState(data)) === JSON.stringify(state)) return;
	for (const key of Object.keys(data)) delete data[key];
	Object.assign(data, state);
}

/**
 * What one poll asks for: rows from the cursor minus the overlap on, within the 24 h window.
 * Its answer holds the new rows plus those of the overlap: it does not grow with the history.
 */
export function queryFilters(state: CursorState | undefined, localNow: number): Filter[] {
	const filters = [windowFilter(localNow)];
	if (state?.newest == null) return filters;
	const from = isoInstant(state.newest - OVERLAP_MS);
	return [{ column: 'created_at', operator: 'gte', value: from }, ...filters];
}

/** Whether the download's link still works at `serviceNow` (the service's clock). */
export const isValid = (download: DownloadRecord, serviceNow: number) =>
	expiresAt(download) > serviceNow;

/**
 * How far back a poll without state looks: the longest gap between two polls plus the overlap.
 *
 * n8n keeps a poll's state only when the poll emitted (or, with durable poll cursors, not the
 * activation poll's), so "no state" does not mean "first poll ever". A download that finished
 * after the last poll whose state was lost is at most one poll gap old (plus a late commit's
 * overlap) at the next poll: it is new then. Older downloads, at the first poll, are the
 * baseline (they existed before activation) and are only remembered.
 */
export const stateLossLookbackMs = (pollGapMs: number) => pollGapMs + OVERLAP_MS;

/**
 * Sorts the rows of one poll into `fresh` (new to this trigger and still valid, in the order
 * received) and `next`, the state to remember once they have been handed on.
 *
 * - No state (the first poll, or one after a poll whose state n8n did not keep): valid rows
 *   created within `lookbackMs` of `serviceNow` are new (with `emitExisting`, every valid row),
 *   older ones are the baseline, remembered. The new rows are **not emitted by this poll**: they
 *   are left unseen in its state, whose cursor reaches back to them, for the next poll that starts
 *   from a state. A poll without state may be one whose state n8n is about to overwrite (n8n 2.41's
 *   task scheduler starts the minute polls before it saves the activation poll's state, and that
 *   save replaces an early minute poll's): had it emitted, the next poll would emit them again.
 * - Otherwise every valid row whose id is not remembered is new: late commits inside the
 *   overlap, rows sharing a timestamp and rows a poll without state left, included.
 *
 * The state only grows by rows received and shrinks by rows the next query cannot return (older
 * than the overlap) or that can never be emitted (expired). So the state of ANY earlier poll is
 * a correct starting point, as long as it holds every id emitted since: n8n guarantees that, as
 * a poll that emits saves its state with the execution. Losing the state of a poll that emitted
 * nothing only makes the next poll read a longer stretch again.
 *
 * `handedOn` (id → `created_at`): downloads another poll of this trigger handed on that the state
 * may not hold yet (under n8n's task scheduler a poll reads a copy of the state, which can
 * predate the save of the poll before): a row with such an id and `created_at` is seen, not new.
 * `serviceNow` is the service's time (the latest it can be): a row is emitted only if valid then.
 */
export function advance<T extends DownloadRecord>(
	state: CursorState | undefined,
	rows: T[],
	serviceNow: number,
	options: { emitExisting: boolean; lookbackMs: number; handedOn?: Record<string, number> },
): { fresh: T[]; next: CursorState } {
	const seen = { ...(state?.seen ?? {}) };
	let newest = state?.newest ?? null;
	const fresh: T[] = [];
	/** The oldest `created_at` a poll without state leaves for the next poll. */
	let leftFrom = Infinity;
	for (const row of rows) {
		const key = String(row.id);
		if (key in seen) continue;
		const created = createdMs(row);
		const isNew =
			options.handedOn?.[key] !== created &&
			(state !== undefined || options.emitExisting || created >= serviceNow - options.lookbackMs);
		if (isNew && isValid(row, serviceNow)) {
			if (state === undefined) {
				leftFrom = Math.min(leftFrom, created);
				continue;
			}
			fresh.push(row);
		}
		seen[key] = created;
		newest = Math.max(newest ?? created, created);
	}
	// The next query starts no later than the rows left for it.
	if (leftFrom < Infinity) newest = Math.min(newest ?? leftFrom, leftFrom);
	for (const [key, created] of Object.entries(seen)) {
		const beforeOverlap = newest !== null && created < newest - OVERLAP_MS;
		if (beforeOverlap || created + DOWNLOAD_VALIDITY_MS <= serviceNow) delete seen[key];
	}
	return { fresh, next: { version: 1, newest, seen } };
}
