// PostgREST on /rest/v1/{options,jobs,downloads}: authentication, content negotiation,
// Prefer, ranges and the four verbs, with PostgREST's status codes, headers and error bodies.
import type { Accounts } from './accounts';
import { verifyJwt } from './jwt';
import {
	type CompiledOrder,
	type Projector,
	type QueryParams,
	type Range,
	candidateRows,
	checkPlannable,
	compileConditions,
	compileOrder,
	compileProjection,
	parseQueryParams,
	selectRows,
} from './postgrest';
import { type EmuRequest, type HeaderMap, type Reply, bearerToken, header, jsonReply, pgrstError, safeDecode } from './reply';
import { TABLES, type TableDef } from './schema';
import type { Store } from './store';
import { type Row, type Settings, isTableName } from './types';
import { type Actor, type PlannedWrite, type Writer, rowSecurityViolation } from './writes';

export interface RestContext {
	store: Store;
	writer: Writer;
	accounts: Accounts;
	settings: Settings;
	secret: string;
	apiKey: string;
	nowMs: number;
}

type Caller = { role: 'anon' } | { role: 'authenticated'; userId: string };

/** Supabase exposes two schemas, so PostgREST always answers which profile it used. */
const EXPOSED_SCHEMAS = ['public', 'graphql_public'];
const PROFILE_HEADER: HeaderMap = { 'content-profile': 'public' };
/** PostgREST accepts 30 s of clock skew on exp/nbf/iat. */
const JWT_SKEW_SECONDS = 30;

export function handleRest(req: EmuRequest, ctx: RestContext): Reply {
	const caller = resolveCaller(req, ctx);
	const route = req.path.slice('/rest/v1'.length);
	if (route === '' || route === '/') return rootDocument(req);
	const rpc = /^\/rpc\/([^/]+)$/.exec(route);
	if (rpc) {
		throw pgrstError(
			404,
			'PGRST202',
			`Could not find the function public.${rpc[1]} without parameters in the schema cache`,
			`Searched for the function public.${rpc[1]} without parameters, but no matches were found in the schema cache.`,
		);
	}
	const resource = /^\/([^/]+)$/.exec(route)?.[1];
	if (resource === undefined) throw pgrstError(404, 'PGRST125', 'Invalid path specified in request URL');
	const schema = requestedSchema(req);
	const method = req.method;
	if (!['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'].includes(method)) {
		throw pgrstError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
	}
	const query = parseQueryParams(req.params);
	const range = requestedRange(req, query);
	const prefs = parsePrefer(req);
	// A service that answers writes as the spec shows them: 201/204 and no body.
	if (ctx.settings.ignorePrefer) delete prefs.return;
	const tableName = safeDecode(resource);
	if (schema !== 'public' || !isTableName(tableName)) {
		throw pgrstError(404, 'PGRST205', `Could not find the table '${schema}.${tableName}' in the schema cache`);
	}
	const statement = new Statement(req, ctx, caller, TABLES[tableName], query, prefs);
	switch (method) {
		case 'GET':
		case 'HEAD':
			return statement.read(range);
		case 'POST':
			return statement.insert();
		case 'PATCH':
			return statement.update();
		default:
			return statement.remove();
	}
}

// ---------------------------------------------------------------- authentication

function jwtError(code: 'PGRST301' | 'PGRST303', message: string) {
	return pgrstError(401, code, message, null, null, {
		'www-authenticate': `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
	});
}

function resolveCaller(req: EmuRequest, ctx: RestContext): Caller {
	const token = bearerToken(req);
	if (token === undefined || token === ctx.apiKey) return { role: 'anon' };
	if (token === '') throw jwtError('PGRST301', 'Empty JWT is sent in Authorization header');
	const verified = verifyJwt(token, ctx.secret);
	if (!verified.ok) {
		if (verified.problem === 'parts') throw jwtError('PGRST301', `Expected 3 parts in JWT; got ${verified.parts}`);
		throw jwtError('PGRST301', 'JWSError JWSInvalidSignature');
	}
	const { claims } = verified;
	const nowSeconds = Math.floor(ctx.nowMs / 1000);
	if (typeof claims.exp === 'number' && claims.exp < nowSeconds - JWT_SKEW_SECONDS) throw jwtError('PGRST303', 'JWT expired');
	if (typeof claims.nbf === 'number' && claims.nbf > nowSeconds + JWT_SKEW_SECONDS) throw jwtError('PGRST303', 'JWT not yet valid');
	if (typeof claims.iat === 'number' && claims.iat > nowSeconds + JWT_SKEW_SECONDS) throw jwtError('PGRST303', 'JWT issued at future');
	const role = claims.role ?? 'anon';
	if (role === 'anon') return { role: 'anon' };
	if (role === 'authenticated' && typeof claims.sub === 'string') return { role: 'authenticated', userId: claims.sub };
	// Only anon and authenticated exist in the emulated database.
	throw pgrstError(401, '22023', `role "${String(role)}" does not exist`);
}

// ---------------------------------------------------------------- request parsing

function requestedSchema(req: EmuRequest): string {
	const profileHeader = ['GET', 'HEAD'].includes(req.method) ? 'accept-profile' : 'content-profile';
	const schema = header(req, profileHeader)?.trim() ?? 'public';
	if (!EXPOSED_SCHEMAS.includes(schema)) {
		throw pgrstError(406, 'PGRST106', `Invalid schema: ${schema}`, null, `Only the following schemas are exposed: ${EXPOSED_SCHEMAS.join(', ')}`);
	}
	return schema;
}

function invalidRange(details: string) {
	return pgrstError(416, 'PGRST103', 'Requested range not satisfiable', details);
}

/** limit/offset intersected with the Range header (GET only, RFC 9110), as RangeQuery.hs does. */
function requestedRange(req: EmuRequest, query: QueryParams): Range {
	if (query.limit === 0) return { offset: 0, limit: 0 };
	if (query.limit !== undefined && query.limit < 0) throw invalidRange('Limit should be greater than or equal to zero.');
	if (query.offset < 0) throw pgrstError(400, '2201X', 'OFFSET must not be negative');
	let lower = query.offset;
	let upper = query.limit === undefined ? Infinity : query.offset + query.limit - 1;
	const rangeHeader = req.method === 'GET' ? /^(\d+)-(\d*)$/.exec(header(req, 'range')?.trim() ?? '') : null;
	if (rangeHeader) {
		const headerLower = Number(rangeHeader[1]);
		const headerUpper = rangeHeader[2] === '' ? Infinity : Number(rangeHeader[2]);
		if (headerUpper < headerLower) {
			throw invalidRange('The lower boundary must be lower than or equal to the upper boundary in the Range header.');
		}
		lower = Math.max(lower, headerLower);
		upper = Math.min(upper, headerUpper);
	}
	if (upper < lower) throw invalidRange('The lower boundary must be lower than or equal to the upper boundary in the Range header.');
	return { offset: lower, limit: upper === Infinity ? undefined : upper - lower + 1 };
}

interface Prefs {
	return?: 'representation' | 'minimal' | 'headers-only';
	count?: 'exact' | 'planned' | 'estimated';
	resolution?: string;
	missing?: 'default' | 'null';
	handling?: 'strict' | 'lenient';
	timezone?: string;
	maxAffected?: number;
}

const PREFERENCES: Record<string, Partial<Prefs>> = {
	'return=representation': { return: 'representation' },
	'return=minimal': { return: 'minimal' },
	'return=headers-only': { return: 'headers-only' },
	'count=exact': { count: 'exact' },
	'count=planned': { count: 'planned' },
	'count=estimated': { count: 'estimated' },
	'resolution=merge-duplicates': { resolution: 'merge-duplicates' },
	'resolution=ignore-duplicates': { resolution: 'ignore-duplicates' },
	'missing=default': { missing: 'default' },
	'missing=null': { missing: 'null' },
	'handling=strict': { handling: 'strict' },
	'handling=lenient': { handling: 'lenient' },
	'tx=commit': {},
	'tx=rollback': {},
};

/** Every Prefer header, comma-split; the first value of each kind wins (Preferences.hs). */
function parsePrefer(req: EmuRequest): Prefs {
	const prefs: Prefs = {};
	const invalid: string[] = [];
	for (const raw of (header(req, 'prefer') ?? '').split(',')) {
		const pref = raw.trim();
		if (pref === '') continue;
		const known = PREFERENCES[pref];
		if (known) {
			for (const [k, v] of Object.entries(known)) (prefs as Record<string, unknown>)[k] ??= v;
		} else if (pref.startsWith('timezone=')) prefs.timezone ??= pref.slice('timezone='.length);
		else if (/^max-affected=\d+$/.test(pref)) prefs.maxAffected ??= Number(pref.slice('max-affected='.length));
		else invalid.push(pref);
	}
	if (prefs.handling === 'strict' && invalid.length > 0) {
		throw pgrstError(400, 'PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${invalid.join(', ')}`);
	}
	return prefs;
}

interface Media {
	singular: boolean;
	stripNulls: boolean;
	contentType: string;
}

/** Accept negotiation over what PostgREST offers for a table (minus CSV, not emulated). */
function negotiate(req: EmuRequest): Media {
	const accept = header(req, 'accept')?.trim() || 'application/json';
	const offers = accept
		.split(',')
		.map((part, index) => {
			const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
			const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? '1');
			return { type, params, q: Number.isNaN(q) ? 1 : q, index };
		})
		.filter((o) => o.q > 0)
		.sort((a, b) => b.q - a.q || a.index - b.index);
	for (const { type, params } of offers) {
		const stripNulls = params.includes('nulls=stripped');
		if (type === '*/*' || type === 'application/*' || type === 'application/json') {
			return { singular: false, stripNulls: false, contentType: 'application/json; charset=utf-8' };
		}
		if (type === 'application/vnd.pgrst.array+json' || type === 'application/vnd.pgrst.object+json') {
			return {
				singular: type.includes('object'),
				stripNulls,
				contentType: `${type}${stripNulls ? '; nulls=stripped' : ''}; charset=utf-8`,
			};
		}
	}
	throw pgrstError(406, 'PGRST107', `None of these media types are available: ${offers.map((o) => o.type).join(', ')}`);
}

function columnNotFound(def: TableDef, column: string) {
	return pgrstError(400, 'PGRST204', `Could not find the '${column}' column of '${def.name}' in the schema cache`);
}

interface Payload {
	objects: Array<Record<string, unknown>>;
	columns: string[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request body as Payload.hs reads it: JSON (or a form), uniform keys unless `columns=`. */
function readPayload(req: EmuRequest, query: QueryParams, def: TableDef): Payload {
	const contentType = (header(req, 'content-type') ?? 'application/json').split(';')[0].trim().toLowerCase();
	let payload: Payload;
	if (contentType === 'application/x-www-form-urlencoded') {
		const object = Object.fromEntries(new URLSearchParams(req.body.toString('utf8')));
		payload = { objects: [object], columns: Object.keys(object) };
	} else if (contentType !== 'application/json') {
		throw pgrstError(400, 'PGRST102', `Content-Type not acceptable: ${contentType}`);
	} else {
		payload = query.columns ? rawJsonPayload(req.body.toString('utf8'), query.columns) : jsonPayload(req.body.toString('utf8'));
	}
	const columns = query.columns ?? payload.columns;
	for (const column of columns) if (!def.byName.has(column)) throw columnNotFound(def, column);
	return { objects: payload.objects, columns };
}

function jsonPayload(text: string): Payload {
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		throw pgrstError(400, 'PGRST102', 'Empty or invalid json');
	}
	if (isPlainObject(body)) return { objects: [body], columns: Object.keys(body) };
	if (!Array.isArray(body) || body.length === 0) return { objects: [], columns: [] };
	const first = body[0];
	const keys = isPlainObject(first) ? Object.keys(first).sort() : undefined;
	const uniform = keys && body.every((o) => isPlainObject(o) && sameKeys(Object.keys(o).sort(), keys));
	if (!keys || !uniform) throw pgrstError(400, 'PGRST102', 'All object keys must match');
	return { objects: body as Array<Record<string, unknown>>, columns: Object.keys(first as object) };
}

function sameKeys(a: string[], b: string[]): boolean {
	return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** With `columns=` PostgREST hands the body to Postgres untouched (json_to_recordset). */
function rawJsonPayload(text: string, columns: string[]): Payload {
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		throw pgrstError(400, '22P02', 'invalid input syntax for type json');
	}
	const objects = Array.isArray(body) ? body : [body];
	if (!objects.every(isPlainObject)) throw pgrstError(400, '22023', 'argument of json_to_recordset must be an array of objects');
	return { objects: objects as Array<Record<string, unknown>>, columns };
}

function rootDocument(req: EmuRequest): Reply {
	if (req.method !== 'GET' && req.method !== 'HEAD') throw pgrstError(405, 'PGRST117', `Unsupported HTTP method: ${req.method}`);
	const paths = Object.fromEntries(Object.keys(TABLES).map((t) => [`/${t}`, {}]));
	return jsonReply(200, { swagger: '2.0', info: { title: 'Website Export emulator', version: '1' }, paths }, PROFILE_HEADER);
}

// ---------------------------------------------------------------- execution

/** One request against one table, in PostgREST's order: plan checks, pre-request, query. */
class Statement {
	private readonly media: Media;

	constructor(
		private readonly req: EmuRequest,
		private readonly ctx: RestContext,
		private readonly caller: Caller,
		private readonly def: TableDef,
		private readonly query: QueryParams,
		private readonly prefs: Prefs,
	) {
		if (prefs.resolution) {
			throw pgrstError(400, 'PGRST127', 'Feature not implemented', 'The emulator does not implement upserts (Prefer: resolution=...).');
		}
		checkPlannable(query, def);
		this.media = negotiate(req);
	}

	private get table() {
		return this.ctx.store.tables[this.def.name];
	}

	private get counting(): boolean {
		return this.prefs.count !== undefined;
	}

	/** The service's Business-plan gate, which runs before the query (like a pre-request function). */
	private actor(): Actor | undefined {
		if (this.caller.role === 'anon') return undefined;
		const account = this.ctx.accounts.findById(this.caller.userId);
		if (!account || account.plan !== 'business') {
			throw pgrstError(
				403,
				'42501',
				'An active Business plan subscription is required to use the API',
				null,
				'Upgrade the account to the Business plan in the dashboard to use the API.',
			);
		}
		return { userId: account.id, plan: account.plan, rls: true };
	}

	private projector(): Projector {
		return compileProjection(this.def, this.query.select, this.media.stripNulls);
	}

	/** Visible rows matching the filters, in the requested order and range. */
	private find(actor: Actor | undefined, range: Range, withTotal: boolean): { page: Row[]; total?: number } {
		const predicate = compileConditions(this.def, this.query.conditions, this.ctx.nowMs);
		const order: CompiledOrder = compileOrder(this.def, this.query.order, this.table.createdFollowsId());
		if (!actor) return { page: [], total: withTotal ? 0 : undefined };
		const owner = actor.userId;
		const rows = candidateRows(this.table, this.query.conditions, this.ctx.nowMs);
		return selectRows(rows, (row) => row.ownerId === owner, predicate, order, range, withTotal);
	}

	read(requested: Range): Reply {
		const actor = this.actor();
		const project = this.projector();
		// db-max-rows caps every read, silently.
		const maxRows = this.ctx.settings.maxRows;
		const range = { offset: requested.offset, limit: Math.min(requested.limit ?? Infinity, maxRows) };
		const { page, total } = this.find(actor, range, this.counting);
		const lower = range.offset;
		const upper = lower + page.length - 1;
		const rangeText = total !== 0 && page.length > 0 ? `${lower}-${upper}` : '*';
		const headers: HeaderMap = { 'content-range': `${rangeText}/${total ?? '*'}`, ...PROFILE_HEADER };
		const applied = this.applied('read');
		if (applied) headers['preference-applied'] = applied;
		let status = 200;
		if (total !== undefined && lower > total) {
			throw pgrstError(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${lower} was requested, but there are only ${total} rows.`, null, headers);
		}
		if (total !== undefined && page.length < total) status = 206;
		const body = this.body(page, project);
		headers['content-type'] = this.media.contentType;
		return { status, headers, body: this.req.method === 'HEAD' ? undefined : body };
	}

	insert(): Reply {
		const payload = readPayload(this.req, this.query, this.def);
		const project = this.projector();
		const actor = this.actor();
		if (!actor) {
			if (payload.objects.length > 0) throw rowSecurityViolation(this.def.name, 401);
			return this.mutationReply('insert', [], project);
		}
		const planned = this.ctx.writer.insert(
			this.def.name,
			payload.objects,
			payload.columns,
			actor,
			this.ctx.nowMs,
			this.prefs.missing === 'default',
		);
		return this.finish('insert', planned, project);
	}

	update(): Reply {
		const payload = readPayload(this.req, this.query, this.def);
		if (payload.objects.length > 1) throw pgrstError(400, '22023', 'cannot call json_to_record on an array');
		const patch: Record<string, unknown> = {};
		const given = payload.objects[0] ?? {};
		for (const column of payload.columns) patch[column] = given[column] ?? null;
		const project = this.projector();
		const actor = this.actor();
		const targets = this.targets(actor);
		const planned = actor ? this.ctx.writer.update(this.def.name, targets, patch, actor, this.ctx.nowMs) : noWrite;
		return this.finish('update', planned, project);
	}

	remove(): Reply {
		const project = this.projector();
		const actor = this.actor();
		const targets = this.targets(actor);
		const planned = actor ? this.ctx.writer.delete(this.def.name, targets) : noWrite;
		return this.finish('delete', planned, project);
	}

	/** Rows an UPDATE/DELETE reaches: RLS gives users no write access to downloads. */
	private targets(actor: Actor | undefined): Row[] {
		const writable = this.def.name === 'downloads' ? undefined : actor;
		const limited = this.query.limit !== undefined || this.query.offset > 0;
		const range = limited ? { offset: this.query.offset, limit: this.query.limit } : { offset: 0 };
		return this.find(writable, range, false).page;
	}

	/** PostgREST's cardinality checks, which roll the statement back, then the commit. */
	private finish(kind: MutationKind, planned: PlannedWrite, project: Projector): Reply {
		const affected = planned.rows.length;
		if (this.media.singular && affected !== 1) throw singularityError(affected);
		const max = this.prefs.maxAffected;
		if (this.prefs.handling === 'strict' && max !== undefined && kind !== 'insert' && affected > max) {
			throw pgrstError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${affected} rows`);
		}
		return this.mutationReply(kind, planned.commit(), project);
	}

	private mutationReply(kind: MutationKind, rows: readonly Row[], project: Projector): Reply {
		const total = this.counting ? rows.length : undefined;
		const rangeText = kind === 'update' && rows.length > 0 && total !== 0 ? `0-${rows.length - 1}` : '*';
		const headers: HeaderMap = { 'content-range': `${rangeText}/${total ?? '*'}` };
		const applied = this.applied(kind);
		if (applied) headers['preference-applied'] = applied;
		if (kind === 'insert' && this.prefs.return === 'headers-only' && rows.length === 1) {
			headers.location = `/${this.def.name}?id=eq.${rows[0].data.id}`;
		}
		const status = kind === 'insert' ? 201 : 200;
		if (this.prefs.return !== 'representation') return { status: kind === 'insert' ? 201 : 204, headers };
		return { status, headers: { ...headers, 'content-type': this.media.contentType, ...PROFILE_HEADER }, body: this.body(rows, project) };
	}

	private body(rows: readonly Row[], project: Projector): string {
		if (this.media.singular) {
			if (rows.length !== 1) throw singularityError(rows.length);
			return project(rows[0]);
		}
		return `[${rows.map(project).join(',')}]`;
	}

	/** Preference-Applied, in PostgREST's order, with what each kind of request applies. */
	private applied(kind: MutationKind | 'read'): string | undefined {
		const p = this.prefs;
		const mutation = kind !== 'read';
		const values = [
			(kind === 'insert' || kind === 'update') && p.missing ? `missing=${p.missing}` : undefined,
			mutation && p.return ? `return=${p.return}` : undefined,
			p.count ? `count=${p.count}` : undefined,
			p.handling ? `handling=${p.handling}` : undefined,
			p.timezone ? `timezone=${p.timezone}` : undefined,
			(kind === 'update' || kind === 'delete') && p.handling === 'strict' && p.maxAffected !== undefined
				? `max-affected=${p.maxAffected}`
				: undefined,
		].filter((v): v is string => v !== undefined);
		return values.length > 0 ? values.join(', ') : undefined;
	}
}

type MutationKind = 'insert' | 'update' | 'delete';

const noWrite: PlannedWrite = { rows: [], commit: () => [] };

function singularityError(rows: number) {
	return pgrstError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${rows} rows`);
}
