// Why: PostgREST query strings: every value encoded and quoted here, so no input can add a filter.

export type FilterValue = string | number | boolean | null;
export type Filter = {
	column: string;
	operator: 'eq' | 'gt' | 'gte' | 'lt' | 'ilike' | 'in';
	value: FilterValue | FilterValue[];
};
export type OrderBy = { column: string; descending?: boolean };

/** Newest first, ties broken by id so that pages never overlap. */
export const NEWEST_FIRST: OrderBy[] = [
	{ column: 'created_at', descending: true },
	{ column: 'id', descending: true },
];
export const OLDEST_FIRST: OrderBy[] = [{ column: 'id' }];

export interface ListQuery {
	/** Columns to return; all of them when omitted. */
	select?: string[];
	filters?: Filter[];
	/** Rows matching at least one of these (PostgREST's `or`), besides `filters`. */
	anyOf?: Filter[];
	order?: OrderBy[];
	limit?: number;
	/**
	 * Keyset paging: only rows after this one in `order` (ending with `id`), its values sent as the
	 * service gave them.
	 */
	after?: Record<string, unknown>;
}

/** Column names come from this package's own code, never from user input; checked all the same. */
function column(name: string): string {
	if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Invalid column name "${name}"`);
	return name;
}

// Inside `in.(…)`, PostgREST splits on commas and treats parentheses, quotes and backslashes
// specially; dots and colons are reserved in its logic trees. Such items are double-quoted.
const NEEDS_QUOTES = /[,.:()"\\\s]/;

function quoted(value: unknown): string {
	const text = String(value ?? null);
	if (text !== '' && !NEEDS_QUOTES.test(text)) return text;
	return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * `op.value` or `in.(a,b)`; inside a logic tree (`tree`), `col.op.value` with the value quoted:
 * `url.ilike."*x*"`.
 */
function condition({ column: name, operator, value }: Filter, tree = false): string {
	if (operator === 'in' && !tree) return `in.(${[value].flat().map(quoted).join(',')})`;
	if (Array.isArray(value) || operator === 'in')
		throw new Error(`The ${operator} filter takes one value (and no list inside or())`);
	return tree ? `${column(name)}.${operator}.${quoted(value)}` : `${operator}.${String(value)}`;
}

/** `select=…&col=op.value&…&order=…&limit=…`, every part URL-encoded. */
export function buildQueryString(query: ListQuery): string {
	const parts = [`select=${query.select?.length ? query.select.map(column).join(',') : '*'}`];
	if (query.filters?.length) parts.push(buildFilterString(query.filters));
	// Logic trees: one goes as `or=(…)`, two are joined as `and=(or(…),or(…))`.
	const trees: string[] = [];
	if (query.anyOf?.length)
		trees.push(`or(${query.anyOf.map((f) => condition(f, true)).join(',')})`);
	const keyset = query.after && keysetCondition(query.order ?? [], query.after);
	if (keyset) (keyset.startsWith('or(') ? trees : parts).push(keyset);
	if (trees.length === 1) parts.push(`or=${encodeURIComponent(trees[0].slice(2))}`);
	else if (trees.length > 1) parts.push(`and=${encodeURIComponent(`(${trees.join(',')})`)}`);
	if (query.order?.length) {
		const order = query.order.map((o) => `${column(o.column)}.${o.descending ? 'desc' : 'asc'}`);
		parts.push(`order=${order.join(',')}`);
	}
	if (query.limit !== undefined) parts.push(`limit=${Math.max(0, Math.floor(query.limit))}`);
	return parts.join('&');
}

/**
 * `or(a.gt.x,and(a.eq.x,id.gt.y))`, or `id=gt.y` by id alone: unlike an offset, it neither repeats
 * nor skips rows written between pages.
 */
function keysetCondition(order: OrderBy[], row: Record<string, unknown>): string {
	if (order.at(-1)?.column !== 'id')
		throw new Error('Keyset paging needs an order that ends with id');
	const filter = (by: OrderBy, operator = by.descending ? 'lt' : 'gt') =>
		({ column: by.column, operator, value: row[by.column] }) as Filter;
	if (order.length === 1) return buildFilterString([filter(order[0])]);
	const terms = order.map((by, index) => {
		const all = [...order.slice(0, index).map((o) => filter(o, 'eq')), filter(by)];
		const text = all.map((f) => condition(f, true));
		return index ? `and(${text.join(',')})` : text[0];
	});
	return `or(${terms.join(',')})`;
}

/** Filters only (update and delete take no select, order or paging). */
export function buildFilterString(filters: Filter[]): string {
	return filters.map((f) => `${column(f.column)}=${encodeURIComponent(condition(f))}`).join('&');
}

/** Total row count from a `Content-Range: 0-999/2500` header (`*` when not counted). */
export function parseContentRangeTotal(value: unknown): number | undefined {
	const match = /\/(\d+)\s*$/.exec(String(Array.isArray(value) ? value[0] : value));
	return match ? Number(match[1]) : undefined;
}
