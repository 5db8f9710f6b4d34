/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The export job lifecycle, evaluated lazily against the emulated clock:
// queued → (20 % of jobDurationMs) running → (jobDurationMs) finished, or failed for `.invalid` hosts.
import { crc32 } from 'node:zlib';
import { derivedHex } from './accounts';
import type { Store } from './store';
import { formatAs, subMillisecondMicros } from './time';
import type { CellValue, Row, Settings } from './types';

export const LINK_PATH_PREFIX = '/storage/v1/object/public/exports/';

export class Lifecycle {
	/** Jobs that may still move (queued/running): a 100 000-row table is not scanned per request. */
	private readonly active = new Set<Row>();
	/** No job can change state before this clock value; NaN forces a look. */
	private nextDueMs = Number.NaN;
	private durationSeen = Number.NaN;
	/** Finished jobs whose download row is not written yet (settings.downloadDelayMs). */
	private readonly pendingDownloads: Array<{ job: Row; dueMs: number }> = [];
	/** Bumped by reset() so that links of dropped rows never point at new ones. */
	private generation = 0;
	baseUrl = '';

	constructor(
		private readonly store: Store,
		private readonly settings: Settings,
		private readonly secret: string,
	) {}

	/** Jobs were written: the queued/running ones join the active set. */
	track(jobs: readonly Row[]): void {
		for (const job of jobs) if (isActive(job)) this.active.add(job);
		this.nextDueMs = Number.NaN;
	}

	reset(): void {
		this.generation++;
		this.active.clear();
		this.pendingDownloads.length = 0;
		this.nextDueMs = Number.NaN;
	}

	/** Moves every queued/running job to the state it has at `nowMs`. */
	evaluate(nowMs: number): void {
		const duration = this.settings.jobDurationMs;
		if (duration === this.durationSeen && nowMs < this.nextDueMs) return;
		let nextDue = Infinity;
		const finishing: Array<{ job: Row; atMs: number }> = [];
		const jobs = this.store.tables.jobs;
		for (const job of this.active) {
			// Deleted, or moved on by a PATCH: no longer the lifecycle's business.
			if (!isActive(job) || jobs.get(job.data.id as number) !== job) {
				this.active.delete(job);
				continue;
			}
			const status = job.data.status;
			const runningAt = job.createdMs + duration * 0.2;
			const finishAt = job.createdMs + duration;
			if (nowMs >= finishAt) finishing.push({ job, atMs: finishAt });
			else if (nowMs >= runningAt) {
				if (status !== 'running') this.setStatus(job, 'running');
				nextDue = Math.min(nextDue, finishAt);
			} else nextDue = Math.min(nextDue, runningAt);
		}
		// Download rows appear in the order the jobs finished.
		finishing.sort((a, b) => a.atMs - b.atMs);
		const withDownload = finishing.length > 0 || this.pendingDownloads.length > 0 ? this.jobsWithDownload() : new Set<CellValue>();
		for (const { job, atMs } of finishing) {
			this.active.delete(job);
			if (hostIsInvalid(String(job.data.url))) this.setStatus(job, 'failed');
			else {
				job.data.files = 1 + (crc32(String(job.data.url)) % 40);
				this.setStatus(job, 'finished');
				this.pendingDownloads.push({ job, dueMs: atMs + this.settings.downloadDelayMs });
			}
		}
		// Download rows whose time has come, in the order they are due; the others keep waiting.
		this.pendingDownloads.sort((a, b) => a.dueMs - b.dueMs);
		while (this.pendingDownloads.length > 0 && this.pendingDownloads[0].dueMs <= nowMs) {
			const { job, dueMs } = this.pendingDownloads.shift() as { job: Row; dueMs: number };
			if (jobs.get(job.data.id as number) === job) this.addDownload(job, dueMs, withDownload);
		}
		if (this.pendingDownloads.length > 0) nextDue = Math.min(nextDue, this.pendingDownloads[0].dueMs);
		this.nextDueMs = nextDue;
		this.durationSeen = duration;
	}

	/** Inserts the download row of a finished job, unless it has one already. */
	addDownload(job: Row, atMs: number, withDownload = this.jobsWithDownload()): void {
		const downloads = this.store.tables.downloads;
		const jobId = job.data.id;
		if (withDownload.has(jobId)) return;
		withDownload.add(jobId);
		const id = downloads.nextId();
		// A bigint created_at (epoch seconds or ms) holds no more than its unit.
		const format = this.settings.downloadTimestamps;
		const createdUs = format === 'epoch-seconds' ? Math.floor(atMs / 1000) * 1e6 : format === 'epoch-ms' ? atMs * 1000 : atMs * 1000 + subMillisecondMicros(atMs);
		downloads.add({
			data: { id, created_at: formatAs(this.settings.downloadTimestamps, createdUs), job_id: jobId, download_link: this.linkFor(id) },
			ownerId: job.ownerId,
			createdUs,
			createdMs: atMs,
		});
	}

	linkFor(downloadId: CellValue): string {
		const name = derivedHex(this.secret, `archive:${this.generation}:${downloadId}`).slice(0, 32);
		return `${this.baseUrl}${LINK_PATH_PREFIX}${name}.zip`;
	}

	private jobsWithDownload(): Set<CellValue> {
		return new Set(this.store.tables.downloads.rows.map((d) => d.data.job_id));
	}

	private setStatus(job: Row, status: string): void {
		job.data.status = status;
		this.store.tables.jobs.changed(job, job.data.id as number, job.createdUs);
	}
}

function isActive(job: Row): boolean {
	return job.data.status === 'queued' || job.data.status === 'running';
}

/** RFC 2606 reserves `.invalid`: such a site can never be downloaded. Unparsable URLs fail too. */
export function hostIsInvalid(url: string): boolean {
	let host: string;
	try {
		host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`).hostname;
	} catch {
		return true;
	}
	return /(^|\.)invalid\.?$/i.test(host);
}
