// PostgREST's query-string grammar (ApiRequest/QueryParams.hs), as a small recursive-descent
// parser. Values arrive URL-decoded; quoting and escapes are handled here exactly as PostgREST
// does, so a correctly quoted value can never be read as another filter.
import { pgrstError } from './reply';

export type SimpleOp = 'neq' | 'cs' | 'cd' | 'ov' | 'sl' | 'sr' | 'nxr' | 'nxl' | 'adj';
export type QuantOp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike' | 'match' | 'imatch';
export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

export type Operation =
	| { type: 'simple'; op: SimpleOp; value: string }
	| { type: 'quant'; op: QuantOp; quant?: 'any' | 'all'; value: string }
	| { type: 'in'; values: string[] }
	| { type: 'is'; value: IsValue }
	| { type: 'isdistinct'; value: string }
	| { type: 'fts'; op: string; value: string };

export interface Field {
	name: string;
	/** `col->key` / `col->>key`: only meaningful on json columns, which these tables do not have. */
	jsonPath: boolean;
}

export type Condition =
	| { kind: 'filter'; field: Field; negate: boolean; operation: Operation }
	| { kind: 'logic'; negate: boolean; conjunction: 'and' | 'or'; children: Condition[] };

export interface OrderTerm {
	field: Field;
	/** Set for `rel(col)` terms, which need an embedded resource. */
	relation?: string;
	descending: boolean;
	nulls?: 'first' | 'last';
}

export type SelectItem =
	| { kind: 'star' }
	| { kind: 'field'; field: Field; alias?: string; cast?: string }
	| { kind: 'relation'; name: string; children: SelectItem[] };

const SIMPLE_OPS: readonly string[] = ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'];
const QUANT_OPS: readonly string[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'];
const FTS_OPS: readonly string[] = ['fts', 'plfts', 'phfts', 'wfts'];
const IS_VALUES: readonly IsValue[] = ['null', 'not_null', 'true', 'false', 'unknown'];
const IDENTIFIER_CHAR = /[\p{L}\p{N}_ $]/u;

/** A position in one parameter's text; failures become PostgREST's PGRST100. */
class Cursor {
	pos = 0;

	constructor(
		readonly text: string,
		private readonly what: string,
	) {}

	get rest(): string {
		return this.text.slice(this.pos);
	}

	peek(offset = 0): string {
		return this.text[this.pos + offset] ?? '';
	}

	eof(): boolean {
		return this.pos >= this.text.length;
	}

	take(literal: string): boolean {
		if (!this.text.startsWith(literal, this.pos)) return false;
		this.pos += literal.length;
		return true;
	}

	skipSpaces(): void {
		while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
	}

	expect(literal: string): void {
		if (!this.take(literal)) this.fail(`expecting "${literal}"`);
	}

	fail(expecting: string, at = this.pos): never {
		const found = at < this.text.length ? `unexpected "${this.text[at]}"` : 'unexpected end of input';
		throw pgrstError(400, 'PGRST100', `"failed to parse ${this.what}" (line 1, column ${at + 1})`, `${found} ${expecting}`);
	}
}

/** `"..."` with backslash escapes; undefined (position restored) when there is no closing quote. */
function quoted(c: Cursor): string | undefined {
	const start = c.pos;
	if (!c.take('"')) return undefined;
	let out = '';
	while (!c.eof()) {
		const ch = c.peek();
		if (ch === '"') {
			c.pos++;
			return out;
		}
		if (ch === '\\') {
			if (c.pos + 1 >= c.text.length) break;
			out += c.peek(1);
			c.pos += 2;
		} else {
			out += ch;
			c.pos++;
		}
	}
	c.pos = start;
	return undefined;
}

/** A quoted value only counts when `,` or `)` (or the end) follows it, else it is read as plain text. */
function quotedElement(c: Cursor): string | undefined {
	const start = c.pos;
	const value = quoted(c);
	if (value === undefined) return undefined;
	if (c.eof() || c.peek() === ',' || c.peek() === ')') return value;
	c.pos = start;
	return undefined;
}

/** Items separated by `,`, spaces allowed around each. */
function commaSeparated<T>(c: Cursor, item: (c: Cursor) => T): T[] {
	const items: T[] = [];
	do {
		c.skipSpaces();
		items.push(item(c));
		c.skipSpaces();
	} while (c.take(','));
	return items;
}

function until(c: Cursor, stops: string): string {
	const start = c.pos;
	while (!c.eof() && !stops.includes(c.peek())) c.pos++;
	return c.text.slice(start, c.pos);
}

function identifier(c: Cursor): string | undefined {
	const start = c.pos;
	while (!c.eof() && IDENTIFIER_CHAR.test(c.peek())) c.pos++;
	return c.pos > start ? c.text.slice(start, c.pos).trim() : undefined;
}

/** pFieldName: a quoted name, or identifiers joined by `-` (a `-` not starting `->`). */
function fieldName(c: Cursor): string {
	const q = quoted(c);
	if (q !== undefined) return q;
	const parts: string[] = [];
	for (;;) {
		const part = identifier(c);
		if (part === undefined) c.fail('expecting field name (* or [a..z0..9_$])');
		parts.push(part);
		if (c.peek() === '-' && c.peek(1) !== '>') c.pos++;
		else return parts.join('-');
	}
}

/** pField: lexeme(fieldName + optional json path). */
function field(c: Cursor): Field {
	c.skipSpaces();
	const name = fieldName(c);
	let jsonPath = false;
	while (c.take('->>') || c.take('->')) {
		jsonPath = true;
		c.take('-');
		fieldName(c);
	}
	c.skipSpaces();
	return { name, jsonPath };
}

function listValue(c: Cursor): string[] {
	c.skipSpaces();
	c.expect('(');
	c.skipSpaces();
	const values: string[] = [];
	for (;;) {
		values.push(quotedElement(c) ?? until(c, ',)'));
		if (!c.take(',')) break;
	}
	c.skipSpaces();
	c.expect(')');
	c.skipSpaces();
	return values;
}

/** The value of a filter inside and/or: stops at `,` or `)` unless quoted or a `{...}` array. */
function logicValue(c: Cursor): string {
	const q = quotedElement(c);
	if (q !== undefined) return q;
	if (c.peek() === '{') {
		const close = c.text.indexOf('}', c.pos);
		const inner = close < 0 ? '' : c.text.slice(c.pos + 1, close);
		if (close >= 0 && !inner.includes('{')) {
			c.pos = close + 1;
			return `{${inner}}`;
		}
	}
	return until(c, ',)');
}

/** pOpExpr: `[not.]op.value`, `[not.]in.(...)`, `[not.]is.null`, `eq(any).{...}`, `fts(lang).q`. */
function opExpr(c: Cursor, value: (c: Cursor) => string): { negate: boolean; operation: Operation } {
	const negate = c.take('not.');
	const start = c.pos;
	const word = /^[a-z_]*/.exec(c.rest)?.[0] ?? '';
	const afterWord = start + word.length;
	const delimited = c.text[afterWord] === '.';
	const operatorExpected = 'expecting "not" or operator (eq, gt, ...)';
	if (word === 'in' && delimited) {
		c.pos = afterWord + 1;
		return { negate, operation: { type: 'in', values: listValue(c) } };
	}
	if (word === 'is' && delimited) {
		c.pos = afterWord + 1;
		const found = IS_VALUES.find((v) => c.rest.toLowerCase().startsWith(v));
		if (!found) c.fail('expecting isVal: (null, not_null, true, false, unknown)');
		c.pos += found.length;
		return { negate, operation: { type: 'is', value: found } };
	}
	if (word === 'isdistinct' && delimited) {
		c.pos = afterWord + 1;
		return { negate, operation: { type: 'isdistinct', value: value(c) } };
	}
	if (FTS_OPS.includes(word)) {
		c.pos = afterWord;
		if (c.take('(')) {
			identifier(c);
			c.expect(')');
		}
		c.expect('.');
		return { negate, operation: { type: 'fts', op: word, value: value(c) } };
	}
	if (SIMPLE_OPS.includes(word) && delimited) {
		c.pos = afterWord + 1;
		return { negate, operation: { type: 'simple', op: word as SimpleOp, value: value(c) } };
	}
	if (QUANT_OPS.includes(word)) {
		c.pos = afterWord;
		let quant: 'any' | 'all' | undefined;
		if (c.take('(any)')) quant = 'any';
		else if (c.take('(all)')) quant = 'all';
		if (!c.take('.')) c.fail(quant ? 'expecting delimiter (.)' : 'expecting "(" or delimiter (.)');
		return { negate, operation: { type: 'quant', op: word as QuantOp, quant, value: value(c) } };
	}
	return c.fail(operatorExpected, start);
}

const restOfText = (c: Cursor): string => {
	const v = c.rest;
	c.pos = c.text.length;
	return v;
};

/** A horizontal filter `col=<value>`. */
export function parseFilter(column: string, text: string): Condition {
	const field = parseFieldOnly(column);
	const { negate, operation } = opExpr(new Cursor(text, `filter (${text})`), restOfText);
	return { kind: 'filter', field, negate, operation };
}

function parseFieldOnly(key: string): Field {
	const c = new Cursor(key, `tree path (${key})`);
	const f = field(c);
	if (!c.eof()) c.fail('expecting end of input');
	return f;
}

/** `or=(a.eq.1,b.eq.2)` / `not.and=(...)`: the key is the operator, the value its arguments. */
export function parseLogic(key: string, text: string): Condition {
	const combined = `${key}${text}`;
	const c = new Cursor(combined, `logic tree (${text})`);
	return logicTree(c);
}

function logicTree(c: Cursor): Condition {
	const start = c.pos;
	const negate = c.take('not.');
	const conjunction = c.take('and') ? 'and' : c.take('or') ? 'or' : undefined;
	if (conjunction && c.rest.trimStart().startsWith('(')) {
		c.skipSpaces();
		c.expect('(');
		const children = commaSeparated(c, logicTree);
		c.expect(')');
		c.skipSpaces();
		return { kind: 'logic', negate, conjunction, children };
	}
	c.pos = start;
	const f = field(c);
	if (!c.take('.')) c.fail('expecting delimiter (.)');
	const { negate: notOp, operation } = opExpr(c, logicValue);
	return { kind: 'filter', field: f, negate: notOp, operation };
}

export function parseOrder(text: string): OrderTerm[] {
	return commaSeparated(new Cursor(text, `order (${text})`), orderTerm);
}

/** `col[.asc|.desc][.nullsfirst|.nullslast]`, or `rel(col)...` (which needs an embedding). */
function orderTerm(c: Cursor): OrderTerm {
	const f = field(c);
	let relation: string | undefined;
	if (c.take('(')) {
		relation = f.name;
		const inner = field(c);
		c.expect(')');
		f.name = inner.name;
		f.jsonPath = inner.jsonPath;
	}
	const descending = !c.take('.asc') && c.take('.desc');
	const nulls = c.take('.nullsfirst') ? 'first' : c.take('.nullslast') ? 'last' : undefined;
	c.skipSpaces();
	if (!c.eof() && c.peek() !== ',') c.fail('expecting "asc", "desc", "nullsfirst" or "nullslast"');
	return { field: f, relation, descending, nulls };
}

export function parseSelect(text: string): SelectItem[] {
	const c = new Cursor(text, `select parameter (${text})`);
	const items = selectForest(c);
	if (!c.eof()) c.fail('expecting "," or end of input');
	return items;
}

function selectForest(c: Cursor): SelectItem[] {
	return commaSeparated(c, selectItem);
}

function selectItem(c: Cursor): SelectItem {
	if (c.take('*')) return { kind: 'star' };
	c.take('..');
	const first = field(c);
	let alias: string | undefined;
	let target = first;
	if (c.peek() === ':' && c.peek(1) !== ':') {
		c.pos++;
		alias = first.name;
		target = field(c);
	}
	while (c.take('!')) identifier(c);
	if (c.take('(')) {
		const children = c.peek() === ')' ? [] : selectForest(c);
		c.expect(')');
		return { kind: 'relation', name: target.name, children };
	}
	let cast: string | undefined;
	if (c.take('::')) cast = identifier(c) ?? c.fail('expecting letter or digit');
	return { kind: 'field', field: target, alias, cast };
}

/** `columns=` / `on_conflict=`: field names separated by commas. */
export function parseColumns(text: string, what: 'columns' | 'on_conflict'): string[] {
	const c = new Cursor(text, `${what} parameter (${text})`);
	const names = commaSeparated(c, fieldName);
	if (!c.eof()) c.fail('expecting "," or end of input');
	return names;
}

/** A Postgres array literal `{a,"b,c",NULL}` as used by `eq(any).{...}`; undefined if malformed. */
export function parsePgArray(text: string): Array<string | null> | undefined {
	const t = text.trim();
	if (!t.startsWith('{') || !t.endsWith('}')) return undefined;
	const c = new Cursor(t.slice(1, -1), 'array');
	const out: Array<string | null> = [];
	if (c.text.trim() === '') return out;
	do {
		c.skipSpaces();
		const q = quoted(c);
		if (q !== undefined) out.push(q);
		else {
			const raw = until(c, ',').trim();
			if (raw.includes('"') || raw.includes('{')) return undefined;
			out.push(raw.toUpperCase() === 'NULL' ? null : raw);
		}
		c.skipSpaces();
	} while (c.take(','));
	return c.eof() ? out : undefined;
}
