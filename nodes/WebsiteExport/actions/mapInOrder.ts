// Why: the router's items side by side, at most Requests in Flight at once, results in input order.
/**
 * Runs `work` over `inputs` with at most `limit` promises in flight and returns the results in
 * input order, whatever order they finish in. `work` is expected to settle every input itself
 * (the router turns failures into error items); if it throws, no new input is started and,
 * once the ones in flight have settled, the error of the earliest failed input is rethrown:
 * the one a sequential run would have stopped at, whichever failed first in time.
 */
export async function mapInOrder<T, R>(
	inputs: readonly T[],
	limit: number,
	work: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	const width = Math.max(1, Math.min(Math.floor(limit) || 1, inputs.length));
	let next = 0;
	let failure: { error: unknown; index: number } | undefined;
	const lane = async () => {
		while (failure === undefined && next < inputs.length) {
			const index = next++;
			try {
				results[index] = await work(inputs[index], index);
			} catch (error) {
				// Another lane may have failed meanwhile (TypeScript narrows `failure` to undefined here).
				const earlier = failure as { index: number } | undefined;
				if (earlier === undefined || index < earlier.index) failure = { error, index };
			}
		}
	};
	await Promise.all(Array.from({ length: width }, lane));
	if (failure) throw failure.error;
	return results;
}
