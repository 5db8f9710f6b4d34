/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Real Postgres for the emulator: a cluster (stack/postgres.ts), and per emulator a database cloned
// from a template that holds schema.sql (so each emulator, test file or jest worker starts clean).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Pool } from 'pg';

import { startPostgres } from '../postgres';

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

export interface Cluster {
	url: string;
	stop(): Promise<void>;
}

/** A throwaway cluster (stack/postgres.ts) with the roles and the template database. */
export async function startCluster(): Promise<Cluster> {
	const postgres = await startPostgres({ maxConnections: 400 });
	const { url } = postgres;
	await withClient(`${url}/postgres`, async (client) => {
		await client.query(ROLES_SQL);
		await client.query(`create database ${TEMPLATE}`);
	});
	await withClient(`${url}/${TEMPLATE}`, (client) =>
		client.query(readFileSync(join(__dirname, 'schema.sql'), 'utf8')),
	);
	return { url, stop: postgres.stop };
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
