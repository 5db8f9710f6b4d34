// Why: PostgREST query strings. Every value that reaches the URL goes through here, URL-encoded as a whole and quoted as PostgREST's grammar expects, so that no user input can add a filter or a parameter.

/** The operators the nodes use. */
export type FilterOperator = 'eq' | 'gt' | 'gte' | 'lt' | 'ilike' | 'in';
export type FilterValue = string | number | boolean | null;
export type Filter = {
	column: string;
	operator: FilterOperator;
	value: FilterValue | FilterValue[];
};
export type OrderBy = { column: string; descending?: boolean };

/** Newest first, ties broken by id so that pages never overlap. */
export const NEWEST_FIRST: OrderBy[] = [
	{ column: 'created_at', descending: true },
	{ column: 'id', descending: true },
];

export interface ListQuery {
	/** Columns to return; all of them when omitted. */
	select?: string[];
	filters?: Filter[];
	/** Rows matching at least one of these (PostgREST's `or`), besides `filters`. */
	anyOf?: Filter[];
	order?: OrderBy[];
	limit?: number;
	/** Keyset paging: only rows after this one in `order` (ending with `id`), its values sent as the service gave them. */
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

function inItem(value: FilterValue): string {
	const text = value === null ? 'null' : String(value);
	if (text !== '' && !NEEDS_QUOTES.test(text)) return text;
	return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function filterExpression(filter: Filter): string {
	const { operator, value } = filter;
	if (operator === 'in') {
		const items = Array.isArray(value) ? value : [value];
		return `in.(${items.map(inItem).join(',')})`;
	}
	if (Array.isArray(value)) throw new Error(`The ${operator} filter takes one value`);
	return `${operator}.${value === null ? 'null' : String(value)}`;
}

/** `select=…&col=op.value&…&order=…&limit=…`, every part URL-encoded. */
export function buildQueryString(query: ListQuery): string {
	const parts: string[] = [];
	parts.push(`select=${query.select?.length ? query.select.map(column).join(',') : '*'}`);
	if (query.filters?.length) parts.push(buildFilterString(query.filters));
	// Logic trees: one goes as `or=(…)`, two are joined as `and=(or(…),or(…))`.
	const trees: string[] = [];
	if (query.anyOf?.length) trees.push(`or(${query.anyOf.map(logicTerm).join(',')})`);
	if (query.after) {
		const keyset = keysetCondition(query.order ?? [], query.after);
		if (keyset.startsWith('or(')) trees.push(keyset);
		else parts.push(keyset);
	}
	if (trees.length === 1) parts.push(`or=${encodeURIComponent(trees[0].slice(2))}`);
	else if (trees.length > 1) parts.push(`and=${encodeURIComponent(`(${trees.join(',')})`)}`);
	if (query.order?.length) {
		const order = query.order.map((o) => `${column(o.column)}.${o.descending ? 'desc' : 'asc'}`);
		parts.push(`order=${order.join(',')}`);
	}
	if (query.limit !== undefined) parts.push(`limit=${Math.max(0, Math.floor(query.limit))}`);
	return parts.join('&');
}

// Inside a logic tree a value with reserved characters (a timestamp's `:` and `.`) is quoted.
const logicValue = (value: unknown): string =>
	inItem(value === null || value === undefined ? null : String(value));

/** One filter inside a logic tree: `url.ilike."*x*"`. */
function logicTerm(filter: Filter): string {
	if (Array.isArray(filter.value) || filter.operator === 'in')
		throw new Error(`The ${filter.operator} filter is not supported inside or()`);
	return `${column(filter.column)}.${filter.operator}.${logicValue(filter.value)}`;
}

/** `or(a.gt.x,and(a.eq.x,id.gt.y))`, or `id=gt.y` by id alone: unlike an offset, it neither repeats nor skips rows written between pages. */
function keysetCondition(order: OrderBy[], row: Record<string, unknown>): string {
	if (order.at(-1)?.column !== 'id')
		throw new Error('Keyset paging needs an order that ends with id');
	const terms = order.map((by, index) => {
		const equal = order
			.slice(0, index)
			.map((o) => `${column(o.column)}.eq.${logicValue(row[o.column])}`);
		const beyond = `${column(by.column)}.${by.descending ? 'lt' : 'gt'}.${logicValue(row[by.column])}`;
		return equal.length ? `and(${[...equal, beyond].join(',')})` : beyond;
	});
	if (order.length > 1) return `or(${terms.join(',')})`;
	const [only] = order;
	return `${column(only.column)}=${encodeURIComponent(`${only.descending ? 'lt' : 'gt'}.${String(row[only.column])}`)}`;
}

/** Filters only (update and delete take no select, order or paging). */
export function buildFilterString(filters: Filter[]): string {
	return filters
		.map((f) => `${column(f.column)}=${encodeURIComponent(filterExpression(f))}`)
		.join('&');
}

/** Total row count from a `Content-Range: 0-999/2500` header (`*` when not counted). */
export function parseContentRangeTotal(value: unknown): number | undefined {
	const match = /\/(\d+)\s*$/.exec(String(Array.isArray(value) ? value[0] : value));
	return match ? Number(match[1]) : undefined;
}
