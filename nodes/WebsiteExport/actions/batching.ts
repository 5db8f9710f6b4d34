// Why: how items are grouped into the fewest requests PostgREST allows: `in.(…)` lists cut where the request line would pass the 8 KiB a gateway takes.
import { IN_LIST_SEPARATOR_BYTES, inListBytes, type FilterValue } from '../../shared/transport';

/** The longest request line a gateway in front of the service takes (nginx's default, 8 KiB). */
export const MAX_REQUEST_LINE_BYTES = 8 * 1024;

/**
 * The distinct `values` in chunks, in their first order, each as long as `in.(…)` allows: the
 * request line, `emptyLineBytes` long with an empty list, stays within 8 KiB.
 */
export function inListChunks(values: FilterValue[], emptyLineBytes: number): FilterValue[][] {
	const chunks: FilterValue[][] = [];
	let chunk: FilterValue[] = [];
	let bytes = emptyLineBytes;
	for (const value of new Set(values)) {
		const cost = inListBytes(value);
		if (chunk.length > 0 && bytes + IN_LIST_SEPARATOR_BYTES + cost > MAX_REQUEST_LINE_BYTES) {
			chunks.push(chunk);
			chunk = [];
			bytes = emptyLineBytes;
		}
		bytes += (chunk.length > 0 ? IN_LIST_SEPARATOR_BYTES : 0) + cost;
		chunk.push(value);
	}
	if (chunk.length > 0) chunks.push(chunk);
	return chunks;
}
