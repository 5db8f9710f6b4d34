// Why: the oracle property test's blocks from fixed seeds (oracleProperty.ts), a file of their own
// so that jest runs them beside the blocks from this code's seed, on another worker.
import { assertOn, JEST_TIMEOUT_MS, smallArb } from './oracleProperty';

/**
 * The blocks run side by side, each on its own services: a workload spends most of its time
 * waiting (Wait for Completion, Retry-After, a Timeout), which another block's work fills.
 */
describe('Website Export node: both Batching settings against a one-by-one oracle, fixed seeds', () => {
	it.concurrent(
		'75 small workloads from a fixed seed',
		() => assertOn(smallArb, { seed: 43, numRuns: 75 }),
		JEST_TIMEOUT_MS,
	);

	it.concurrent(
		'75 more small workloads from a fixed seed',
		() => assertOn(smallArb, { seed: 42, numRuns: 75 }),
		JEST_TIMEOUT_MS,
	);
});
