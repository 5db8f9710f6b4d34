/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The emulator's state and the operations the programmatic and HTTP controls share.
import { Accounts, DEMO_USER, FREE_USER } from './accounts';
import { Faults, RequestLog } from './faults';
import { signJwt } from './jwt';
import { Lifecycle } from './lifecycle';
import { TABLES } from './schema';
import { Store } from './store';
import { EmulatorClock } from './time';
import { type NumericSettings, type Plan, type Settings, type TableName, type TimestampFormat, TIMESTAMP_FORMATS, isTableName } from './types';
import { Writer } from './writes';
import { MAX_ZIP_BYTES } from './zip';

/** Supabase's well-known local-development JWT secret: nothing here is a real credential. */
export const JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

/** The anon key of `supabase start`: a real HS256 JWT with role anon, signed with JWT_SECRET. */
export const DEFAULT_API_KEY = signJwt({ iss: 'supabase-demo', role: 'anon', exp: 1983812996 }, JWT_SECRET);

export interface CoreOptions {
	apiKey: string;
	settings: Settings;
	seedDemo: boolean;
	now?: number;
	freezeClock: boolean;
}

export class EmulatorCore {
	readonly settings: Settings;
	readonly clock: EmulatorClock;
	readonly store = new Store();
	readonly accounts = new Accounts(JWT_SECRET);
	readonly faults = new Faults();
	readonly log = new RequestLog();
	readonly lifecycle: Lifecycle;
	readonly writer: Writer;
	readonly secret = JWT_SECRET;
	/** Extra work reset() must do (the server drops hung connections). */
	onReset: () => void = () => undefined;

	constructor(private readonly options: CoreOptions) {
		this.settings = { ...options.settings };
		this.clock = new EmulatorClock(options.now, options.freezeClock);
		this.lifecycle = new Lifecycle(this.store, this.settings, JWT_SECRET);
		this.writer = new Writer(this.store, {
			jobFinished: (job, atMs) => this.lifecycle.addDownload(job, atMs),
			jobsChanged: (jobs) => this.lifecycle.track(jobs),
			jobOwner: (jobId) => this.store.tables.jobs.get(jobId as number)?.ownerId,
		});
		// Moving the clock moves the jobs along with it.
		this.clock.onChange(() => this.lifecycle.evaluate(this.clock.now()));
		this.seed();
	}

	get apiKey(): string {
		return this.options.apiKey;
	}

	reset(): void {
		this.store.clear();
		this.accounts.clear();
		this.faults.clear();
		this.log.clear();
		Object.assign(this.settings, this.options.settings);
		this.clock.reset();
		this.lifecycle.reset();
		this.seed();
		this.onReset();
	}

	addUser(input: { email: string; password: string; plan?: Plan }): { id: string } {
		return { id: this.accounts.add(input, this.clock.now()).id };
	}

	userId(email: string): string {
		const account = this.accounts.findByEmail(email);
		if (!account) throw new Error(`no user with the email ${email}`);
		return account.id;
	}

	/** Direct insert for arranging tests: no RLS, no lifecycle side effects, same constraints. */
	insert(table: string, rows: readonly object[], opts: { owner?: string } = {}): object[] {
		const def = TABLES[checkTable(table)];
		const ownerEmail = opts.owner ?? DEMO_USER.email;
		const owner = this.accounts.findByEmail(ownerEmail);
		if (!owner) throw new Error(`no user with the email ${ownerEmail}`);
		const objects = rows.map((r) => ({ ...r }) as Record<string, unknown>);
		const columns = [...new Set(objects.flatMap((o) => Object.keys(o)))];
		for (const column of columns) {
			if (!def.byName.has(column)) throw new Error(`Could not find the '${column}' column of '${def.name}' in the schema cache`);
		}
		this.lifecycle.evaluate(this.clock.now());
		const actor = { userId: owner.id, plan: owner.plan, rls: false };
		const planned = this.writer.insert(def.name, objects, columns, actor, this.clock.now(), true);
		for (const row of planned.rows) {
			if (def.name === 'downloads' && row.data.download_link === null) row.data.download_link = this.lifecycle.linkFor(row.data.id);
		}
		return planned.commit().map((row) => ({ ...row.data }));
	}

	rows(table: string): object[] {
		this.lifecycle.evaluate(this.clock.now());
		return this.store.tables[checkTable(table)].rows.map((row) => ({ ...row.data }));
	}

	remove(table: string, ids: number[]): void {
		const rows = this.store.tables[checkTable(table)];
		rows.remove(new Set(ids.map((id) => rows.get(id)).filter((row) => row !== undefined)));
	}

	count(table: string): number {
		this.lifecycle.evaluate(this.clock.now());
		return this.store.tables[checkTable(table)].size;
	}

	/** Validated partial update of the settings (the control API's PATCH). */
	updateSettings(patch: Record<string, unknown>): Settings {
		const next = { ...this.settings };
		for (const [key, value] of Object.entries(patch)) {
			if (!(key in next)) throw new Error(`unknown setting ${key}`);
			if (key === 'ignorePrefer') {
				if (typeof value !== 'boolean') throw new Error('ignorePrefer must be true or false');
				next.ignorePrefer = value;
				continue;
			}
			if (key === 'downloadTimestamps') {
				if (!TIMESTAMP_FORMATS.includes(value as TimestampFormat)) throw new Error(`downloadTimestamps must be one of ${TIMESTAMP_FORMATS.join(', ')}`);
				next.downloadTimestamps = value as TimestampFormat;
				continue;
			}
			const limits = SETTING_LIMITS[key as keyof NumericSettings];
			if (typeof value !== 'number' || !Number.isInteger(value) || value < limits[0] || value > limits[1]) {
				throw new Error(`${key} must be an integer from ${limits[0]} to ${limits[1]}`);
			}
			next[key as keyof NumericSettings] = value;
		}
		Object.assign(this.settings, next);
		return { ...this.settings };
	}

	private seed(): void {
		if (!this.options.seedDemo) return;
		this.accounts.add({ ...DEMO_USER, plan: 'business' }, this.clock.now());
		this.accounts.add({ ...FREE_USER, plan: 'free' }, this.clock.now());
	}
}

export const SETTING_LIMITS: Readonly<Record<keyof NumericSettings, [number, number]>> = {
	maxRows: [1, Number.MAX_SAFE_INTEGER],
	tokenLifetimeSeconds: [1, 10 * 365 * 86400],
	jobDurationMs: [0, Number.MAX_SAFE_INTEGER],
	archiveBytes: [0, MAX_ZIP_BYTES],
	latencyMs: [0, 600_000],
	downloadDelayMs: [0, Number.MAX_SAFE_INTEGER],
};

function checkTable(table: string): TableName {
	if (!isTableName(table)) throw new Error(`unknown table ${table} (options, jobs or downloads)`);
	return table;
}
