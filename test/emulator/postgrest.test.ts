import { T0, call, ids, login, rest, start } from './helpers';
import type { Emulator } from './index';

let emu: Emulator;
let token: string;
let otherToken: string;

beforeAll(async () => {
	emu = await start();
});
afterAll(() => emu.close());
beforeEach(async () => {
	emu.reset();
	emu.addUser({ email: 'other@example.com', password: 'other-password' });
	token = await login(emu);
	otherToken = await login(emu, 'other@example.com', 'other-password');
});

const get = (path: string, headers: Record<string, string> = {}) => call(emu, 'GET', path, { token, headers });

/** Five jobs with awkward values; ids 1..5. */
function seedJobs(): void {
	emu.insert('jobs', [
		{ url: 'https://alpha.example', email: 'a@x.test', status: 'finished', files: 3 },
		{ url: 'https://beta.example/a,b', email: 'B@x.test', status: 'queued', files: 0 },
		{ url: 'https://gamma.example/(x)', email: 'c@x.test', status: null, files: 7 },
		{ url: 'say "hi"', email: 'd@x.test', status: 'running', files: 7 },
		{ url: 'under_score%', email: 'e@x.test', status: 'failed', files: 1 },
	]);
}

async function filterIds(params: Record<string, string> | Array<[string, string]>): Promise<number[]> {
	const res = await get(rest('jobs', params));
	if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
	return ids(res.json);
}

describe('row-level security', () => {
	it('shows each account only its own rows, and anon nothing', async () => {
		emu.insert('jobs', [{ url: 'https://mine.example', email: 'me@x.test' }]);
		emu.insert('jobs', [{ url: 'https://theirs.example', email: 'them@x.test' }], { owner: 'other@example.com' });
		expect((await get(rest('jobs'))).json.map((j: { url: string }) => j.url)).toEqual(['https://mine.example']);
		const theirs = await call(emu, 'GET', rest('jobs'), { token: otherToken });
		expect(theirs.json).toMatchObject([{ id: 2, url: 'https://theirs.example', user_id: emu.userId('other@example.com') }]);
		const anon = await call(emu, 'GET', rest('jobs'), { headers: { authorization: `Bearer ${emu.apiKey}` } });
		expect(anon.status).toBe(200);
		expect(anon.json).toEqual([]);
	});

	it('refuses anon inserts (401 42501) and lets anon updates reach nothing', async () => {
		emu.insert('jobs', [{ url: 'https://mine.example', email: 'me@x.test' }]);
		const post = await call(emu, 'POST', rest('jobs'), { body: { url: 'u', email: 'e' } });
		expect(post.status).toBe(401);
		expect(post.json).toEqual({ code: '42501', details: null, hint: null, message: 'new row violates row-level security policy for table "jobs"' });
		expect(post.headers['www-authenticate']).toBe('Bearer');
		const patch = await call(emu, 'PATCH', rest('jobs', { id: 'eq.1' }), { body: { status: 'x' } });
		expect(patch.status).toBe(204);
		expect(emu.rows('jobs')).toMatchObject([{ status: 'queued' }]);
	});

	it("cannot write another account's rows", async () => {
		emu.insert('jobs', [{ url: 'https://theirs.example', email: 'them@x.test' }], { owner: 'other@example.com' });
		const patch = await call(emu, 'PATCH', rest('jobs', { id: 'eq.1' }), { token, body: { status: 'finished' }, headers: { prefer: 'return=representation' } });
		expect(patch.status).toBe(200);
		expect(patch.json).toEqual([]);
		const steal = await call(emu, 'POST', rest('jobs'), { token, body: { url: 'u', email: 'e', user_id: emu.userId('other@example.com') } });
		expect(steal.status).toBe(403);
		expect(steal.json.message).toBe('new row violates row-level security policy for table "jobs"');
		expect(emu.rows('jobs')).toMatchObject([{ status: 'queued' }]);
	});
});

describe('horizontal filters', () => {
	beforeEach(seedJobs);

	it('compares typed values with eq, neq, gt, gte, lt, lte', async () => {
		expect(await filterIds({ files: 'eq.7' })).toEqual([3, 4]);
		expect(await filterIds({ files: 'gt.3' })).toEqual([3, 4]);
		expect(await filterIds({ files: 'gte.3' })).toEqual([1, 3, 4]);
		expect(await filterIds({ files: 'lt.3' })).toEqual([2, 5]);
		expect(await filterIds({ files: 'lte.1' })).toEqual([2, 5]);
		expect(await filterIds({ files: 'neq.7' })).toEqual([1, 2, 5]);
		// 10 > 9 as numbers; as text it would be the other way round.
		expect(await filterIds({ id: 'gte.2', files: 'lt.10' })).toEqual([2, 3, 4, 5]);
	});

	it('applies SQL NULL semantics: neq, not.eq and not.in never match NULL', async () => {
		expect(await filterIds({ status: 'neq.queued' })).toEqual([1, 4, 5]);
		expect(await filterIds({ status: 'not.eq.queued' })).toEqual([1, 4, 5]);
		expect(await filterIds({ status: 'not.in.(queued,running)' })).toEqual([1, 5]);
		expect(await filterIds({ status: 'isdistinct.queued' })).toEqual([1, 3, 4, 5]);
	});

	it('supports is.null, not.is.null and is.not_null', async () => {
		expect(await filterIds({ status: 'is.null' })).toEqual([3]);
		expect(await filterIds({ status: 'not.is.null' })).toEqual([1, 2, 4, 5]);
		expect(await filterIds({ status: 'is.not_null' })).toEqual([1, 2, 4, 5]);
		expect(await filterIds({ status: 'is.NULL' })).toEqual([3]);
	});

	it('parses in.(...) with PostgREST quoting: commas, parentheses and escaped quotes', async () => {
		const list = '("https://beta.example/a,b","https://gamma.example/(x)","say \\"hi\\"")';
		expect(await filterIds({ url: `in.${list}` })).toEqual([2, 3, 4]);
		expect(await filterIds({ url: `not.in.${list}` })).toEqual([1, 5]);
		expect(await filterIds({ id: 'in.(1, 3,5)' })).toEqual([1, 3, 5]);
		expect(await filterIds({ id: 'in.()' })).toEqual([]);
		expect(await filterIds({ status: 'not.in.()' })).toEqual([1, 2, 3, 4, 5]);
	});

	it('cannot be tricked into other filters by values that quote correctly', async () => {
		expect(await filterIds({ email: 'eq.a@x.test&id=gt.0' })).toEqual([]);
		expect(await filterIds({ email: 'in.("a@x.test),id.gt.(0")' })).toEqual([]);
		expect(await filterIds({ email: 'eq.a@x.test,id.eq.2' })).toEqual([]);
		expect(await filterIds({ url: 'eq.https://beta.example/a,b' })).toEqual([2]);
	});

	it('matches like/ilike with * or % and _ and backslash escapes', async () => {
		expect(await filterIds({ url: 'like.*example*' })).toEqual([1, 2, 3]);
		expect(await filterIds({ url: 'like.%example%' })).toEqual([1, 2, 3]);
		expect(await filterIds({ url: 'like.*EXAMPLE*' })).toEqual([]);
		expect(await filterIds({ url: 'ilike.*EXAMPLE*' })).toEqual([1, 2, 3]);
		expect(await filterIds({ email: 'like._@x.test' })).toEqual([1, 2, 3, 4, 5]);
		expect(await filterIds({ email: 'ilike.b@*' })).toEqual([2]);
		expect(await filterIds({ url: 'like.under\\_score\\%' })).toEqual([5]);
		expect(await filterIds({ url: 'like.under\\_score' })).toEqual([]);
		expect(await filterIds({ url: 'not.like.https*' })).toEqual([4, 5]);
	});

	it('supports match/imatch and the any/all quantifiers', async () => {
		expect(await filterIds({ email: 'match.^[a-c]@' })).toEqual([1, 3]);
		expect(await filterIds({ email: 'imatch.^[a-c]@' })).toEqual([1, 2, 3]);
		expect(await filterIds({ files: 'eq(any).{1,3}' })).toEqual([1, 5]);
		expect(await filterIds({ url: 'like(any).{*alpha*,*beta*}' })).toEqual([1, 2]);
		expect(await filterIds({ url: 'like(all).{https*,*a.example}' })).toEqual([1]);
	});

	it('ANDs several filters on the same column', async () => {
		expect(await filterIds([['files', 'gte.1'], ['files', 'lt.7']])).toEqual([1, 5]);
	});

	it('supports or/and logic trees, negated and nested', async () => {
		expect(await filterIds({ or: '(status.eq.queued,files.gt.5)' })).toEqual([2, 3, 4]);
		expect(await filterIds({ 'not.or': '(status.eq.queued,files.gt.5)' })).toEqual([1, 5]);
		expect(await filterIds({ or: '(and(files.eq.7,status.is.null),id.eq.1)' })).toEqual([1, 3]);
		expect(await filterIds({ or: '(url.eq."https://beta.example/a,b",id.in.(4,5))' })).toEqual([2, 4, 5]);
	});

	it('answers malformed and mistyped filters with PostgREST/Postgres errors', async () => {
		const cases: Array<[Record<string, string>, number, string, string]> = [
			[{ id: '5' }, 400, 'PGRST100', '"failed to parse filter (5)" (line 1, column 1)'],
			[{ id: 'eqq.5' }, 400, 'PGRST100', '"failed to parse filter (eqq.5)" (line 1, column 1)'],
			[{ id: 'not.xx.5' }, 400, 'PGRST100', '"failed to parse filter (not.xx.5)" (line 1, column 5)'],
			[{ status: 'in.(a' }, 400, 'PGRST100', '"failed to parse filter (in.(a)" (line 1, column 6)'],
			[{ id: 'eq.x' }, 400, '22P02', 'invalid input syntax for type bigint: "x"'],
			[{ files: 'gt.1.5' }, 400, '22P02', 'invalid input syntax for type integer: "1.5"'],
			[{ id: 'in.(1,x)' }, 400, '22P02', 'invalid input syntax for type bigint: "x"'],
			[{ user_id: 'eq.nope' }, 400, '22P02', 'invalid input syntax for type uuid: "nope"'],
			[{ created_at: 'gte.soon' }, 400, '22007', 'invalid input syntax for type timestamp with time zone: "soon"'],
			[{ created_at: 'gte.2026-02-30' }, 400, '22008', 'date/time field value out of range: "2026-02-30"'],
			[{ foo: 'eq.1' }, 400, '42703', 'column jobs.foo does not exist'],
			[{ id: 'like.1*' }, 404, '42883', 'operator does not exist: bigint ~~ unknown'],
			[{ id: 'is.true' }, 400, '42804', 'argument of IS TRUE must be type boolean, not type bigint'],
			[{ limit: '2', 'jobs.id': 'eq.1' }, 400, 'PGRST108', "'jobs' is not an embedded resource in this request"],
		];
		for (const [params, status, code, message] of cases) {
			const res = await get(rest('jobs', params));
			expect({ params, status: res.status, code: res.json.code, message: res.json.message }).toEqual({ params, status, code, message });
		}
	});
});

describe('created_at', () => {
	it('is written like Postgres (microseconds, +00:00) and filtered as a timestamp from any ISO 8601 form', async () => {
		emu.insert('jobs', [
			{ url: 'a', email: 'e', created_at: '2026-01-01T00:00:00+00:00' },
			{ url: 'b', email: 'e', created_at: '2026-01-01T00:00:00.000001Z' },
			{ url: 'c', email: 'e', created_at: '2026-01-01 03:30:00.5+02:30' },
		]);
		const all = (await get(rest('jobs', { select: 'created_at' }))).json.map((r: { created_at: string }) => r.created_at);
		expect(all).toEqual(['2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00.000001+00:00', '2026-01-01T01:00:00.5+00:00']);
		expect(await filterIds({ created_at: 'eq.2026-01-01T02:00:00+02:00' })).toEqual([1]);
		expect(await filterIds({ created_at: 'gt.2026-01-01T00:00:00Z' })).toEqual([2, 3]);
		expect(await filterIds({ created_at: 'gt.2026-01-01T00:00:00.000001+00:00' })).toEqual([3]);
		expect(await filterIds({ created_at: 'gte.2026-01-01' })).toEqual([1, 2, 3]);
		expect(await filterIds({ created_at: 'lt.2026-01-01T01:00:00' })).toEqual([1, 2]);
		expect(await filterIds({ created_at: 'lte.2026-01-01T01:00:00.500+0000' })).toEqual([1, 2, 3]);
		expect(await filterIds([['created_at', 'gte.2026-01-01T00:00:00.000001Z'], ['created_at', 'lt.2026-01-01T01:00:00Z']])).toEqual([2]);
	});

	it('rejects a "+" that was not URL-encoded (it arrives as a space)', async () => {
		const res = await get('/rest/v1/jobs?created_at=gte.2026-01-01T00:00:00+00:00');
		expect(res.status).toBe(400);
		expect(res.json.code).toBe('22007');
	});

	it('carries the clock millisecond plus microseconds, later statements sort later', async () => {
		const first = await call(emu, 'POST', rest('jobs'), { token, body: { url: 'a', email: 'e' }, headers: { prefer: 'return=representation' } });
		const second = await call(emu, 'POST', rest('jobs'), { token, body: { url: 'b', email: 'e' }, headers: { prefer: 'return=representation' } });
		const [a, b] = [first.json[0].created_at as string, second.json[0].created_at as string];
		expect(a).toMatch(/^2026-11-22T18:07:14\.764\d{0,3}\+00:00$/);
		expect(Date.parse(a)).toBe(T0);
		expect(b > a).toBe(true);
	});
});

describe('ordering', () => {
	beforeEach(seedJobs);

	it('orders by several columns, with Postgres NULL placement', async () => {
		expect(await filterIds({ order: 'files.desc,id.asc' })).toEqual([3, 4, 1, 5, 2]);
		expect(await filterIds({ order: 'files.desc,id.desc' })).toEqual([4, 3, 1, 5, 2]);
		expect(await filterIds({ order: 'status' })).toEqual([5, 1, 2, 4, 3]);
		expect(await filterIds({ order: 'status.desc' })).toEqual([3, 4, 2, 1, 5]);
		expect(await filterIds({ order: 'status.desc.nullslast' })).toEqual([4, 2, 1, 5, 3]);
		expect(await filterIds({ order: 'status.asc.nullsfirst' })).toEqual([3, 5, 1, 2, 4]);
		expect(await filterIds({ order: 'id.desc' })).toEqual([5, 4, 3, 2, 1]);
		// Text compares by code point (C collation): 'B' < 'a'.
		expect(await filterIds({ order: 'email' })).toEqual([2, 1, 3, 4, 5]);
	});

	it('orders by created_at even when rows were inserted out of time order', async () => {
		emu.reset();
		emu.insert('jobs', [
			{ url: 'late', email: 'e', created_at: '2026-03-01T00:00:00Z' },
			{ url: 'early', email: 'e', created_at: '2026-01-01T00:00:00Z' },
			{ url: 'middle', email: 'e', created_at: '2026-02-01T00:00:00Z' },
		]);
		token = await login(emu);
		expect(await filterIds({ order: 'created_at.asc' })).toEqual([2, 3, 1]);
		expect(await filterIds({ order: 'created_at.desc', limit: '2' })).toEqual([1, 3]);
	});

	it('rejects bad order terms', async () => {
		const bad = await get(rest('jobs', { order: 'id.sideways' }));
		expect(bad.status).toBe(400);
		expect(bad.json.code).toBe('PGRST100');
		expect(bad.json.message).toMatch(/^"failed to parse order \(id.sideways\)"/);
		const unknown = await get(rest('jobs', { order: 'nope.asc' }));
		expect(unknown.json).toEqual({ code: '42703', details: null, hint: null, message: 'column jobs.nope does not exist' });
	});
});

describe('pagination, counts and max-rows', () => {
	beforeEach(() => {
		emu.insert('jobs', Array.from({ length: 25 }, (_, i) => ({ url: `https://site${i}.example`, email: 'e@x.test' })));
	});

	it('slices with limit/offset and answers Content-Range', async () => {
		const res = await get(rest('jobs', { select: 'id', limit: '5', offset: '10' }));
		expect(res.status).toBe(200);
		expect(ids(res.json)).toEqual([11, 12, 13, 14, 15]);
		expect(res.headers['content-range']).toBe('10-14/*');
		const counted = await get(rest('jobs', { select: 'id', limit: '5', offset: '10' }), { prefer: 'count=exact' });
		expect(counted.status).toBe(206);
		expect(counted.headers['content-range']).toBe('10-14/25');
		expect(counted.headers['preference-applied']).toBe('count=exact');
	});

	it('honours the Range header, intersected with limit', async () => {
		const res = await get(rest('jobs', { select: 'id' }), { range: '0-9', 'range-unit': 'items', prefer: 'count=exact' });
		expect(res.status).toBe(206);
		expect(res.headers['content-range']).toBe('0-9/25');
		expect(ids(res.json)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		const both = await get(rest('jobs', { select: 'id', limit: '3' }), { range: '2-9' });
		expect(ids(both.json)).toEqual([3]);
		const whole = await get(rest('jobs', { select: 'id' }), { range: '0-99', prefer: 'count=exact' });
		expect(whole.status).toBe(200);
		expect(whole.headers['content-range']).toBe('0-24/25');
	});

	it('answers 416 for impossible ranges', async () => {
		const inverted = await get(rest('jobs'), { range: '5-2' });
		expect(inverted.status).toBe(416);
		expect(inverted.json.code).toBe('PGRST103');
		const beyond = await get(rest('jobs', { offset: '30' }), { prefer: 'count=exact' });
		expect(beyond.status).toBe(416);
		expect(beyond.json).toEqual({
			code: 'PGRST103',
			details: 'An offset of 30 was requested, but there are only 25 rows.',
			hint: null,
			message: 'Requested range not satisfiable',
		});
		const negative = await get(rest('jobs', { limit: '-1' }));
		expect(negative.status).toBe(416);
		// offset = total is not beyond: an empty page, and PostgREST's 206 since 0 < 25.
		const atEnd = await get(rest('jobs', { offset: '25' }), { prefer: 'count=exact' });
		expect([atEnd.status, atEnd.headers['content-range'], atEnd.json]).toEqual([206, '*/25', []]);
	});

	it('caps every read at max-rows silently', async () => {
		emu.settings.maxRows = 10;
		const counted = await get(rest('jobs', { select: 'id' }), { prefer: 'count=exact' });
		expect([counted.status, counted.headers['content-range'], counted.json.length]).toEqual([206, '0-9/25', 10]);
		const plain = await get(rest('jobs', { select: 'id', limit: '20', offset: '20' }));
		expect([plain.status, plain.headers['content-range'], ids(plain.json)]).toEqual([200, '20-24/*', [21, 22, 23, 24, 25]]);
		const big = await get(rest('jobs', { select: 'id', limit: '20' }));
		expect(big.json.length).toBe(10);
	});

	it('writes */0 and */* for empty results', async () => {
		const counted = await get(rest('jobs', { id: 'eq.999' }), { prefer: 'count=exact' });
		expect([counted.status, counted.headers['content-range']]).toEqual([200, '*/0']);
		const plain = await get(rest('jobs', { id: 'eq.999' }));
		expect([plain.status, plain.headers['content-range']]).toEqual([200, '*/*']);
	});

	it('answers HEAD with the count and no body', async () => {
		const res = await call(emu, 'HEAD', rest('jobs', { limit: '1' }), { token, headers: { prefer: 'count=exact' } });
		expect([res.status, res.headers['content-range'], res.text]).toEqual([206, '0-0/25', '']);
	});
});

describe('select', () => {
	beforeEach(seedJobs);

	it('projects, aliases and casts columns', async () => {
		const res = await get(rest('jobs', { select: 'id,job_url:url,files::text', id: 'eq.1' }));
		expect(res.json).toEqual([{ id: 1, job_url: 'https://alpha.example', files: '3' }]);
		expect(res.headers['content-profile']).toBe('public');
	});

	it('rejects unknown columns and embedding', async () => {
		expect((await get(rest('jobs', { select: 'id,foo' }))).json).toEqual({ code: '42703', details: null, hint: null, message: 'column jobs.foo does not exist' });
		const embed = await get(rest('jobs', { select: '*,downloads(*)' }));
		expect([embed.status, embed.json.code]).toEqual([400, 'PGRST200']);
		expect((await get(rest('jobs', { select: 'id,' }))).json.code).toBe('PGRST100');
	});

	it('strips nulls when asked', async () => {
		const res = await get(rest('jobs', { id: 'eq.3', select: 'id,status' }), { accept: 'application/vnd.pgrst.array+json;nulls=stripped' });
		expect(res.json).toEqual([{ id: 3 }]);
	});
});

describe('media types, profiles and resources', () => {
	beforeEach(seedJobs);

	it('returns a single object for vnd.pgrst.object+json, or 406 PGRST116', async () => {
		const one = await get(rest('jobs', { id: 'eq.2' }), { accept: 'application/vnd.pgrst.object+json' });
		expect(one.status).toBe(200);
		expect(one.json).toMatchObject({ id: 2, url: 'https://beta.example/a,b' });
		expect(one.headers['content-type']).toBe('application/vnd.pgrst.object+json; charset=utf-8');
		for (const [params, n] of [[{ id: 'eq.99' }, 0], [{ files: 'eq.7' }, 2]] as const) {
			const res = await get(rest('jobs', params), { accept: 'application/vnd.pgrst.object+json' });
			expect(res.status).toBe(406);
			expect(res.json).toEqual({
				code: 'PGRST116',
				details: `The result contains ${n} rows`,
				hint: null,
				message: 'JSON object requested, multiple (or no) rows returned',
			});
		}
	});

	it('refuses unavailable media types and schemas, and unknown tables', async () => {
		const csv = await get(rest('jobs'), { accept: 'text/csv' });
		expect([csv.status, csv.json.code, csv.json.message]).toEqual([406, 'PGRST107', 'None of these media types are available: text/csv']);
		const browser = await get(rest('jobs'), { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
		expect(browser.status).toBe(200);
		const schema = await get(rest('jobs'), { 'accept-profile': 'private' });
		expect(schema.status).toBe(406);
		expect(schema.json).toEqual({ code: 'PGRST106', details: null, hint: 'Only the following schemas are exposed: public, graphql_public', message: 'Invalid schema: private' });
		const other = await get(rest('jobs'), { 'accept-profile': 'graphql_public' });
		expect([other.status, other.json.message]).toEqual([404, "Could not find the table 'graphql_public.jobs' in the schema cache"]);
		const unknown = await get(rest('x'));
		expect(unknown.status).toBe(404);
		expect(unknown.json).toEqual({ code: 'PGRST205', details: null, hint: null, message: "Could not find the table 'public.x' in the schema cache" });
	});
});

describe('writes', () => {
	const post = (table: string, body: unknown, prefer?: string, path = rest(table)) =>
		call(emu, 'POST', path, { token, body, headers: prefer ? { prefer } : {} });

	it('POST: 201 empty by default, the rows with return=representation; ids count per table', async () => {
		const minimal = await post('jobs', { url: 'https://a.example', email: 'a@x.test' });
		expect([minimal.status, minimal.text, minimal.headers['content-range']]).toEqual([201, '', '*/*']);
		expect(minimal.headers['content-type']).toBeUndefined();
		const full = await post('jobs', { url: 'https://b.example', email: 'b@x.test' }, 'return=representation');
		expect(full.status).toBe(201);
		expect(full.headers['preference-applied']).toBe('return=representation');
		expect(full.json).toEqual([
			{
				id: 2,
				created_at: expect.stringMatching(/^2026-11-22T18:07:14\.764\d*\+00:00$/),
				user_id: emu.userId('demo@example.com'),
				status: 'queued',
				files: 0,
				url: 'https://b.example',
				email: 'b@x.test',
				plan: 'business',
			},
		]);
		const option = await post('options', { job_id: 2, mode: 'offline' }, 'return=representation');
		expect(option.json).toEqual([{ id: 1, created_at: expect.any(String), job_id: 2, mode: 'offline', relative_path: '/', replace_url: '' }]);
		const headersOnly = await post('jobs', { url: 'c', email: 'c' }, 'return=headers-only');
		expect([headersOnly.status, headersOnly.headers.location]).toEqual([201, '/jobs?id=eq.3']);
	});

	it('POST arrays are all-or-nothing', async () => {
		const res = await post('jobs', [{ url: 'a', email: 'a' }, { url: null, email: 'b' }]);
		expect(res.status).toBe(400);
		expect(res.json.code).toBe('23502');
		expect(res.json.message).toBe('null value in column "url" of relation "jobs" violates not-null constraint');
		expect(res.json.details).toMatch(/^Failing row contains \(2, 2026-11-22 18:07:14\.764\d*\+00, [0-9a-f-]{36}, queued, 0, null, b, business\)\.$/);
		expect(emu.count('jobs')).toBe(0);
		const mixed = await post('jobs', [{ url: 'a', email: 'a' }, { url: 'b' }]);
		expect([mixed.status, mixed.json.code, mixed.json.message]).toEqual([400, 'PGRST102', 'All object keys must match']);
		const broken = await post('jobs', '{"url":');
		expect([broken.status, broken.json.message]).toEqual([400, 'Empty or invalid json']);
		const unknownColumn = await post('jobs', { url: 'a', email: 'a', colour: 'red' });
		expect(unknownColumn.json).toEqual({ code: 'PGRST204', details: null, hint: null, message: "Could not find the 'colour' column of 'jobs' in the schema cache" });
	});

	it('honours columns= (missing keys are NULL, or defaults with missing=default)', async () => {
		const path = rest('jobs', { columns: '"url","email","status"' });
		const nulls = await post('jobs', [{ url: 'a', email: 'a', status: 'running' }, { url: 'b', email: 'b' }], 'return=representation', path);
		expect(nulls.json.map((j: { status: string | null }) => j.status)).toEqual(['running', null]);
		const defaults = await post('jobs', [{ url: 'c', email: 'c' }], 'return=representation,missing=default', path);
		expect(defaults.json[0].status).toBe('queued');
		expect(defaults.headers['preference-applied']).toBe('missing=default, return=representation');
		const ignored = await post('jobs', [{ url: 'd', email: 'd', plan: 'free' }], 'return=representation', rest('jobs', { columns: 'url,email' }));
		expect(ignored.json[0].plan).toBe('business');
	});

	it('PATCH and DELETE: 204 by default (even when nothing matched), rows with return=representation', async () => {
		emu.insert('jobs', [
			{ url: 'a', email: 'a' },
			{ url: 'b', email: 'b' },
		]);
		emu.insert('jobs', [{ url: 'theirs', email: 't' }], { owner: 'other@example.com' });
		const patch = await call(emu, 'PATCH', rest('jobs', { id: 'eq.1' }), { token, body: { email: 'new@x.test' } });
		expect([patch.status, patch.text]).toEqual([204, '']);
		const none = await call(emu, 'PATCH', rest('jobs', { id: 'eq.99' }), { token, body: { email: 'z' } });
		expect(none.status).toBe(204);
		const all = await call(emu, 'PATCH', rest('jobs'), { token, body: { plan: 'gold' }, headers: { prefer: 'return=representation,count=exact' } });
		expect(all.status).toBe(200);
		expect(all.headers['content-range']).toBe('0-1/2');
		expect(all.json.map((j: { plan: string }) => j.plan)).toEqual(['gold', 'gold']);
		expect(emu.rows('jobs').map((j) => (j as { plan: string }).plan)).toEqual(['gold', 'gold', 'business']);
		const del = await call(emu, 'DELETE', rest('jobs', { id: 'eq.2' }), { token, headers: { prefer: 'return=representation' } });
		expect([del.status, ids(del.json)]).toEqual([200, [2]]);
		const delNone = await call(emu, 'DELETE', rest('jobs', { id: 'eq.2' }), { token });
		expect([delNone.status, delNone.headers['content-range']]).toEqual([204, '*/*']);
		expect(emu.count('jobs')).toBe(2);
	});

	it('PATCH validates columns and types', async () => {
		emu.insert('jobs', [{ url: 'a', email: 'a' }]);
		const unknown = await call(emu, 'PATCH', rest('jobs', { id: 'eq.1' }), { token, body: { colour: 'x' } });
		expect([unknown.status, unknown.json.code]).toEqual([400, 'PGRST204']);
		const typed = await call(emu, 'PATCH', rest('jobs', { id: 'eq.1' }), { token, body: { files: 'many' } });
		expect([typed.status, typed.json.message]).toEqual([400, 'invalid input syntax for type integer: "many"']);
		const notNull = await call(emu, 'PATCH', rest('jobs', { id: 'eq.1' }), { token, body: { email: null } });
		expect(notNull.json.code).toBe('23502');
	});

	it('enforces the option constraints', async () => {
		emu.insert('jobs', [{ url: 'a', email: 'a' }]);
		emu.insert('jobs', [{ url: 'theirs', email: 't' }], { owner: 'other@example.com' });
		const checks: Array<[object, number, string, string]> = [
			[{ mode: null }, 400, '23502', 'null value in column "mode" of relation "options" violates not-null constraint'],
			[{ mode: 'weird' }, 400, '23514', 'new row for relation "options" violates check constraint "options_mode_check"'],
			[{ mode: 'relative' }, 400, '23514', 'new row for relation "options" violates check constraint "options_mode_check"'],
			[{ mode: 'absolute' }, 400, '23514', 'new row for relation "options" violates check constraint "options_mode_check"'],
			[{ mode: 'offline', job_id: 99 }, 409, '23503', 'insert or update on table "options" violates foreign key constraint "options_job_id_fkey"'],
			[{ mode: 'offline', job_id: 2 }, 409, '23503', 'insert or update on table "options" violates foreign key constraint "options_job_id_fkey"'],
		];
		for (const [body, status, code, message] of checks) {
			const res = await post('options', body);
			expect({ body, status: res.status, code: res.json.code, message: res.json.message }).toEqual({ body, status, code, message });
		}
		expect((await post('options', { mode: 'offline', job_id: 99 })).json.details).toBe('Key (job_id)=(99) is not present in table "jobs".');
		expect((await post('options', { mode: 'relative', relative_path: '/docs' })).status).toBe(201);
		expect((await post('options', { mode: 'absolute', replace_url: 'https://mirror.example' })).status).toBe(201);
		expect((await post('options', { mode: 'offline', job_id: 1 })).status).toBe(201);
	});

	it('refuses duplicate ids and deleting a job that options point to', async () => {
		emu.insert('jobs', [{ url: 'a', email: 'a' }]);
		const dup = await post('jobs', { id: 1, url: 'b', email: 'b' });
		expect([dup.status, dup.json]).toEqual([409, { code: '23505', details: 'Key (id)=(1) already exists.', hint: null, message: 'duplicate key value violates unique constraint "jobs_pkey"' }]);
		emu.insert('options', [{ job_id: 1, mode: 'offline' }]);
		const del = await call(emu, 'DELETE', rest('jobs', { id: 'eq.1' }), { token });
		expect(del.status).toBe(409);
		expect(del.json).toEqual({
			code: '23503',
			details: 'Key (id)=(1) is still referenced from table "options".',
			hint: null,
			message: 'update or delete on table "jobs" violates foreign key constraint "options_job_id_fkey" on table "options"',
		});
	});

	it('keeps downloads read-only for users', async () => {
		emu.insert('jobs', [{ url: 'a', email: 'a' }]);
		emu.insert('downloads', [{ job_id: 1 }]);
		const insert = await post('downloads', { job_id: 1, download_link: 'x' });
		expect([insert.status, insert.json.message]).toEqual([403, 'new row violates row-level security policy for table "downloads"']);
		const patch = await call(emu, 'PATCH', rest('downloads', { id: 'eq.1' }), { token, body: { download_link: 'x' } });
		const del = await call(emu, 'DELETE', rest('downloads', { id: 'eq.1' }), { token });
		expect([patch.status, del.status]).toEqual([204, 204]);
		expect(emu.rows('downloads')).toMatchObject([{ id: 1, job_id: 1, download_link: expect.stringContaining('/storage/v1/object/public/exports/') }]);
		expect((await get(rest('downloads'))).json).toHaveLength(1);
	});

	it('rolls back a write that .single() cannot return', async () => {
		const res = await post('jobs', [{ url: 'a', email: 'a' }, { url: 'b', email: 'b' }], 'return=representation', undefined);
		expect(res.status).toBe(201);
		const single = await call(emu, 'POST', rest('jobs'), {
			token,
			body: [{ url: 'c', email: 'c' }, { url: 'd', email: 'd' }],
			headers: { accept: 'application/vnd.pgrst.object+json', prefer: 'return=representation' },
		});
		expect([single.status, single.json.code]).toEqual([406, 'PGRST116']);
		expect(emu.count('jobs')).toBe(2);
		const patch = await call(emu, 'PATCH', rest('jobs'), { token, body: { plan: 'x' }, headers: { accept: 'application/vnd.pgrst.object+json' } });
		expect(patch.status).toBe(406);
		expect(emu.rows('jobs').map((j) => (j as { plan: string }).plan)).toEqual(['business', 'business']);
	});

	it('applies handling=strict: invalid preferences and max-affected', async () => {
		emu.insert('jobs', [
			{ url: 'a', email: 'a' },
			{ url: 'b', email: 'b' },
		]);
		const invalid = await get(rest('jobs'), { prefer: 'handling=strict, colour=red' });
		expect([invalid.status, invalid.json.code, invalid.json.details]).toEqual([400, 'PGRST122', 'Invalid preferences: colour=red']);
		const tooMany = await call(emu, 'DELETE', rest('jobs'), { token, headers: { prefer: 'handling=strict, max-affected=1' } });
		expect([tooMany.status, tooMany.json.code]).toEqual([400, 'PGRST124']);
		expect(emu.count('jobs')).toBe(2);
		const lenient = await get(rest('jobs'), { prefer: 'colour=red' });
		expect(lenient.status).toBe(200);
	});
});
