// Why: n8n starts a poll without waiting for the last: one poll of a trigger at a time.

/**
 * How long the downloads a poll handed on are held against the state a later poll reads.
 *
 * n8n's task scheduler gives each poll its own copy of the static data, loaded from the database
 * just before the poll starts, and saves the copy of a poll that emits as it emits: a poll that
 * starts right after another one ended may read a copy from before that one's save. A minute
 * covers that gap many times over. Not longer: a poll whose result n8n discarded (the workflow
 * deactivated or re-published while it ran) handed nothing on, and the state later polls read
 * rightly lacks its downloads.
 */
const HANDED_ON_WINDOW_MS = 60_000;

interface TriggerPolls {
	/** The poll of this trigger under way, if any. */
	running?: symbol;
	/** Downloads polls of this trigger handed on: id → created_at, and when their poll ended. */
	handedOn: Record<string, { created: number; at: number }>;
}

// The project's one module-level mutable state: n8n runs a trigger's polls side by side and only
// this process sees them all. Keyed by `triggerKey`.
const triggers = new Map<string, TriggerPolls>();

/**
 * Which trigger a poll belongs to: its workflow, its node, and the service (ids are the
 * service's: a credential pointing at another one means other downloads).
 */
export const triggerKey = (workflowId: string | undefined, nodeId: string, baseUrl: string) =>
	JSON.stringify([workflowId ?? '', nodeId, baseUrl]);

/**
 * Starts a poll of the trigger: its token, and the downloads the trigger's polls handed on within
 * the window (id → created_at); undefined while another poll of the same trigger is under way.
 * Forgets what has left the window, for every trigger (a deleted workflow leaves nothing behind
 * for long).
 */
export function beginPoll(key: string, localNow: number) {
	for (const [other, polls] of triggers) {
		for (const [id, { at }] of Object.entries(polls.handedOn))
			if (at <= localNow - HANDED_ON_WINDOW_MS) delete polls.handedOn[id];
		if (polls.running === undefined && Object.keys(polls.handedOn).length === 0)
			triggers.delete(other);
	}
	const polls = triggers.get(key) ?? { handedOn: {} };
	if (polls.running !== undefined) return undefined;
	polls.running = Symbol(key);
	triggers.set(key, polls);
	const handedOn: Record<string, number> = {};
	for (const [id, { created }] of Object.entries(polls.handedOn)) handedOn[id] = created;
	return { token: polls.running, handedOn };
}

/**
 * Ends the poll `token` began, succeeded or failed: what it handed on (id → created_at) is held
 * from `localNow` on.
 */
export function endPoll(
	key: string,
	token: symbol,
	localNow: number,
	handed: Record<string, number> = {},
): void {
	const polls = triggers.get(key);
	if (polls?.running !== token) return;
	polls.running = undefined;
	for (const [id, created] of Object.entries(handed))
		polls.handedOn[id] = { created, at: localNow };
}
