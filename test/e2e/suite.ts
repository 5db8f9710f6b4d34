/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: what the e2e test files share: the n8n global-setup.ts prepared, each file's own service and copy of it, workflow runs,
// a reset service with its seed rows, and the checks every output item gets.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import AdmZip from 'adm-zip';

import * as n8n from '../../stack/n8n/lib';
import {
	startServiceProcess,
	type ServiceAccess,
	type ServiceProcess,
} from '../../stack/service/launch';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
/** An n8n item as a run gave it. */
export interface Item {
	json: Json;
	binary?: Json;
	pairedItem?: Json;
}
/** What a workflow run gave: the run, its items by node, what n8n printed or stored of it. */
export type RunResult = n8n.RunOutcome;
/** What global-setup.ts prepared, handed to the test files in WEX_E2E. */
export interface Prepared {
	userFolder: string;
	n8nDir: string;
	n8nVersion: string;
	mcp: boolean;
}

export const REPO = path.resolve(__dirname, '../..');
export const PACKAGE = 'n8n-nodes-website-export';
export const NODE_TYPE = `${PACKAGE}.websiteExport`;
export const TRIGGER_TYPE = `${PACKAGE}.websiteExportTrigger`;
/** n8n derives an AI-agent tool variant from every node with `usableAsTool: true`. */
export const TOOL_TYPE = `${PACKAGE}.websiteExportTool`;
export const CREDENTIAL_TYPE = 'websiteExportApi';
export const DAY_MS = 24 * 60 * 60 * 1000;
/** The emulated export duration: Wait for Completion sees a job finish in about 2 s. */
export const JOB_MS = 2000;
export const WRONG_PASSWORD = 'wrong-password-e2e-7Qx';

const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8'));

const preparedJson = process.env.WEX_E2E;
/** Undefined outside the e2e run (the file is also type-checked and linted). */
export const prepared = (preparedJson ? JSON.parse(preparedJson) : undefined) as Prepared;
export const onN8n1 = prepared ? n8n.isN8n1(prepared.n8nVersion) : false;

/** The test file's own service and n8n user folder (useOwnStack), set before its tests run. */
export let service: ServiceProcess;
export let env: NodeJS.ProcessEnv = {};
export let n8nDir = '';

/** A copy of the prepared n8n user folder: a database of its own, for n8n processes that run side by side. */
export function copyUserFolder(key: string): {
	env: NodeJS.ProcessEnv;
	n8nDir: string;
	remove: () => void;
} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wex-n8n-${key}-`));
	fs.cpSync(prepared.userFolder, dir, { recursive: true });
	const remove = () => fs.rmSync(dir, { recursive: true, force: true });
	return { env: n8n.n8nEnv(dir), n8nDir: path.join(dir, '.n8n'), remove };
}

/**
 * The credentials global-setup.ts imports (their ids are the workflows'), pointing nowhere: a
 * file's n8n saves its service's into them (fileServer).
 */
export const PLACEHOLDER_ACCESS: ServiceAccess = {
	baseUrl: 'http://127.0.0.1:9',
	apiKey: 'placeholder',
	demoUser: { email: 'placeholder@example.com', password: 'placeholder' },
	freeUser: { email: 'placeholder-free@example.com', password: 'placeholder' },
};

/** The good login, a wrong password, an account without the Business plan, for `service`. */
export function credentialsFor(access: ServiceAccess): Json[] {
	const file = path.join(REPO, 'examples/credentials/website-export-emulator.json');
	const [template] = readJson(file);
	const { baseUrl, apiKey, demoUser } = access;
	const login = { baseUrl, apiKey, email: demoUser.email, password: demoUser.password };
	const credential = (id: string, name: string, data: Json) => ({
		id,
		name,
		type: CREDENTIAL_TYPE,
		data,
	});
	return [
		{ ...template, data: { ...template.data, ...login } },
		credential('website-export-bad-password', 'Website Export (wrong password)', {
			...login,
			password: WRONG_PASSWORD,
		}),
		credential('website-export-free-plan', 'Website Export (no Business plan)', {
			...login,
			...access.freeUser,
		}),
	];
}

/** The test file's own `n8n start`, started by its first workflow run (execute). */
let server: N8nServer | undefined;
let serverEnv: n8n.N8nEnvExtra = {};

/**
 * n8n without its editor: the editor's files cost about 5 s of CPU at every start, and only the
 * node types n8n serves (`/types/nodes.json`) and its settings route need them.
 */
export const NO_EDITOR = { N8N_DISABLE_UI: 'true' };

/**
 * The test file's own service stand-in and its own copy of the prepared n8n: files share
 * nothing, so that jest runs two side by side. Its workflow runs go to one `n8n start` of that
 * copy (`hostEnv`: variables of that n8n's host), without its editor unless `editor`, whose
 * credentials point at that service.
 */
export function useOwnStack({
	hostEnv = {},
	editor = false,
}: { hostEnv?: n8n.N8nEnvExtra; editor?: boolean } = {}): void {
	let remove = (): void => undefined;
	beforeAll(async () => {
		const copy = copyUserFolder('file');
		({ env, n8nDir, remove } = copy);
		serverEnv = editor ? hostEnv : { ...NO_EDITOR, ...hostEnv };
		service = await startServiceProcess({ jobMs: JOB_MS });
	}, 120_000);
	afterAll(async () => {
		await server?.stop();
		server = undefined;
		await service?.stop();
		remove();
	});
}

/** The seed rows of every scenario: an expired and a valid download (with their jobs), an option. */
export async function resetService(): Promise<{ expired: Json; valid: Json; option: Json }> {
	await service.reset();
	const now = await service.now();
	const job = (id: number, label: string, files: number, ageMs: number) => ({
		id,
		url: `https://${label}.seed.e2e.example.com/`,
		email: 'seed@e2e.example.com',
		status: 'finished',
		files,
		created_at: iso(now - ageMs),
	});
	await service.insert('jobs', [
		job(900, 'expired', 3, DAY_MS + 3_600_000),
		job(901, 'valid', 5, 7_200_000),
	]);
	const [expired, valid] = await service.insert('downloads', [
		{ id: 900, job_id: 900, created_at: iso(now - DAY_MS - 60_000) },
		{ id: 901, job_id: 901, created_at: iso(now - 3_600_000) },
	]);
	const [option] = await service.insert('options', [
		{ mode: 'absolute', replace_url: 'https://seed-mirror.e2e.example.com' },
	]);
	return { expired, valid, option };
}

/** Where the workflows every e2e n8n imports are kept: the README's examples and the suites' own. */
const WORKFLOW_FOLDERS = ['examples', 'test/e2e/workflows'].map((dir) => path.join(REPO, dir));

/** A workflow of those folders by its file name. */
export function workflowFile(name: string): Json {
	const file = WORKFLOW_FOLDERS.map((dir) => path.join(dir, `${name}.json`)).find((candidate) =>
		fs.existsSync(candidate),
	);
	if (!file) throw new Error(`no workflow file ${name}.json`);
	return readJson(file);
}

/** Every workflow of those folders, by file name. */
export function fileWorkflows(): Record<string, Json> {
	const workflows: Record<string, Json> = {};
	for (const dir of WORKFLOW_FOLDERS)
		for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')))
			workflows[file.replace(/\.json$/, '')] = readJson(path.join(dir, file));
	return workflows;
}

/**
 * A run of a workflow by id on the file's n8n (started by the first run), as the editor's Execute
 * Workflow runs it; never retried: a run changes the service.
 */
export async function execute(id: string): Promise<RunResult> {
	return await (await fileServer()).runManually(id);
}

/** Saves a workflow built in code on `server` as the editor saves a new one: inactive, under the ids n8n gives it. */
export function createWorkflow(server: N8nServer, workflow: Json): Promise<Json> {
	const { name, nodes, connections, settings } = workflow;
	return server.rest('POST', '/rest/workflows', {
		name,
		active: false,
		nodes,
		connections,
		settings,
	});
}

/**
 * `credential` created on `server` as its dialog saves one, then each workflow pointed at it (its
 * nodes changed in place), saved as the editor saves a new one and activated by its toggle.
 */
export async function saveActiveWithCredential(
	server: N8nServer,
	credential: { name: string; type: string; data: Json },
	workflows: Json[],
): Promise<Json[]> {
	const { id } = await server.rest('POST', '/rest/credentials', credential);
	const saved = [];
	for (const workflow of workflows) {
		for (const node of workflow.nodes)
			if (node.credentials?.[credential.type])
				node.credentials[credential.type] = { id, name: credential.name };
		const created = await createWorkflow(server, workflow);
		await server.activate(created);
		saved.push(created);
	}
	return saved;
}

/** Runs a workflow built in the test: created on the file's n8n, then run as execute() runs one. */
export async function executeBuilt(workflow: Json): Promise<RunResult> {
	const n8nServer = await fileServer();
	return await n8nServer.runManually(await createWorkflow(n8nServer, workflow));
}

/** The file's `n8n start`, started on first use, its credentials saved with the file's service. */
export async function fileServer(): Promise<N8nServer> {
	server ??= await startWithCredentials(n8n.n8nEnv(path.dirname(n8nDir), serverEnv));
	return server;
}

/**
 * `n8n start` of a copy, then the credentials global-setup.ts imported saved with `service`'s
 * (over REST, as the credential dialog saves them: no boot of n8n's command line per file).
 */
export async function startWithCredentials(
	serverEnvironment: NodeJS.ProcessEnv,
	credentials: Json[] = credentialsFor(service),
): Promise<N8nServer> {
	const started = await n8n.startN8n({ env: serverEnvironment, timeoutMs: 180_000 });
	try {
		for (const credential of credentials) await started.updateCredential(credential);
	} catch (error) {
		await started.stop();
		throw error;
	}
	return started;
}

/** Runs a workflow file's workflow; it must succeed. */
export async function runOk(name: string): Promise<RunResult> {
	const r = await execute(workflowFile(name).id);
	assert.ok(
		r.ok,
		`${name}: run ${r.status} after ${seconds(r.durationMs)}: ${r.error?.message ?? 'no error'} (last node ${r.lastNode})`,
	);
	return r;
}

/** Prints what a test found (`ok  <test>: details`), the figures the closing notes quote; a concurrent test names itself. */
export function report(details: string, test = expect.getState().currentTestName): void {
	const name = test ?? 'e2e';
	process.stdout.write(`ok  ${name}: ${details.split('\n').join('\n      ')}\n`);
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
export const iso = (t: number): string => new Date(t).toISOString();
/** ms of a Postgres timestamp (`…47.487179+00:00`); JS dates hold milliseconds only. */
export const ms = (ts: unknown): number => Date.parse(String(ts).replace(/(\.\d{3})\d+/, '$1'));

/** A download as every output carries it: expiry fields right, link an archive link. */
export function assertDownload(d: Json, { expired = false, what = 'download' } = {}): void {
	assert.ok(Number.isInteger(d.id) && d.id > 0, `${what}: id ${d.id}`);
	assert.equal(
		ms(d.expires_at),
		ms(d.created_at) + DAY_MS,
		`${what} #${d.id}: expires_at ${d.expires_at} is not created_at ${d.created_at} + 24 h`,
	);
	assert.equal(d.is_expired, expired, `${what} #${d.id}: is_expired ${d.is_expired}`);
	assert.match(
		String(d.download_link),
		/^http:\/\/127\.0\.0\.1:\d+\/storage\/v1\/object\/public\/exports\/[^/]+\.zip$/,
		`${what} #${d.id}: download_link ${d.download_link}`,
	);
}

export function assertPaired(items: Item[], what: string): void {
	items.forEach((item, index) =>
		assert.deepEqual(item.pairedItem, { item: index }, `${what}: item ${index} pairedItem`),
	);
}

/** Items (with binary and pairedItem) a node emitted; throws with the run's error if it did not run. */
export function outputOf(r: RunResult, nodeName: string): Item[] {
	const items = r.items(nodeName, true);
	if (!items)
		throw new assert.AssertionError({
			message: `node "${nodeName}" did not run${r.error ? `: ${r.error.message}` : ''}`,
		});
	return items;
}

export const jsonOf = (items: Item[]): Json[] => items.map((i) => i.json);

/** Where n8n's filesystem binary data mode keeps a file: <N8N_USER_FOLDER>/.n8n/storage/<id path>. */
export function binaryFile(id: string): string {
	const rel = String(id).replace(/^filesystem(-v2)?:/, '');
	for (const root of ['storage', 'binaryData']) {
		const file = path.join(n8nDir, root, rel);
		if (fs.existsSync(file)) return file;
	}
	throw new assert.AssertionError({
		message: `binary file ${rel} not found under ${n8nDir}`,
	});
}

/** Size of a binary: 2.x metadata has `bytes`; 1.x only a human-readable fileSize, so the stored file's size. */
export function bytesOf(b: Json): number {
	return typeof b.bytes === 'number' ? b.bytes : fs.statSync(binaryFile(b.id)).size;
}

/** Every entry of a ZIP inflated by adm-zip, which checks each CRC-32; throws saying what is wrong. */
export function inspectZip(buf: Buffer): { entries: Array<{ name: string; size: number }> } {
	assert.ok(
		buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50,
		'the ZIP signature PK\\x03\\x04',
	);
	const entries = new AdmZip(buf).getEntries().map((entry) => {
		const data = entry.getData(); // throws when the CRC-32 does not match
		assert.equal(data.length, entry.header.size, `${entry.entryName}: size`);
		return { name: entry.entryName, size: data.length };
	});
	return { entries };
}

/** The Set node's parameters that output one item with the field `items`. */
export const itemsParameters = (id: string, items: Json[]): Json => ({
	mode: 'manual',
	assignments: {
		assignments: [
			{ id: `${id}-items`, name: 'items', value: `={{ ${JSON.stringify(items)} }}`, type: 'array' },
		],
	},
	includeOtherFields: false,
	options: {},
});

/** A running `n8n start` (stack/n8n/server.js). */
export type N8nServer = Awaited<ReturnType<typeof n8n.startN8n>>;

/**
 * After each test of the file, the server's log has no error line but one per tool call the test
 * made fail (`expectFailedTool`): n8n logs those at level error.
 */
export function checkServerLog(server: () => N8nServer | undefined): {
	expectFailedTool(name: string): void;
} {
	let mark = 0;
	let expected: string[] = [];
	const errorLines = () =>
		(server()?.logs() ?? []).slice(mark).filter((line: Json) => line.level === 'error');
	beforeEach(() => {
		mark = server()?.logs().length ?? 0;
		expected = [];
	});
	afterEach(async () => {
		// n8n logs a failed tool call just after it answered it.
		await n8n
			.waitFor(() => errorLines().length >= expected.length, {
				timeoutMs: 2000,
				intervalMs: 100,
				failure: () => new Error('fewer error lines than failed tool calls'),
			})
			.catch(() => undefined); // the assertions below say what came
		const lines = errorLines();
		const unexpected = lines.filter(
			(line: Json) => !expected.some((start) => String(line.message).startsWith(start)),
		);
		assert.deepEqual(
			unexpected.map((line: Json) => line.message),
			[],
			'error lines of n8n',
		);
		assert.equal(lines.length, expected.length, 'one error line per tool call made to fail');
	});
	return { expectFailedTool: (name) => expected.push(`Error while executing Tool ${name}: `) };
}
