// Supabase's own clients against the emulator: if they work here, the emulator speaks the
// protocols the way supabase-js expects them to be spoken.
import { AuthClient } from '@supabase/auth-js';
import { PostgrestClient } from '@supabase/postgrest-js';
import { type Emulator, startEmulator } from '../../stack/service/index';

let emu: Emulator;

// A real-time clock: auth-js judges session expiry with Date.now().
beforeAll(async () => {
	// Jobs stay queued however slow the machine: the filters below read their status.
	emu = await startEmulator({ port: 0, jobDurationMs: 3_600_000 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

function authClient(): InstanceType<typeof AuthClient> {
	return new AuthClient({
		url: `${emu.baseUrl}/auth/v1`,
		headers: { apikey: emu.apiKey },
		persistSession: false,
		autoRefreshToken: false,
	});
}

async function signIn(): Promise<string> {
	const { data, error } = await authClient().signInWithPassword(emu.demoUser);
	if (error || !data.session) throw error ?? new Error('no session');
	return data.session.access_token;
}

function db(token: string, schema?: string) {
	return new PostgrestClient(`${emu.baseUrl}/rest/v1`, {
		headers: { apikey: emu.apiKey, Authorization: `Bearer ${token}` },
		schema,
	});
}

describe('@supabase/auth-js', () => {
	it('signs in, reads the user, refreshes the session and signs out', async () => {
		const auth = authClient();
		const signedIn = await auth.signInWithPassword(emu.demoUser);
		expect(signedIn.error).toBeNull();
		const session = signedIn.data.session;
		expect(session).toMatchObject({
			token_type: 'bearer',
			expires_in: 3600,
			user: { email: 'demo@example.com' },
		});
		expect(signedIn.data.user?.id).toBe(emu.userId('demo@example.com'));

		const user = await auth.getUser();
		expect(user.error).toBeNull();
		expect(user.data.user).toMatchObject({
			id: emu.userId('demo@example.com'),
			email: 'demo@example.com',
			aud: 'authenticated',
		});

		const refreshed = await auth.refreshSession();
		expect(refreshed.error).toBeNull();
		expect(refreshed.data.session?.refresh_token).not.toBe(session?.refresh_token);
		expect(refreshed.data.session?.user.email).toBe('demo@example.com');

		const out = await auth.signOut();
		expect(out.error).toBeNull();
	});

	it('reports invalid credentials as an AuthApiError with code and status', async () => {
		const { data, error } = await authClient().signInWithPassword({
			email: 'demo@example.com',
			password: 'wrong',
		});
		expect(data.session).toBeNull();
		expect(error).toMatchObject({
			name: 'AuthApiError',
			status: 400,
			code: 'invalid_credentials',
			message: 'Invalid login credentials',
		});
	});
});

describe('@supabase/postgrest-js', () => {
	it('lists, inserts with .select(), updates and deletes', async () => {
		const client = db(await signIn());
		expect(await client.from('jobs').select('*')).toMatchObject({
			data: [],
			error: null,
			status: 200,
		});

		const inserted = await client
			.from('jobs')
			.insert({ url: 'https://a.example', email: 'a@x.test' })
			.select();
		expect(inserted.error).toBeNull();
		expect(inserted.status).toBe(201);
		expect(inserted.data).toEqual([
			expect.objectContaining({ id: 1, status: 'queued', url: 'https://a.example' }),
		]);

		const updated = await client.from('jobs').update({ email: 'b@x.test' }).eq('id', 1).select();
		expect(updated).toMatchObject({
			error: null,
			status: 200,
			data: [{ id: 1, email: 'b@x.test' }],
		});

		const removed = await client.from('jobs').delete().eq('id', 1);
		expect(removed).toMatchObject({ error: null, status: 204, data: null });
		expect(await emu.count('jobs')).toBe(0);
	});

	it('filters with in(), is(), like(), not() and or(), orders, ranges and counts', async () => {
		const client = db(await signIn());
		const bulk = await client.from('jobs').insert([
			{ url: 'https://alpha.example/a,b', email: 'a@x.test', status: 'finished' },
			{ url: 'https://beta.example/(x)', email: 'b@x.test', status: null },
			{ url: 'https://gamma.example', email: 'c@x.test', status: 'queued' },
			{ url: 'say "hi"', email: 'd@x.test', status: 'queued' },
		]);
		expect(bulk).toMatchObject({ error: null, status: 201 });

		const quoted = await client
			.from('jobs')
			.select('id')
			.in('url', ['https://alpha.example/a,b', 'https://beta.example/(x)', 'say "hi"'])
			.order('id');
		expect(quoted.data).toEqual([{ id: 1 }, { id: 2 }, { id: 4 }]);
		expect((await client.from('jobs').select('id').is('status', null)).data).toEqual([{ id: 2 }]);
		expect(
			(
				await client
					.from('jobs')
					.select('id')
					.like('url', '%example%')
					.order('id', { ascending: false })
			).data,
		).toEqual([{ id: 3 }, { id: 2 }, { id: 1 }]);
		expect((await client.from('jobs').select('id').not('status', 'eq', 'queued')).data).toEqual([
			{ id: 1 },
		]);
		expect(
			(await client.from('jobs').select('id').or('status.is.null,email.eq.d@x.test')).data,
		).toEqual([{ id: 2 }, { id: 4 }]);
		const ordered = await client
			.from('jobs')
			.select('id,status')
			.order('status', { ascending: true, nullsFirst: true })
			.order('id', { ascending: false });
		expect(ordered.data?.map((r) => r.id)).toEqual([2, 1, 4, 3]);

		const page = await client.from('jobs').select('*', { count: 'exact' }).order('id').range(1, 2);
		expect(page).toMatchObject({ error: null, count: 4, status: 206 });
		expect(page.data?.map((r) => r.id)).toEqual([2, 3]);

		const head = await client
			.from('jobs')
			.select('*', { count: 'exact', head: true })
			.eq('status', 'queued');
		expect(head).toMatchObject({ error: null, count: 2, data: null });
	});

	it('single() returns one object, or PGRST116', async () => {
		const client = db(await signIn());
		await client.from('jobs').insert([
			{ url: 'https://a.example', email: 'a@x.test' },
			{ url: 'https://b.example', email: 'b@x.test' },
		]);
		const one = await client.from('jobs').select('id,url').eq('id', 2).single();
		expect(one).toMatchObject({
			error: null,
			status: 200,
			data: { id: 2, url: 'https://b.example' },
		});
		const none = await client.from('jobs').select('*').eq('id', 99).single();
		expect(none.status).toBe(406);
		expect(none.error).toMatchObject({
			code: 'PGRST116',
			details: 'The result contains 0 rows',
			hint: null,
		});
		const created = await client
			.from('jobs')
			.insert({ url: 'https://c.example', email: 'c@x.test' })
			.select()
			.single();
		expect(created).toMatchObject({
			error: null,
			status: 201,
			data: { id: 3, url: 'https://c.example' },
		});
		const maybe = await client.from('jobs').select('id').eq('id', 99).maybeSingle();
		expect(maybe).toMatchObject({ error: null, data: null });
	});

	it('surfaces PostgREST error objects with code, message, details and hint', async () => {
		const client = db(await signIn());
		const badOption = await client.from('options').insert({ mode: 'sideways' });
		expect(badOption.status).toBe(400);
		expect(badOption.error).toEqual({
			code: '23514',
			message: 'new row for relation "options" violates check constraint "options_mode_check"',
			// Postgres leaves out the failing row of a table with row-level security.
			details: null,
			hint: null,
		});
		const missingJob = await client.from('options').insert({ mode: 'offline', job_id: 42 });
		expect(missingJob).toMatchObject({
			status: 409,
			error: { code: '23503', details: 'Key is not present in table "jobs".' },
		});
		const unknownColumn = await client.from('jobs').select('nope');
		expect(unknownColumn.error).toEqual({
			code: '42703',
			message: 'column jobs.nope does not exist',
			details: null,
			hint: null,
		});
		const unknownTable = await client.from('nope').select('*');
		expect(unknownTable).toMatchObject({ status: 404, error: { code: '42P01' } });
		const badType = await client.from('jobs').select('*').eq('id', 'abc');
		expect(badType.error).toMatchObject({
			code: '22P02',
			message: 'invalid input syntax for type bigint: "abc"',
		});
	});

	it('sends and honours Accept-Profile / Content-Profile', async () => {
		const token = await signIn();
		expect(
			await db(token, 'public').from('jobs').insert({ url: 'u', email: 'e' }).select('id'),
		).toMatchObject({ error: null, data: [{ id: 1 }] });
		const wrong = await db(token, 'private').from('jobs').select('*');
		expect(wrong).toMatchObject({
			status: 406,
			error: { code: 'PGRST106', message: 'The schema must be one of the following: public' },
		});
	});

	it('is refused for the Free plan and sees nothing as anon', async () => {
		const { data } = await authClient().signInWithPassword({
			email: 'free@example.com',
			password: 'free-password',
		});
		const free = await db(data.session?.access_token ?? '')
			.from('jobs')
			.select('*');
		expect(free).toMatchObject({
			status: 403,
			error: {
				code: '42501',
				message: 'An active Business plan subscription is required to use the API',
			},
		});
		await emu.insert('jobs', [{ url: 'u', email: 'e' }]);
		expect(await db(emu.apiKey).from('jobs').select('*')).toMatchObject({ status: 200, data: [] });
	});
});
