/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: what `npm start` puts into its n8n for a newcomer: the owner login, the credential for the
// emulator and the example workflows, saved over REST as the editor saves them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { writeWhole } from './n8n/process';

export const CREDENTIAL_TYPE = 'websiteExportApi';

/** The editor login printed for the newcomer (n8n wants 8+ characters, a digit and an uppercase letter). */
export const DEMO_OWNER = Object.freeze({
	email: 'demo@example.com',
	password: 'Demo-Passw0rd',
	firstName: 'Demo',
	lastName: 'User',
});

/** The credential the examples use: the id their files name (n8n gives a saved one its own). */
export const CREDENTIAL = Object.freeze({
	id: 'website-export-demo',
	name: 'Website Export (local emulator)',
});

/** What a newcomer can fix: printed without a stack trace. */
export class StartError extends Error {}

export type ExampleWorkflow = Record<string, any> & {
	id: string;
	name: string;
	file: string;
	nodes: any[];
};

/** The workflows in examples/*.json (a file may hold one workflow or an array), sorted by name. */
export function readExamples(dir: string): ExampleWorkflow[] {
	if (!fs.existsSync(dir)) return [];
	const workflows = [];
	for (const f of fs
		.readdirSync(dir)
		.filter((x) => x.endsWith('.json'))
		.sort()) {
		const data = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
		for (const wf of Array.isArray(data) ? data : [data]) {
			if (!wf || typeof wf !== 'object' || !Array.isArray(wf.nodes)) continue;
			if (!wf.id)
				throw new StartError(
					`${path.join(dir, f)}: a workflow without an "id" cannot be saved idempotently`,
				);
			workflows.push({ ...wf, file: f });
		}
	}
	return workflows.sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

type RestClient = import('./n8n/rest').RestClient;
type Access = { baseUrl: string; apiKey: string; demoUser: { email: string; password: string } };

/** The demo credential, found by its name, saved with the emulator's access; its id. */
async function saveCredential(n8n: RestClient, emulator: Access): Promise<string> {
	const { baseUrl, apiKey, demoUser } = emulator;
	const data = { baseUrl, apiKey, email: demoUser.email, password: demoUser.password };
	const body = { name: CREDENTIAL.name, type: CREDENTIAL_TYPE, data };
	const stored: Array<{ id: string; name: string; type: string }> = await n8n.rest(
		'GET',
		'/rest/credentials',
	);
	const found = stored.find((c) => c.name === CREDENTIAL.name && c.type === CREDENTIAL_TYPE);
	if (found) await n8n.updateCredential({ id: found.id, ...body });
	return found?.id ?? (await n8n.rest('POST', '/rest/credentials', body)).id;
}

/**
 * The credential and the example workflows saved in the running n8n as the editor saves them:
 * each example missing from n8n, or whose file changed since the last start (every one with
 * `force`), under its own id and wired to the credential. A workflow edited in the editor is
 * left alone until its example file changes. Resolves to what it saved.
 */
export async function saveDemoData(
	n8n: RestClient,
	{
		emulator,
		workflows,
		stateFile,
		force,
	}: { emulator: Access; workflows: ExampleWorkflow[]; stateFile: string; force: boolean },
): Promise<{ credentialId: string; saved: string[] }> {
	const credentialId = await saveCredential(n8n, emulator);
	let state: Record<string, string> = {};
	if (fs.existsSync(stateFile)) state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
	const saved = [];
	for (const workflow of workflows) {
		// Where it came from is not part of the workflow (JSON leaves `undefined` out).
		const example: Record<string, any> = structuredClone({ ...workflow, file: undefined });
		const h = crypto.createHash('sha256').update(JSON.stringify(example)).digest('hex');
		const stored = await n8n.request('GET', `/rest/workflows/${example.id}`);
		if (stored.status === 200 && state[example.id] === h && !force) continue;
		for (const node of example.nodes)
			if (node.credentials?.[CREDENTIAL_TYPE])
				node.credentials[CREDENTIAL_TYPE] = { id: credentialId, name: CREDENTIAL.name };
		const { id, name, nodes, connections, settings } = example;
		if (stored.status === 200) {
			const { versionId } = stored.json.data;
			await n8n.rest('PATCH', `/rest/workflows/${id}`, {
				...{ name, nodes, connections, settings, versionId },
			});
		} else await n8n.rest('POST', '/rest/workflows', { id, name, nodes, connections, settings });
		state[example.id] = h;
		saved.push(name);
	}
	// Whole or not at all: the next `npm start` parses it, and a start killed while writing it
	// would otherwise leave JSON cut short that every later start fails on.
	writeWhole(stateFile, JSON.stringify(state, null, 2));
	return { credentialId, saved };
}
