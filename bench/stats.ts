/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** Small helpers for measuring and printing figures. */
import { GCProfiler } from 'v8';

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Wall time of `work` and this process's CPU time in it, in seconds. */
export async function timed<T>(work: () => Promise<T>) {
	const cpu = process.cpuUsage();
	const started = process.hrtime.bigint();
	const value = await work();
	const { user, system } = process.cpuUsage(cpu);
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	return { seconds, cpuSeconds: (user + system) / 1e6, value };
}

/** Frees what earlier runs left behind, so that one run does not pay for another's garbage. */
export function collectGarbage(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

/**
 * `work`'s value and the peak growth of the used heap during it over its start (after a full
 * collection): the largest used heap before any collection in it (V8's GC profiler), or at its end.
 */
export async function peakHeapGrowth<T>(
	work: () => Promise<T>,
): Promise<{ bytes: number; value: T }> {
	collectGarbage();
	const baseline = process.memoryUsage().heapUsed;
	const profiler = new GCProfiler();
	profiler.start();
	const value = await work();
	const atEnd = process.memoryUsage().heapUsed;
	const collections = profiler.stop()?.statistics ?? [];
	const peak = Math.max(
		atEnd,
		...collections.map((gc) => gc.beforeGC.heapStatistics.usedHeapSize as number),
	);
	return { bytes: peak - baseline, value };
}

export const count = (n: number) => n.toLocaleString('en-US');
export const ratio = (n: number) => n.toFixed(2);
export const seconds = (s: number) => `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

export const range = (n: number) => Array.from({ length: n }, (_, i) => i);
