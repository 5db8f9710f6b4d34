/**
 * Instruments for the concurrency tests and the benchmark, on an emulator running in this
 * process: a hook on each request's arrival, the number of requests open at once, and a clock
 * that moves for the node and the emulator together.
 */
import { tokenExpiry } from '../../nodes/shared/auth/renewal';
import type { Emulator, LogEntry } from '../../stack/service';
import type { NodeHarness } from '../harness';

/** The most requests the emulator had received and not yet answered at the same moment. */
export function trackInFlight(emulator: Emulator): { readonly max: number; stop(): void } {
	const open = new Set<LogEntry>();
	let max = 0;
	const stop = emulator.onArrival((entry) => {
		for (const other of open) if (other.status !== 0) open.delete(other);
		open.add(entry);
		max = Math.max(max, open.size);
	});
	return {
		get max() {
			return max;
		},
		stop,
	};
}

/**
 * Moves the clock of this process forward: `Date.now()` for the node (its token-expiry check)
 * and for an emulator running in this process (its clock is real time plus an offset). Both
 * sides see the same jump, as two machines whose clocks agree see time pass.
 */
export function processClock(): { advance(ms: number): void; restore(): void } {
	const realNow = Date.now;
	let offset = 0;
	Date.now = () => realNow() + offset;
	return {
		advance(ms: number) {
			offset += ms;
		},
		restore() {
			Date.now = realNow;
		},
	};
}

/**
 * The last seconds of the token's hour, in the middle of a run: when the emulator receives its
 * `at`-th REST request, both clocks jump to 3 s before the stored token expires (the node's
 * 5 s renewal gate has begun: it now sends one request at a time); `settle` REST requests
 * later they jump 90 s further, past the expiry and PostgREST's 30 s of tolerated clock skew,
 * so that the service refuses the token and n8n logs in again. `settle` must exceed twice the
 * requests in flight, so that every request sent before the first jump has been answered by
 * then. The time skipped is only the waiting a real run would do; nothing the node does is
 * skipped.
 */
export function expireTokenMidRun(
	emulator: Emulator,
	harness: NodeHarness,
	options: { at: number; settle: number },
): { readonly jumped: number; restore(): void } {
	const clock = processClock();
	let rest = 0;
	let jumped = 0;
	const stop = emulator.onArrival((entry) => {
		if (entry.kind !== 'rest') return;
		rest++;
		if (rest === options.at) {
			const expiresAt = tokenExpiry(harness.credential.accessToken);
			if (expiresAt === undefined || !Number.isFinite(expiresAt))
				throw new Error('no readable token stored at the first jump');
			clock.advance(expiresAt - 3_000 - Date.now());
			jumped++;
		} else if (rest === options.at + options.settle) {
			clock.advance(90_000);
			jumped++;
		}
	});
	return {
		get jumped() {
			return jumped;
		},
		restore() {
			stop();
			clock.restore();
		},
	};
}
