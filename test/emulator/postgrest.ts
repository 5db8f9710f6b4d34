// PostgREST query semantics on in-memory rows: which parameters mean what, typed three-valued
// filter evaluation, ordering, ranges and projection.
import {
	type Condition,
	type Field,
	type Operation,
	type OrderTerm,
	type SelectItem,
	parseColumns,
	parseFilter,
	parseLogic,
	parseOrder,
	parsePgArray,
	parseSelect,
} from './grammar';
import { pgrstError } from './reply';
import { type ColumnDef, type ColumnType, PG_TYPE_NAME, type TableDef, parseLiteral } from './schema';
import type { CellValue, Row } from './types';

export interface QueryParams {
	select: SelectItem[];
	conditions: Condition[];
	order?: OrderTerm[];
	/** From `limit`/`offset`: first row and how many (undefined = no limit). */
	offset: number;
	limit?: number;
	columns?: string[];
	onConflict?: string[];
	/** Keys like `jobs.status` or `jobs.order`: embedded-resource syntax, checked against the table later. */
	embedded: string[];
}

const RESERVED_LAST_SEGMENT = new Set(['order', 'limit', 'offset', 'and', 'or']);

/**
 * Splits the (already URL-decoded) parameters as PostgREST does: reserved names, then
 * `order`/`limit`/`offset`/`and`/`or` (possibly behind an embed path), the rest are filters.
 * Empty values are ignored, like PostgREST's `nonemptyParams`.
 */
export function parseQueryParams(params: Array<[string, string]>): QueryParams {
	const query: QueryParams = { select: [{ kind: 'star' }], conditions: [], offset: 0, embedded: [] };
	const selectParam = params.find(([k]) => k === 'select');
	if (selectParam) query.select = parseSelect(selectParam[1]);
	for (const [key, value] of params) {
		if (key === 'select' || value === '') continue;
		if (key === 'columns') query.columns = parseColumns(value, 'columns');
		else if (key === 'on_conflict') query.onConflict = parseColumns(value, 'on_conflict');
		else {
			const segments = key.split('.');
			const last = segments[segments.length - 1];
			const path = segments.slice(0, -1).filter((s) => s !== 'not');
			if (RESERVED_LAST_SEGMENT.has(last)) {
				if (path.length > 0) query.embedded.push(path[0]);
				else if (last === 'order') query.order = parseOrder(value);
				else if (last === 'limit') query.limit = readInteger(value) ?? query.limit;
				else if (last === 'offset') query.offset = readInteger(value) ?? query.offset;
				else query.conditions.push(parseLogic(segments.includes('not') ? `not.${last}` : last, value));
			} else if (segments.length > 1 && !key.includes('->')) {
				query.embedded.push(segments[0]);
				parseFilter(last, value);
			} else {
				query.conditions.push(parseFilter(key, value));
			}
		}
	}
	return query;
}

/** Haskell's `readMaybe :: Integer`: anything else is silently ignored. */
function readInteger(text: string): number | undefined {
	return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/** Errors PostgREST raises while planning, before the database is asked anything. */
export function checkPlannable(query: QueryParams, def: TableDef): void {
	const embedded = query.embedded[0] ?? query.order?.find((t) => t.relation)?.relation;
	if (embedded !== undefined) {
		throw pgrstError(
			400,
			'PGRST108',
			`'${embedded}' is not an embedded resource in this request`,
			null,
			`Verify that '${embedded}' is included in the 'select' query parameter.`,
		);
	}
	const relation = findRelation(query.select);
	if (relation !== undefined) {
		throw pgrstError(
			400,
			'PGRST200',
			`Could not find a relationship between '${def.name}' and '${relation}' in the schema cache`,
			`Searched for a foreign key relationship between '${def.name}' and '${relation}' in the schema 'public', but no matches were found.`,
		);
	}
}

function findRelation(items: SelectItem[]): string | undefined {
	return items.find((i): i is Extract<SelectItem, { kind: 'relation' }> => i.kind === 'relation')?.name;
}

// ---------------------------------------------------------------- filters

/** SQL's three-valued result: null is "unknown", and only `true` keeps a row. */
export type Predicate = (row: Row) => boolean | null;

type Typed = string | number;

export function columnOf(def: TableDef, f: Field): ColumnDef {
	const column = def.byName.get(f.name);
	if (!column) throw pgrstError(400, '42703', `column ${def.name}.${f.name} does not exist`);
	if (f.jsonPath) throw undefinedOperator(column.type, '->');
	return column;
}

/** The value a filter or ordering compares: created_at by its microseconds. */
export function cellOf(row: Row, column: string): CellValue {
	return column === 'created_at' ? row.createdUs : row.data[column];
}

function undefinedOperator(type: ColumnType, symbol: string) {
	return pgrstError(
		404,
		'42883',
		`operator does not exist: ${PG_TYPE_NAME[type]} ${symbol} unknown`,
		null,
		'No operator matches the given name and argument types. You might need to add explicit type casts.',
	);
}

const SYMBOL: Record<string, string> = {
	like: '~~',
	ilike: '~~*',
	match: '~',
	imatch: '~*',
	cs: '@>',
	cd: '<@',
	ov: '&&',
	sl: '<<',
	sr: '>>',
	nxr: '&<',
	nxl: '&>',
	adj: '-|-',
};

function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
	// PostgREST turns `*` into `%`; `_` is LIKE's single character, `\` its escape.
	let source = '';
	for (let i = 0; i < pattern.length; i++) {
		const ch = pattern[i] === '*' ? '%' : pattern[i];
		if (ch === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]);
		else if (ch === '%') source += '.*';
		else if (ch === '_') source += '.';
		else source += escapeRegExp(ch);
	}
	return new RegExp(`^${source}$`, caseInsensitive ? 'isu' : 'su');
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function posixRegExp(pattern: string, caseInsensitive: boolean): RegExp {
	try {
		return new RegExp(pattern, caseInsensitive ? 'sui' : 'su');
	} catch (error) {
		throw pgrstError(400, '2201B', `invalid regular expression: ${(error as Error).message}`);
	}
}

type Comparison = (cell: Typed, value: Typed) => boolean;

const COMPARE: Record<'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'neq', Comparison> = {
	eq: (a, b) => a === b,
	neq: (a, b) => a !== b,
	gt: (a, b) => a > b,
	gte: (a, b) => a >= b,
	lt: (a, b) => a < b,
	lte: (a, b) => a <= b,
};

/** Compiles one operator against one column into a test of a non-null cell. */
function compileTest(column: ColumnDef, op: string, text: string, nowMs: number): (cell: Typed) => boolean {
	if (op === 'like' || op === 'ilike' || op === 'match' || op === 'imatch') {
		if (column.type !== 'text') throw undefinedOperator(column.type, SYMBOL[op]);
		const re = op.endsWith('like') ? likeToRegExp(text, op === 'ilike') : posixRegExp(text, op === 'imatch');
		return (cell) => re.test(cell as string);
	}
	const compare = COMPARE[op as keyof typeof COMPARE];
	if (!compare) throw undefinedOperator(column.type, SYMBOL[op] ?? op);
	const value = parseLiteral(column.type, text, nowMs);
	return (cell) => compare(cell, value);
}

function compileOperation(column: ColumnDef, operation: Operation, nowMs: number): Predicate {
	const name = column.name;
	switch (operation.type) {
		case 'is': {
			const v = operation.value;
			if (v === 'null') return (row) => cellOf(row, name) === null;
			if (v === 'not_null') return (row) => cellOf(row, name) !== null;
			throw pgrstError(400, '42804', `argument of IS ${v.toUpperCase()} must be type boolean, not type ${PG_TYPE_NAME[column.type]}`);
		}
		case 'in': {
			// PostgREST sends `= ANY('{}')` for an empty list: matches nothing, not even NULL.
			if (operation.values.length === 1 && operation.values[0] === '') return () => false;
			const set = new Set<Typed>(operation.values.map((v) => parseLiteral(column.type, v, nowMs)));
			return (row) => {
				const cell = cellOf(row, name);
				return cell === null ? null : set.has(cell);
			};
		}
		case 'isdistinct': {
			const value = parseLiteral(column.type, operation.value, nowMs);
			return (row) => cellOf(row, name) !== value;
		}
		case 'fts':
			throw pgrstError(400, 'PGRST127', 'Feature not implemented', `The emulator does not implement full-text search (${operation.op}).`);
		case 'simple': {
			const test = compileTest(column, operation.op, operation.value, nowMs);
			return nullSafe(name, test);
		}
		case 'quant': {
			if (!operation.quant) return nullSafe(name, compileTest(column, operation.op, operation.value, nowMs));
			const elements = parsePgArray(operation.value);
			if (!elements) {
				throw pgrstError(400, '22P02', `malformed array literal: "${operation.value}"`, 'Array value must start with "{" or dimension information.');
			}
			const tests = elements.map((e) => (e === null ? null : compileTest(column, operation.op, e, nowMs)));
			const any = operation.quant === 'any';
			return (row) => {
				const cell = cellOf(row, name);
				if (cell === null) return tests.length === 0 ? !any : null;
				let unknown = false;
				for (const test of tests) {
					const r = test === null ? null : test(cell);
					if (r === any) return any;
					if (r === null) unknown = true;
				}
				return unknown ? null : !any;
			};
		}
	}
}

function nullSafe(column: string, test: (cell: Typed) => boolean): Predicate {
	return (row) => {
		const cell = cellOf(row, column);
		return cell === null ? null : test(cell);
	};
}

function not(p: Predicate): Predicate {
	return (row) => {
		const r = p(row);
		return r === null ? null : !r;
	};
}

function compileCondition(def: TableDef, condition: Condition, nowMs: number): Predicate {
	if (condition.kind === 'filter') {
		const p = compileOperation(columnOf(def, condition.field), condition.operation, nowMs);
		return condition.negate ? not(p) : p;
	}
	const children = condition.children.map((c) => compileCondition(def, c, nowMs));
	const and = condition.conjunction === 'and';
	const p: Predicate = (row) => {
		let unknown = false;
		for (const child of children) {
			const r = child(row);
			if (r === !and) return !and;
			if (r === null) unknown = true;
		}
		return unknown ? null : and;
	};
	return condition.negate ? not(p) : p;
}

/** All conditions ANDed (several filters on one column included); undefined when there are none. */
export function compileConditions(def: TableDef, conditions: Condition[], nowMs: number): Predicate | undefined {
	const predicates = conditions.map((c) => compileCondition(def, c, nowMs));
	if (predicates.length === 0) return undefined;
	if (predicates.length === 1) {
		const [only] = predicates;
		return (row) => only(row) === true;
	}
	return (row) => predicates.every((p) => p(row) === true);
}

// ---------------------------------------------------------------- ordering

export type Comparator = (a: Row, b: Row) => number;

export interface CompiledOrder {
	comparator?: Comparator;
	/** Set when the requested order equals id order (or its reverse) given the table's state. */
	natural?: 'asc' | 'desc';
}

/**
 * Text is compared by code point (C collation). Postgres puts NULL after everything in
 * ascending order and first in descending order unless nullsfirst/nullslast says otherwise.
 */
export function compileOrder(def: TableDef, terms: OrderTerm[] | undefined, createdFollowsId: boolean): CompiledOrder {
	if (!terms || terms.length === 0) return { natural: 'asc' };
	const columns = terms.map((t) => columnOf(def, t.field).name);
	const descending = terms[0].descending;
	// id is unique and never null, so terms after it never matter. created_at (never null) gives
	// id order while it follows id order; its ties stay in id order, as `created_at,id` asks.
	const createdThenId =
		columns[0] === 'created_at' &&
		createdFollowsId &&
		(terms.length === 1 || (terms.length === 2 && columns[1] === 'id' && terms[1].descending === descending));
	if (columns[0] === 'id' || createdThenId) return { natural: descending ? 'desc' : 'asc' };
	const parts = terms.map((term, i) => {
		const column = columns[i];
		const direction = term.descending ? -1 : 1;
		const nullsFirst = term.nulls ? term.nulls === 'first' : term.descending;
		return (a: Row, b: Row): number => {
			const x = cellOf(a, column);
			const y = cellOf(b, column);
			if (x === y) return 0;
			if (x === null) return nullsFirst ? -1 : 1;
			if (y === null) return nullsFirst ? 1 : -1;
			return (x < y ? -1 : 1) * direction;
		};
	});
	return {
		comparator: (a, b) => {
			for (const part of parts) {
				const r = part(a, b);
				if (r !== 0) return r;
			}
			return 0;
		},
	};
}

// ---------------------------------------------------------------- reading

export interface RowSource {
	readonly rows: readonly Row[];
	get(id: number): Row | undefined;
	createdFollowsId(): boolean;
}

/** Top-level, non-negated filters on one column with a plain operator: safe to narrow by. */
function plainFilters(conditions: readonly Condition[], column: string) {
	return conditions.flatMap((c) => (c.kind === 'filter' && !c.negate && c.field.name === column && !c.field.jsonPath ? [c.operation] : []));
}

/** Index of the first row whose created_at is > `us` (strict) or ≥ `us`. */
function firstCreatedAfter(rows: readonly Row[], us: number, strict: boolean): number {
	let lo = 0;
	let hi = rows.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		const c = rows[mid].createdUs;
		if (strict ? c <= us : c < us) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/**
 * The rows that can match, still in id order: found by id for `id=eq`/`id=in`, or a slice
 * found by binary search for created_at bounds while created_at follows id order. Always a
 * superset of the matches (the predicate still decides), so it only saves time. Call after
 * compileConditions, which has already refused bad literals.
 */
export function candidateRows(source: RowSource, conditions: readonly Condition[], nowMs: number): readonly Row[] {
	for (const op of plainFilters(conditions, 'id')) {
		const values = op.type === 'in' ? op.values.filter((v, _, all) => !(all.length === 1 && v === '')) : op.type === 'quant' && op.op === 'eq' && !op.quant ? [op.value] : undefined;
		if (!values) continue;
		const idList = [...new Set(values.map((v) => parseLiteral('bigint', v, nowMs) as number))].sort((x, y) => x - y);
		return idList.flatMap((id) => source.get(id) ?? []);
	}
	const rows = source.rows;
	if (!source.createdFollowsId()) return rows;
	let lo = 0;
	let hi = rows.length;
	for (const op of plainFilters(conditions, 'created_at')) {
		if (op.type !== 'quant' || op.quant) continue;
		const us = parseLiteral('timestamptz', op.value, nowMs) as number;
		if (op.op === 'gt' || op.op === 'gte' || op.op === 'eq') lo = Math.max(lo, firstCreatedAfter(rows, us, op.op === 'gt'));
		if (op.op === 'lt' || op.op === 'lte' || op.op === 'eq') hi = Math.min(hi, firstCreatedAfter(rows, us, op.op !== 'lt'));
	}
	return lo === 0 && hi === rows.length ? rows : rows.slice(lo, Math.max(lo, hi));
}

export interface Range {
	offset: number;
	/** undefined: up to the end. */
	limit?: number;
}

export interface Selection {
	page: Row[];
	/** Only computed when asked for (Prefer: count=exact). */
	total?: number;
}

/**
 * Filters, orders and slices in one pass. When the order is id order (or its reverse, or
 * created_at while it follows id order) no sort is needed, and without a count the scan stops
 * as soon as the page is full.
 */
export function selectRows(
	rows: readonly Row[],
	visible: (row: Row) => boolean,
	predicate: Predicate | undefined,
	order: CompiledOrder,
	range: Range,
	withTotal: boolean,
): Selection {
	const end = range.limit === undefined ? Infinity : range.offset + range.limit;
	if (order.natural) {
		const page: Row[] = [];
		let matched = 0;
		const n = rows.length;
		const desc = order.natural === 'desc';
		for (let k = 0; k < n; k++) {
			const row = rows[desc ? n - 1 - k : k];
			if (!visible(row) || (predicate && !predicate(row))) continue;
			if (matched >= range.offset && matched < end) page.push(row);
			matched++;
			if (!withTotal && matched >= end) break;
		}
		return { page, total: withTotal ? matched : undefined };
	}
	const matches = rows.filter((row) => visible(row) && (!predicate || predicate(row)));
	matches.sort(order.comparator);
	return { page: matches.slice(range.offset, end), total: withTotal ? matches.length : undefined };
}

// ---------------------------------------------------------------- projection

export type Projector = (row: Row) => string;

/** Builds the JSON of one output row for `select=`; `*` uses the row's cached JSON. */
export function compileProjection(def: TableDef, items: SelectItem[], stripNulls: boolean): Projector {
	if (items.length === 1 && items[0].kind === 'star' && !stripNulls) {
		return (row) => (row.json ??= JSON.stringify(row.data));
	}
	const outputs: Array<{ key: string; column: string; cast?: string }> = [];
	for (const item of items) {
		if (item.kind === 'star') for (const c of def.columns) outputs.push({ key: c.name, column: c.name });
		else if (item.kind === 'field') {
			const column = columnOf(def, item.field);
			outputs.push({ key: item.alias ?? column.name, column: column.name, cast: item.cast?.toLowerCase() });
		}
	}
	return (row) => {
		const out: Record<string, CellValue> = {};
		for (const o of outputs) {
			let v = row.data[o.column];
			if (v !== null && o.cast && ['text', 'varchar', 'character varying'].includes(o.cast)) v = String(v);
			if (!(stripNulls && v === null)) out[o.key] = v;
		}
		return JSON.stringify(out);
	};
}
