// Unit tests of the pieces whose edge cases are easier to pin down without HTTP.
import { parseArgs } from './cli';
import { parseFilter, parseLogic, parseOrder, parsePgArray, parseSelect } from './grammar';
import { candidateRows, compileOrder } from './postgrest';
import { TABLES } from './schema';
import { TableStore } from './store';
import { formatTimestamp, formatTimestampText, parseTimestamp } from './time';
import type { Row } from './types';

describe('PostgREST filter grammar', () => {
	const op = (text: string) => {
		const c = parseFilter('col', text);
		return c.kind === 'filter' ? { negate: c.negate, ...c.operation } : undefined;
	};

	it('reads in-lists with quotes, escapes and plain items', () => {
		expect(op('in.("a,b","c)d","e\\"f",g h, i)')).toEqual({ negate: false, type: 'in', values: ['a,b', 'c)d', 'e"f', 'g h', ' i'] });
		expect(op('not.in.("x\\\\y")')).toEqual({ negate: true, type: 'in', values: ['x\\y'] });
		// A quote not followed by , or ) is plain text, as in PostgREST.
		expect(op('in.("a"b,c)')).toEqual({ negate: false, type: 'in', values: ['"a"b', 'c'] });
		expect(op('in.()')).toEqual({ negate: false, type: 'in', values: [''] });
	});

	it('keeps everything after the operator as the value of a simple filter', () => {
		expect(op('eq.a.b,c(d)')).toEqual({ negate: false, type: 'quant', op: 'eq', quant: undefined, value: 'a.b,c(d)' });
		expect(op('like(any).{a*,b*}')).toEqual({ negate: false, type: 'quant', op: 'like', quant: 'any', value: '{a*,b*}' });
		expect(op('is.NULL')).toEqual({ negate: false, type: 'is', value: 'null' });
		expect(op('neq.')).toEqual({ negate: false, type: 'simple', op: 'neq', value: '' });
	});

	it('fails like PostgREST on unknown operators', () => {
		expect(() => parseFilter('col', 'eqq.1')).toThrow('"failed to parse filter (eqq.1)" (line 1, column 1)');
		expect(() => parseFilter('col', 'not.in.1')).toThrow(/failed to parse filter/);
		expect(() => parseFilter('col', 'is.maybe')).toThrow(/failed to parse filter/);
	});

	it('reads logic trees with quoted values and nested groups', () => {
		expect(parseLogic('or', '(a.eq."x,y",not.and(b.gt.1,c.is.null))')).toEqual({
			kind: 'logic',
			negate: false,
			conjunction: 'or',
			children: [
				{ kind: 'filter', field: { name: 'a', jsonPath: false }, negate: false, operation: { type: 'quant', op: 'eq', quant: undefined, value: 'x,y' } },
				{
					kind: 'logic',
					negate: true,
					conjunction: 'and',
					children: [
						{ kind: 'filter', field: { name: 'b', jsonPath: false }, negate: false, operation: { type: 'quant', op: 'gt', quant: undefined, value: '1' } },
						{ kind: 'filter', field: { name: 'c', jsonPath: false }, negate: false, operation: { type: 'is', value: 'null' } },
					],
				},
			],
		});
	});

	it('reads select lists and Postgres array literals', () => {
		expect(parseSelect('id,alias:url,files::text,*')).toEqual([
			{ kind: 'field', field: { name: 'id', jsonPath: false }, alias: undefined, cast: undefined },
			{ kind: 'field', field: { name: 'url', jsonPath: false }, alias: 'alias', cast: undefined },
			{ kind: 'field', field: { name: 'files', jsonPath: false }, alias: undefined, cast: 'text' },
			{ kind: 'star' },
		]);
		expect(parsePgArray('{a,"b,c",NULL,"NULL"}')).toEqual(['a', 'b,c', null, 'NULL']);
		expect(parsePgArray('a,b')).toBeUndefined();
	});
});

describe('timestamps', () => {
	const us = (text: string) => {
		const r = parseTimestamp(text, 0);
		return r.ok ? r.us : r;
	};

	it('parses ISO 8601 variants to microseconds', () => {
		const base = Date.UTC(2026, 10, 22, 18, 7, 14) * 1000;
		expect(us('2026-11-22T18:07:14Z')).toBe(base);
		expect(us('2026-11-22 18:07:14+00')).toBe(base);
		expect(us('2026-11-22T20:07:14+02:00')).toBe(base);
		expect(us('2026-11-22T12:37:14-0530')).toBe(base);
		expect(us('2026-11-22T18:07:14.764123')).toBe(base + 764_123);
		expect(us('2026-11-22T18:07:14.7641234')).toBe(base + 764_123);
		expect(us('2026-11-22')).toBe(Date.UTC(2026, 10, 22) * 1000);
		expect(us('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29) * 1000);
		expect(parseTimestamp('now', 1234).ok && (parseTimestamp('now', 1234) as { us: number }).us).toBe(1_234_000);
	});

	it('tells bad syntax from out-of-range fields', () => {
		expect(us('yesterday-ish')).toEqual({ ok: false, outOfRange: false });
		expect(us('2026-11-22T18:07:14 00:00')).toEqual({ ok: false, outOfRange: false });
		expect(us('2025-02-29')).toEqual({ ok: false, outOfRange: true });
		expect(us('2026-11-22T25:00:00Z')).toEqual({ ok: false, outOfRange: true });
	});

	it('formats like Postgres: trailing zeros of the fraction dropped', () => {
		const base = Date.UTC(2026, 10, 22, 18, 7, 14) * 1000;
		expect(formatTimestamp(base + 764_123)).toBe('2026-11-22T18:07:14.764123+00:00');
		expect(formatTimestamp(base + 764_000)).toBe('2026-11-22T18:07:14.764+00:00');
		expect(formatTimestamp(base)).toBe('2026-11-22T18:07:14+00:00');
		expect(formatTimestampText(base + 5)).toBe('2026-11-22 18:07:14.000005+00');
		expect(formatTimestamp(-1)).toBe('1969-12-31T23:59:59.999999+00:00');
	});
});

describe('candidate rows', () => {
	const table = new TableStore(TABLES.jobs);
	for (let id = 1; id <= 1000; id++) {
		const row: Row = { data: { id, status: 'queued' }, ownerId: 'u', createdUs: id * 1_000_000, createdMs: id * 1000 };
		table.add(row);
	}
	const conditions = (params: Array<[string, string]>) => params.map(([k, v]) => parseFilter(k, v));

	it('narrows created_at bounds by binary search while created_at follows id order', () => {
		const rows = candidateRows(table, conditions([['created_at', `gte.${new Date(900_000).toISOString()}`], ['created_at', `lt.${new Date(950_000).toISOString()}`]]), 0);
		expect(rows.map((r) => r.data.id)).toEqual(Array.from({ length: 50 }, (_, i) => 900 + i));
		expect(candidateRows(table, conditions([['created_at', 'gt.1970-01-01T00:16:40Z']]), 0)).toHaveLength(0);
		// Negated bounds cannot narrow.
		expect(candidateRows(table, conditions([['created_at', 'not.gte.1970-01-01T00:15:00Z']]), 0)).toHaveLength(1000);
	});

	it('finds id=eq and id=in by lookup', () => {
		expect(candidateRows(table, conditions([['id', 'in.(7,3,7,5000)']]), 0).map((r) => r.data.id)).toEqual([3, 7]);
		expect(candidateRows(table, conditions([['id', 'eq.42']]), 0).map((r) => r.data.id)).toEqual([42]);
	});

	it('scans everything once created_at no longer follows id order', () => {
		const last = table.get(1000) as Row;
		const previous = last.createdUs;
		last.createdUs = 0;
		table.changed(last, 1000, previous);
		expect(table.createdFollowsId()).toBe(false);
		expect(candidateRows(table, conditions([['created_at', 'gte.1970-01-01T00:15:00Z']]), 0)).toHaveLength(1000);
	});
});

describe('ordering without sorting', () => {
	const natural = (order: string, createdFollowsId: boolean) => compileOrder(TABLES.jobs, parseOrder(order), createdFollowsId).natural;

	it('recognises id order and created_at order while it follows id order', () => {
		expect(natural('id', true)).toBe('asc');
		expect(natural('id.desc,status', false)).toBe('desc');
		expect(natural('created_at.desc', true)).toBe('desc');
		expect(natural('created_at,id', true)).toBe('asc');
		expect(natural('created_at', false)).toBeUndefined();
		expect(natural('created_at,id.desc', true)).toBeUndefined();
		expect(natural('status,id', true)).toBeUndefined();
	});
});

describe('cli', () => {
	it('parses the flags, with defaults', () => {
		expect(parseArgs([])).toEqual({ port: 54321 });
		expect(parseArgs(['--port', '0', '--job-ms=500', '--token-lifetime', '60', '--max-rows', '10', '--latency-ms', '5'])).toEqual({
			port: 0,
			jobDurationMs: 500,
			tokenLifetimeSeconds: 60,
			maxRows: 10,
			latencyMs: 5,
		});
		expect(() => parseArgs(['--colour', 'red'])).toThrow(/unknown option/);
		expect(() => parseArgs(['--port'])).toThrow(/non-negative integer/);
	});
});
