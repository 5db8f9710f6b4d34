// Public archive links (Supabase Storage): a streamed zip while the link is valid (24 h by the service's clock).
import type { ServiceDatabase } from './database';
import { ApiError, type Reply } from './reply';
import type { Settings } from './types';
import { zipArchive } from './zip';

export const LINK_PATH_PREFIX = '/storage/v1/object/public/exports/';

export async function serveArchive(
	path: string,
	method: string,
	db: ServiceDatabase,
	settings: Settings,
): Promise<Reply> {
	if (!path.startsWith(LINK_PATH_PREFIX) || (method !== 'GET' && method !== 'HEAD'))
		throw storageNotFound();
	const [download] = await db.query<{ id: string; created_ms: string; url: string | null }>(
		`select d.id, (extract(epoch from d.created_at) * 1000)::bigint as created_ms, j.url
		from private.downloads d left join private.jobs j on j.id = d.job_id
		where d.download_link like '%' || $1 and private.now() < d.created_at + interval '24 hours'
		limit 1`,
		[path],
	);
	if (!download) throw storageNotFound();
	const site = download.url ?? 'unknown';
	const index = Buffer.from(
		`<!doctype html>\n<html><head><meta charset="utf-8"><title>Export of ${escapeHtml(site)}</title></head>` +
			`<body><h1>Export of ${escapeHtml(site)}</h1><p>Download ${download.id}</p></body></html>\n`,
	);
	const modified = new Date(Number(download.created_ms));
	const archive = await zipArchive(index, settings.archiveBytes, modified);
	return {
		status: 200,
		headers: {
			'content-type': 'application/zip',
			'content-length': String(archive.length),
			'cache-control': 'max-age=3600',
			'last-modified': modified.toUTCString(),
			etag: `"${path.slice(LINK_PATH_PREFIX.length).replace(/\.zip$/, '')}"`,
		},
		stream: method === 'HEAD' ? undefined : archive.stream,
	};
}

/** Supabase Storage's answer for a missing object (it really uses 400 with statusCode "404"). */
function storageNotFound(): ApiError {
	return new ApiError(400, { statusCode: '404', error: 'not_found', message: 'Object not found' });
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
