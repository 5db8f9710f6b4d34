// Public archive links (Supabase Storage): a streamed zip while the link is valid.
import { LINK_PATH_PREFIX } from './lifecycle';
import { type Reply, storageNotFound } from './reply';
import type { Store } from './store';
import type { Settings } from './types';
import { bufferEntry, payloadEntry, zipArchive } from './zip';

export const LINK_VALIDITY_MS = 24 * 60 * 60 * 1000;

export function isArchivePath(path: string): boolean {
	return path.startsWith(LINK_PATH_PREFIX);
}

export function serveArchive(path: string, method: string, store: Store, settings: Settings, nowMs: number): Reply {
	const download = store.tables.downloads.rows.find((d) => String(d.data.download_link).endsWith(path));
	if (!download || nowMs >= download.createdMs + LINK_VALIDITY_MS) throw storageNotFound();
	const job = store.tables.jobs.get(download.data.job_id as number);
	const site = job ? String(job.data.url) : 'unknown';
	const index = Buffer.from(
		`<!doctype html>\n<html><head><meta charset="utf-8"><title>Export of ${escapeHtml(site)}</title></head>` +
			`<body><h1>Export of ${escapeHtml(site)}</h1><p>Download ${download.data.id}</p></body></html>\n`,
	);
	const modified = new Date(download.createdMs);
	const archive = zipArchive([bufferEntry('index.html', index), payloadEntry('payload.bin', settings.archiveBytes)], modified);
	return {
		status: 200,
		headers: {
			'content-type': 'application/zip',
			'content-length': String(archive.length),
			'cache-control': 'max-age=3600',
			'last-modified': modified.toUTCString(),
			etag: `"${path.slice(LINK_PATH_PREFIX.length).replace(/\.zip$/, '')}"`,
		},
		stream: method === 'HEAD' ? undefined : archive,
	};
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
