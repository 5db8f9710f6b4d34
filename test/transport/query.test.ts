import {
	buildFilterString,
	buildQueryString,
	parseContentRangeTotal,
} from '../../nodes/shared/transport/query';

/** What a server sees after URL-decoding each `key=value` pair. */
function decodedPairs(query: string): Array<[string, string]> {
	return query.split('&').map((pair) => {
		const [key, value] = pair.split(/=(.*)/s);
		return [decodeURIComponent(key), decodeURIComponent(value)];
	});
}

describe('PostgREST query building', () => {
	it('selects all columns by default and lists chosen ones', () => {
		expect(buildQueryString({})).toBe('select=*');
		expect(buildQueryString({ select: ['id', 'status'] })).toBe('select=id,status');
	});

	it('writes filters, order and paging', () => {
		const query = buildQueryString({
			filters: [
				{ column: 'status', operator: 'eq', value: 'finished' },
				{ column: 'created_at', operator: 'gte', value: '2026-11-22T18:07:14.764123+00:00' },
				{ column: 'id', operator: 'lt', value: 500 },
			],
			order: [{ column: 'created_at', descending: true }, { column: 'id' }],
			limit: 1000,
		});
		expect(decodedPairs(query)).toEqual([
			['select', '*'],
			['status', 'eq.finished'],
			['created_at', 'gte.2026-11-22T18:07:14.764123+00:00'],
			['id', 'lt.500'],
			['order', 'created_at.desc,id.asc'],
			['limit', '1000'],
		]);
	});

	it('encodes values so that no input can add a parameter or a filter', () => {
		const hostile = 'a&id=gt.0&select=x%26y=z+1 "q"';
		const query = buildQueryString({
			filters: [{ column: 'url', operator: 'eq', value: hostile }],
		});
		expect(query.split('&')).toHaveLength(2);
		expect(decodedPairs(query)[1]).toEqual(['url', `eq.${hostile}`]);
		expect(query).not.toContain(' ');
		expect(query).not.toContain('+');
	});

	it('quotes in-list items that hold PostgREST reserved characters', () => {
		const query = buildFilterString([
			{
				column: 'url',
				operator: 'in',
				value: ['plain', 'a,b', 'f(x)', 'say "hi"', 'back\\slash', 'v1.2:3', ''],
			},
		]);
		expect(decodedPairs(query)[0][1]).toBe(
			'in.(plain,"a,b","f(x)","say \\"hi\\"","back\\\\slash","v1.2:3","")',
		);
	});

	it('refuses column names that are not plain identifiers', () => {
		expect(() =>
			buildQueryString({ filters: [{ column: 'id&x', operator: 'eq', value: 1 }] }),
		).toThrow('Invalid column name');
		expect(() => buildQueryString({ order: [{ column: 'id,desc' }] })).toThrow(
			'Invalid column name',
		);
	});

	it('reads the total of a Content-Range header', () => {
		expect(parseContentRangeTotal('0-999/2500')).toBe(2500);
		expect(parseContentRangeTotal('*/0')).toBe(0);
		expect(parseContentRangeTotal('0-999/*')).toBeUndefined();
		expect(parseContentRangeTotal(undefined)).toBeUndefined();
	});
});
