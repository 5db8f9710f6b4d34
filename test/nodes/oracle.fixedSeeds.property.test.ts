// Why: the oracle property test's blocks from fixed seeds (oracleProperty.ts), a file of their own
// so that jest runs them beside the blocks from this code's seed, on another worker.
import { assertOn, JEST_TIMEOUT_MS, smallArb } from './oracleProperty';

/**
 * The blocks run side by side, each on its own services: a workload spends most of its time
 * waiting (Wait for Completion, Retry-After, a Timeout), which another block's work fills; blocks
 * of about 40 keep one seed's run of long waits from making the file wait for it alone.
 */
describe('Website Export node: both Batching settings against a one-by-one oracle, fixed seeds', () => {
	for (const seed of [42, 43, 45, 46])
		it.concurrent(
			`38 small workloads from the fixed seed ${seed}`,
			() => assertOn(smallArb, { seed, numRuns: 38 }),
			JEST_TIMEOUT_MS,
		);
});
