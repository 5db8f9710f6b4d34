// Why: the oracle property test's blocks that explore (oracleProperty.ts): workloads from this
// code's seed, new with every change to nodes/ or test/nodes/, in small, capped and large sizes.
import {
	assertOn,
	cappedArb,
	CODE_SEED,
	JEST_TIMEOUT_MS,
	largeArb,
	MAX_ROWS,
	smallArb,
} from './oracleProperty';

/** Side by side, each on its own services, as the fixed seeds' blocks (one file, one worker). */
describe("Website Export node: both Batching settings against a one-by-one oracle, this code's seed", () => {
	for (const seed of [CODE_SEED, CODE_SEED + 3])
		it.concurrent(
			`55 small workloads from this code's seed (${seed})`,
			() => assertOn(smallArb, { seed, numRuns: 55 }),
			JEST_TIMEOUT_MS,
		);

	it.concurrent(
		`40 small workloads under a row cap of ${MAX_ROWS}`,
		() => assertOn(cappedArb, { seed: CODE_SEED + 1, numRuns: 40 }),
		JEST_TIMEOUT_MS,
	);

	it.concurrent(
		'4 large workloads',
		() => assertOn(largeArb, { seed: CODE_SEED + 2, numRuns: 4 }),
		JEST_TIMEOUT_MS,
	);
});
