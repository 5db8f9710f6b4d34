/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the node as MCP tools (issue 18), seen by the official MCP SDK client over Streamable HTTP
// at /mcp/<path> of `n8n start`: what each call wrote is checked in the service's rows, and bad
// input must come back as a tool error that names the field and sends nothing.
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';

import * as n8n from '../../stack/n8n/lib';
import {
	checkServerLog,
	fileServer,
	prepared,
	report,
	resetService,
	service,
	workflowFile,
	type Json,
	type N8nServer,
} from './suite';

// Registered by editor-n8n.test.ts, inside its describe block, on its n8n.
const SITE = 'https://mcp.e2e.example.com/';
const RECIPIENT = 'mcp@e2e.example.com';
const MIRROR = 'https://mcp-mirror.e2e.example.com/';
/** `.invalid` hosts fail in the service stand-in. */
const FAILING_SITE = 'https://unreachable.mcp.e2e.invalid/';
/** What the client must see of the example: each tool's inputs and their JSON Schema types. */
const EXAMPLE_INPUTS: Record<string, Record<string, string>> = {
	Check_Archive: { downloadId: 'number' },
	Export_Website: { url: 'string', email: 'string' },
	Find_Export_Jobs: { url: 'string' },
	Get_Export_Job: { jobId: 'number' },
	List_Download_Links: {},
};
const example = workflowFile('mcp-server');
const everyOperation = workflowFile('mcp-every-operation');

/** The SDK's client on /mcp/<path>: until n8n has activated the workflow the path is "not registered" (404). */
async function connect(workflow: Json): Promise<Client> {
	const trigger = workflow.nodes.find((node: Json) => node.type.endsWith('.mcpTrigger'));
	const url = new URL(`${(srv as N8nServer).baseUrl}/mcp/${trigger.parameters.path}`);
	return n8n.waitFor(
		async () => {
			const client = new Client({ name: 'website-export-e2e', version: '1.0.0' });
			try {
				await client.connect(new StreamableHTTPClientTransport(url));
				return client;
			} catch (error) {
				if (/is not registered/.test((error as Error).message)) return undefined;
				throw error;
			}
		},
		{
			timeoutMs: 60_000,
			intervalMs: 500,
			failure: () => new Error(`${url} not registered after 60 s`),
		},
	);
}

const textOf = (result: Json): string =>
	(result.content as Array<{ text?: string }>).map((part) => part.text).join('');

/** A successful call's answer: n8n sends the output items' JSON as one JSON text. */
async function callOk(client: Client, name: string, args: Json): Promise<Json[]> {
	const result = await client.callTool({ name, arguments: args });
	assert.ok(!result.isError, `${name}(${JSON.stringify(args)}) failed: ${textOf(result)}`);
	return JSON.parse(textOf(result));
}

/** A call made to fail: a tool error (isError) with the node's message, which n8n logs at level error. */
async function failing(client: Client, name: string, args: Json): Promise<string> {
	log.expectFailedTool(name);
	const result = await client.callTool({ name, arguments: args });
	const text = textOf(result);
	assert.equal(
		result.isError,
		true,
		`${name}(${JSON.stringify(args)}) should fail, answered: ${text}`,
	);
	// n8n puts the error's name first: `NodeOperationError: ` (2.x) or `Error: ` (1.x).
	assert.match(text, /^\w*Error: /, `${name}: an error's text`);
	return text.replace(/^\w*Error: /, '');
}

/** Rows written (requests other than GET) while `fn` ran. */
async function writesDuring<T>(fn: () => Promise<T>) {
	const before = await service.lastSeq();
	const result = await fn();
	const writes = (await service.log()).filter(
		(e) => e.seq > before && e.kind === 'rest' && e.method !== 'GET',
	);
	return { result, writes };
}

let srv: N8nServer | undefined;
let clients: { example: Client; every: Client };
let expiredId: number;
let exported: Promise<Json> | undefined;
/** The job Export_Website created (made by the first test that needs it). */
const exportedJob = () =>
	(exported ??= callOk(clients.example, 'Export_Website', { url: SITE, email: RECIPIENT }).then(
		([job]) => job,
	));
const call = async (name: string, args: Json) => (await callOk(clients.every, name, args))[0];
const log = checkServerLog(() => srv);

// Where n8n has the MCP Server Trigger (its LangChain nodes package): every test, else none.
const mcpTest = prepared?.mcp ? test : test.skip;

beforeAll(async () => {
	if (!prepared?.mcp) return;
	expiredId = (await resetService()).expired.id;
	srv = await fileServer();
	// Published as the editor's toggle publishes them: the MCP paths are served from then on.
	for (const workflow of [example, everyOperation]) await srv.activate(workflow.id);
	clients = { example: await connect(example), every: await connect(everyOperation) };
});
afterAll(async () => {
	await clients?.example.close();
	await clients?.every.close();
});

mcpTest('the example lists its tools', async () => {
	const { tools } = await clients.example.listTools();
	const descriptions = Object.fromEntries(
		example.nodes
			.filter((node: Json) => node.parameters.toolDescription)
			.map((node: Json) => [node.name.replace(/ /g, '_'), node.parameters.toolDescription]),
	);
	assert.deepEqual(
		tools.map((tool) => tool.name).sort(),
		Object.keys(EXAMPLE_INPUTS),
		'tool names',
	);
	for (const tool of tools) {
		assert.equal(tool.description, descriptions[tool.name], `${tool.name}: description`);
		const properties = (tool.inputSchema.properties ?? {}) as Record<
			string,
			{ type?: string; description?: string }
		>;
		const types = Object.fromEntries(
			Object.entries(properties).map(([key, schema]) => [key, schema.type]),
		);
		assert.deepEqual(types, EXAMPLE_INPUTS[tool.name], `${tool.name}: inputs`);
		assert.deepEqual(
			(tool.inputSchema.required ?? []).sort(),
			Object.keys(types).sort(),
			`${tool.name}: every input required`,
		);
		for (const [key, schema] of Object.entries(properties))
			assert.ok(
				String(schema.description ?? '').length > 10,
				`${tool.name}.${key}: a description for the model`,
			);
	}
	// A wait longer than the client's request timeout would end in the client's error, not the node's.
	const { timeout } = example.nodes.find(
		(node: Json) => node.parameters.waitForCompletion,
	).parameters;
	assert.ok(timeout * 1000 < DEFAULT_REQUEST_TIMEOUT_MSEC, `Export Website waits ${timeout} s`);
	report(
		tools
			.map(
				(tool) =>
					`${tool.name}(${Object.keys(tool.inputSchema.properties ?? {}).join(', ')}): ${tool.description}`,
			)
			.join('\n'),
	);
});

mcpTest(
	'bad input is a tool error naming the field, nothing created (Export_Website)',
	async () => {
		const jobsBefore = (await service.rows('jobs')).length;
		const { result: text, writes } = await writesDuring(() =>
			failing(clients.example, 'Export_Website', { url: 'example dot com', email: RECIPIENT }),
		);
		assert.match(
			text,
			/^Invalid input: URL must be a full http:\/\/ or https:\/\/ address/,
			"the node's own message",
		);
		assert.deepEqual(writes, [], 'requests that write');
		assert.equal((await service.rows('jobs')).length, jobsBefore, 'jobs in the service');
	},
);

mcpTest(
	'Export_Website creates the job and waits for it (job.create, Wait for Completion)',
	async () => {
		const job = await exportedJob();
		assert.equal(job.status, 'finished', 'status');
		assert.equal(job.download.job_id, job.id, 'download of the job');
		assert.match(
			job.download.download_link,
			/^http:\/\/127\.0\.0\.1:\d+\/storage\/v1\/object\/public\/exports\/[^/]+\.zip$/,
		);
		assert.equal(job.download.is_expired, false, 'is_expired');
		const stored = (await service.rows('jobs')).filter((row) => row.url === SITE);
		assert.deepEqual(
			stored.map((row) => [row.id, row.email, row.status]),
			[[job.id, RECIPIENT, 'finished']],
			'the one job in the service',
		);
		report(
			`job #${job.id} finished; download #${job.download.id} expires_at ${job.download.expires_at}`,
		);
	},
);

mcpTest("a failed export is a tool error with the node's message (Export_Website)", async () => {
	const text = await failing(clients.example, 'Export_Website', {
		url: FAILING_SITE,
		email: RECIPIENT,
	});
	assert.match(text, /^The export of job \d+ failed/, 'the failed export');
	assert.match(text, /Check that the address is public and reachable/, 'what to do');
});

mcpTest(
	'Get_Export_Job, Find_Export_Jobs, List_Download_Links (job.get By ID, job.getAll, download.getAll)',
	async () => {
		const job = await exportedJob();
		const [got] = await callOk(clients.example, 'Get_Export_Job', { jobId: job.id });
		assert.deepEqual([got.id, got.url, got.status], [job.id, SITE, 'finished'], 'Get_Export_Job');
		const found = await callOk(clients.example, 'Find_Export_Jobs', { url: SITE });
		assert.deepEqual(
			found.map((row) => row.id),
			[job.id],
			'Find_Export_Jobs',
		);
		const links = await callOk(clients.example, 'List_Download_Links', {});
		const now = await service.now(); // validity is judged by the service's clock
		const valid = (await service.rows('downloads')).filter(
			(row) => Date.parse(row.created_at) + 24 * 3_600_000 > now,
		).length;
		assert.equal(links.length, Math.min(valid, 20), 'one per valid download, at most 20');
		assert.ok(
			links.some((link) => link.id === job.download.id) &&
				links.every((link) => link.is_expired === false),
			'the new link in, expired ones out',
		);
		const missing = await failing(clients.example, 'Get_Export_Job', { jobId: 987654 });
		assert.match(missing, /^No job with ID 987654 was found/, 'an unknown job');
	},
);

mcpTest(
	'Check_Archive gives the link, file name, size and expiry as JSON (download.downloadArchive By ID)',
	async () => {
		const job = await exportedJob();
		const [archive, ...more] = await callOk(clients.example, 'Check_Archive', {
			downloadId: job.download.id,
		});
		assert.equal(more.length, 0, 'one item');
		assert.equal(archive.download_link, job.download.download_link, 'download_link');
		assert.equal(archive.fileName, job.download.download_link.split('/').pop(), 'fileName');
		assert.ok(
			Number.isInteger(archive.fileSize) && archive.fileSize > 0,
			`fileSize ${archive.fileSize}`,
		);
		assert.deepEqual(
			[archive.expires_at, archive.is_expired],
			[job.download.expires_at, false],
			'expiry',
		);
		assert.ok(!('binary' in archive) && !('data' in archive), 'no binary data for the agent');
		const expired = await failing(clients.example, 'Check_Archive', { downloadId: expiredId });
		assert.match(
			expired,
			new RegExp(`^The download link of download ${expiredId} expired on `),
			'an expired link',
		);
	},
);

mcpTest(
	'option create, get By Another Field, getAll, update, delete as tools; a refused write sends nothing',
	async () => {
		const job = await exportedJob();
		const optionRow = async (id: number) =>
			(await service.rows('options')).find((row) => row.id === id);
		const bad = { mode: 'absolute', relativePath: '', replaceUrl: 'mirror', jobId: job.id };
		const { result: refused, writes } = await writesDuring(() =>
			failing(clients.every, 'Create_Option', bad),
		);
		assert.match(refused, /^Invalid input: Replace URL must be a full http/, 'a bad write');
		assert.deepEqual(writes, [], 'nothing sent after the refused write');
		const option = await call('Create_Option', { ...bad, replaceUrl: MIRROR });
		assert.deepEqual(await optionRow(option.id), option, 'option.create: the stored row');
		assert.deepEqual(
			[option.job_id, option.mode, option.replace_url],
			[job.id, 'absolute', MIRROR],
			'option.create',
		);
		assert.equal(
			(await call('Get_Option_By_Job', { jobId: job.id })).id,
			option.id,
			'option.get By Another Field',
		);
		const listed = await callOk(clients.every, 'List_Options_Of_Job', { jobId: job.id });
		assert.deepEqual(
			listed.map((row) => row.id),
			[option.id],
			'option.getAll by Job ID',
		);
		const moved = `${MIRROR}moved/`;
		assert.equal(
			(await call('Update_Option', { optionId: option.id, replaceUrl: moved })).replace_url,
			moved,
			'option.update',
		);
		assert.equal((await optionRow(option.id))?.replace_url, moved, 'option.update: the stored row');
		assert.equal(
			(await call('Delete_Option', { optionId: option.id })).deleted,
			true,
			'option.delete',
		);
		assert.equal(await optionRow(option.id), undefined, 'option.delete: the row is gone');
	},
);

mcpTest(
	'download get By Another Field, archive By Link; job update By URL, delete By Another Field',
	async () => {
		const job = await exportedJob();
		assert.equal(
			(await call('Get_Download_Of_Job', { jobId: job.id })).id,
			job.download.id,
			'download.get By Another Field',
		);
		const archive = await call('Archive_By_Link', { link: job.download.download_link });
		assert.deepEqual(
			[archive.download_link, archive.fileName],
			[job.download.download_link, job.download.download_link.split('/').pop()],
			'download.downloadArchive By Link',
		);
		assert.ok(archive.fileSize > 0, `fileSize ${archive.fileSize}`);
		const otherSite = 'https://moved.mcp.e2e.example.com/';
		const [other] = await service.insert('jobs', [
			{ url: otherSite, email: RECIPIENT, status: 'finished', files: 1 },
		]);
		const newEmail = 'mcp-moved@e2e.example.com';
		assert.equal(
			(await call('Update_Job_By_URL', { url: otherSite, email: newEmail })).email,
			newEmail,
			'job.update By URL',
		);
		const stored = async () => (await service.rows('jobs')).find((row) => row.id === other.id);
		assert.equal((await stored())?.email, newEmail, 'job.update: the stored row');
		assert.equal(
			(await call('Delete_Job_By_Email', { email: newEmail })).id,
			other.id,
			'job.delete By Another Field',
		);
		assert.equal(await stored(), undefined, 'job.delete: the row is gone');
	},
);

mcpTest('Wait for Completion is bounded by its timeout (job.create, Timeout 1 s)', async () => {
	// The export takes 60 s for this call, so that the 1 s timeout expires whatever the machine's load.
	const { jobDurationMs } = await service.settings();
	const url = 'https://mcp-slow.e2e.example.com/';
	await service.patchSettings({ jobDurationMs: 60_000 });
	const text = await failing(clients.every, 'Export_With_1_s_Timeout', {
		url,
		email: RECIPIENT,
	}).finally(() => service.patchSettings({ jobDurationMs }));
	const [created] = (await service.rows('jobs')).filter((row) => row.url === url);
	assert.ok(created, 'the job was created');
	assert.match(
		text,
		new RegExp(`^Job ${created.id} is (still queued|still running) after 1 s`),
		'the timeout, with the job ID',
	);
	assert.match(text, new RegExp(`Job → Get with ID ${created.id}`), 'how to pick the job up later');
});
