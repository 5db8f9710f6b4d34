// A database with its PostgREST for each emulator; under jest they are kept for the next emulator of
// the same test file (jest gives each file its own module registry), which saves ~0.5 s per test.
import { ServiceDatabase } from './database';
import { PostgrestProcess } from './postgrest-process';

export interface Backend {
	db: ServiceDatabase;
	postgrest: PostgrestProcess;
}

/** The file's idle backends; only filled once enableBackendReuse() arranged for their end. */
const idle: Backend[] = [];
let reuse = false;

/** For a test framework that calls drainBackends() when the file is done (test/harness/reuse-backends.ts). */
export function enableBackendReuse(): void {
	reuse = true;
}

/** Whether a test framework drops what a file leaves (enableBackendReuse, until drainBackends). */
export function backendReuse(): boolean {
	return reuse;
}

export async function acquireBackend(
	clusterUrl: string,
	jwtSecret: string,
	maxRows: number,
): Promise<Backend> {
	const kept = idle.pop();
	if (kept) {
		await kept.postgrest.setMaxRows(maxRows);
		return kept;
	}
	const db = await ServiceDatabase.create(clusterUrl);
	const postgrest = new PostgrestProcess(db.authenticatorUri, jwtSecret, maxRows);
	await postgrest.start();
	return { db, postgrest };
}

/** Emptied (TRUNCATE … RESTART IDENTITY) and kept when reuse is on; dropped otherwise. */
export async function releaseBackend(backend: Backend): Promise<void> {
	if (!reuse) return await dropBackend(backend);
	await backend.db.empty();
	idle.push(backend);
}

async function dropBackend(backend: Backend): Promise<void> {
	await backend.postgrest.stop();
	await backend.db.drop();
}

/** The file is done: drops the idle backends, and from now on those still released (an afterAll that runs later). */
export async function drainBackends(): Promise<void> {
	reuse = false;
	for (const backend of idle.splice(0)) await dropBackend(backend);
}
