// Why: "From List" of the ID fields: the service searches and pages, so no account is read whole.
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { DateTime } from 'luxon';

import { readTimeout } from '../../shared/timeout';
import { recordId } from '../../shared/validation';
import { parseTimestamp } from '../../shared/timestamps';
import type { Table } from '../../shared/constants';
import { NEWEST_FIRST, WebsiteExportClient, type Filter } from '../../shared/transport';

const PAGE = 50;

interface Search {
	select: string[];
	/** What the typed text narrows the list by. */
	narrow(text: string): { filters?: Filter[]; anyOf?: Filter[] };
	name(row: IDataObject): string;
}

/**
 * `*text*` for ilike: PostgREST turns `*` into `%`; the user's own wildcards are taken literally.
 */
const contains = (text: string) =>
	`*${text.replace(/[*\\%_]/g, (c) => (c === '*' ? '' : `\\${c}`))}*`;
/** Typed text that is an ID as the service reads one (` 5`, `1_000`, `0x1F`), as a number. */
const wholeNumber = (text: string) => {
	const id = recordId.safeParse(text);
	return id.success ? id.data : undefined;
};

/** `job #7`, or `job —` for a record of no job. */
const jobOf = (row: IDataObject) => `job ${row.job_id === null ? '—' : `#${String(row.job_id)}`}`;

/** `2026-11-22 18:07 UTC`, or the value as given when it is not a timestamp. */
function when(value: unknown): string {
	const ms = parseTimestamp(value);
	return Number.isNaN(ms)
		? String(value)
		: DateTime.fromMillis(ms, { zone: 'utc' }).toFormat("yyyy-MM-dd HH:mm 'UTC'");
}

const SEARCHES: Record<Table, Search> = {
	jobs: {
		select: ['id', 'created_at', 'url', 'email', 'status'],
		narrow: (text) => {
			const id = wholeNumber(text);
			const like = contains(text);
			return {
				anyOf: [
					{ column: 'url', operator: 'ilike', value: like },
					{ column: 'email', operator: 'ilike', value: like },
					...(id ? [{ column: 'id', operator: 'eq' as const, value: id }] : []),
				],
			};
		},
		name: (row) =>
			`#${String(row.id)} · ${String(row.url)} · ${String(row.email)} · ${String(row.status ?? '')} · ${when(row.created_at)}`,
	},
	options: {
		select: ['id', 'created_at', 'job_id', 'mode'],
		narrow: (text) => {
			const id = wholeNumber(text);
			return id !== undefined
				? { filters: [{ column: 'job_id', operator: 'eq', value: id }] }
				: { filters: [{ column: 'mode', operator: 'ilike', value: contains(text) }] };
		},
		name: (row) =>
			`#${String(row.id)} · ${String(row.mode)} · ${jobOf(row)} · ${when(row.created_at)}`,
	},
	downloads: {
		select: ['id', 'created_at', 'job_id', 'download_link'],
		narrow: (text) => {
			const id = wholeNumber(text);
			// Only a job ID narrows downloads: anything else matches none.
			return { filters: [{ column: 'job_id', operator: 'eq', value: id ?? -1 }] };
		},
		name: (row) => `#${String(row.id)} · ${jobOf(row)} · ${when(row.created_at)}`,
	},
};

/**
 * The listSearch method of one table, for the node's `methods`: searched with PostgREST filters
 * and paged by keyset, newest first, so a long account is never read whole to fill a dropdown.
 */
const searchIn = (table: Table) =>
	async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const spec = SEARCHES[table];
		const timeoutMs = readTimeout(this.getNodeParameter('options.timeout', ''));
		const client = await WebsiteExportClient.connect(this, { timeoutMs });
		const text = (filter ?? '').trim();
		const after = paginationToken
			? (JSON.parse(paginationToken) as Record<string, unknown>)
			: undefined;
		const page = await client.select<IDataObject>(table, {
			select: spec.select,
			...(text ? spec.narrow(text) : {}),
			order: NEWEST_FIRST,
			limit: PAGE,
			after,
		});
		const last = page.rows[page.rows.length - 1];
		return {
			results: page.rows.map((row) => ({ name: spec.name(row), value: String(row.id) })),
			paginationToken:
				page.rows.length === PAGE && last
					? JSON.stringify({ created_at: last.created_at, id: last.id })
					: undefined,
		};
	};

export const searchJobs = searchIn('jobs');
export const searchOptions = searchIn('options');
export const searchDownloads = searchIn('downloads');
