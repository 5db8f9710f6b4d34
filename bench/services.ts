/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * The run's service stand-ins, in one Postgres cluster (CLUSTER_ENV, which the child inherits):
 * starting a cluster costs seconds of CPU, a database and PostgREST in it a fraction of one.
 */
import { startEmulator, type Emulator } from '../stack/service';
import { CLUSTER_ENV, startCluster, type Cluster } from '../stack/service/database';
import { startServiceProcess, type ServiceProcess } from '../stack/service/launch';

/** Started with the first stand-in, unless CLUSTER_ENV names a cluster already. */
let cluster: Promise<Cluster> | undefined;
let emulator: Promise<Emulator> | undefined;
let child: Promise<ServiceProcess> | undefined;

/** `start` once the cluster is up. */
async function inCluster<T>(start: () => Promise<T>): Promise<T> {
	if (cluster || !process.env[CLUSTER_ENV])
		process.env[CLUSTER_ENV] = (await (cluster ??= startCluster())).url;
	return await start();
}

/**
 * A new emulator in this process (the previous one closed), for counts: a new address too, so
 * that no login of an earlier figure is shared with this one's credential (the node shares a
 * login among the credentials with the same fields in one n8n process: nodes/shared/auth/renewal.ts).
 */
export async function newEmulator(): Promise<Emulator> {
	await (await emulator?.catch(() => undefined))?.close();
	return await (emulator = inCluster(() => startEmulator({ port: 0 })));
}

/**
 * The emulator in a child process, for timing and memory (its CPU time and heap are not the
 * node's): started on first use, then reset (rows, clock, settings, faults, log) for each figure,
 * which saves a Node process's start.
 */
export async function childService(): Promise<ServiceProcess> {
	if (!child) return await (child = inCluster(() => startServiceProcess()));
	const service = await child;
	await service.reset();
	return service;
}

export async function stopServices(): Promise<void> {
	await (await emulator?.catch(() => undefined))?.close();
	await (await child?.catch(() => undefined))?.stop();
	await (await cluster?.catch(() => undefined))?.stop();
}
