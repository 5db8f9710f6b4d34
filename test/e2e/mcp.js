'use strict';
/**
 * Issue 18: the node as MCP tools, seen by the official MCP SDK client. The published workflows
 * (examples/mcp-server.json and workflows/mcp-every-operation.json, an MCP Server Trigger with
 * Website Export tools whose inputs come from $fromAI) are listed and called over Streamable
 * HTTP at /mcp/<path>; what each call wrote is checked in the emulator's rows, and bad input
 * must come back as a tool error that names the field and sends nothing.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { DEFAULT_REQUEST_TIMEOUT_MSEC } = require('@modelcontextprotocol/sdk/shared/protocol.js');

const n8n = require('../../stack/n8n/lib');
const { REPO } = require('./suite');

/** @typedef {import('./types').Json} Json */
/**
 * What the example's tool checks use: the connected SDK client, the emulator, `failing(client,
 * tool, args)` for a call made to fail, and the seeded expired download.
 * @typedef {{
 *   client: Client,
 *   emu: import('./types').Emulator,
 *   failing: (client: Client, name: string, args: Json) => Promise<string>,
 *   expiredDownloadId: number,
 * }} McpCalls
 * @typedef {McpCalls & { job: Json, call: (name: string, args: Json) => Promise<Json> }} OperationTools
 *   `call(tool, args)` resolves to the first item a tool answered
 * @typedef {Awaited<ReturnType<Client['listTools']>>['tools'][number]} Tool
 * @typedef {{ type?: string, description?: string }} InputSchema
 */

const EXAMPLE = path.join(REPO, 'examples/mcp-server.json');
const EVERY_OPERATION = path.join(REPO, 'test/e2e/workflows/mcp-every-operation.json');
const SITE = 'https://mcp.e2e.example.com/';
const RECIPIENT = 'mcp@e2e.example.com';
const MIRROR = 'https://mcp-mirror.e2e.example.com/';
/** `.invalid` hosts fail in the emulator: that job is the one updated and deleted later (the exported one stays for the later suites). */
const FAILING_SITE = 'https://unreachable.mcp.e2e.invalid/';

/**
 * What the client must see of the example: each tool's inputs and their JSON Schema types.
 * @type {Record<string, Record<string, string>>}
 */
const EXAMPLE_INPUTS = {
	Check_Archive: { downloadId: 'number' },
	Export_Website: { url: 'string', email: 'string' },
	Find_Export_Jobs: { url: 'string' },
	Get_Export_Job: { jobId: 'number' },
	List_Download_Links: {},
};

/** @returns {Json} */
const readWorkflow = (/** @type {string} */ file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const triggerPath = (/** @type {Json} */ workflow) =>
	workflow.nodes.find((/** @type {Json} */ node) => node.type.endsWith('.mcpTrigger')).parameters
		.path;

/** Whether the provisioned n8n has the MCP Server Trigger (its LangChain nodes package). */
async function mcpSupported() {
	const p = await n8n.provision();
	const trigger =
		'node_modules/@n8n/n8n-nodes-langchain/dist/nodes/mcp/McpTrigger/McpTrigger.node.js';
	return [p.prefix, path.join(p.prefix, 'node_modules/n8n')].some((dir) =>
		fs.existsSync(path.join(dir, trigger)),
	);
}

/**
 * Publishes both MCP workflows (imported with examples/ and workflows/): served from the next `n8n start`.
 * @param {import('./types').Env} env
 */
async function publishMcpWorkflows(env) {
	for (const file of [EXAMPLE, EVERY_OPERATION])
		await n8n.publishWorkflow(readWorkflow(file).id, { env });
}

/**
 * The SDK's client on /mcp/<path> of the running n8n (Streamable HTTP). n8n answers before it has
 * activated the published workflows: until then the path is "not registered" (404).
 * @param {string} baseUrl
 * @param {Json} workflow
 * @param {number} [timeoutMs]
 * @returns {Promise<Client>}
 */
async function connect(baseUrl, workflow, timeoutMs = 60_000) {
	const url = new URL(`${baseUrl}/mcp/${triggerPath(workflow)}`);
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const client = new Client({ name: 'website-export-e2e', version: '1.0.0' });
		try {
			await client.connect(new StreamableHTTPClientTransport(url));
			return client;
		} catch (error) {
			if (!/is not registered/.test(error.message) || Date.now() > deadline) throw error;
		}
		await n8n.sleep(500);
	}
}

/**
 * A successful call's answer: n8n sends the output items' JSON as one JSON text.
 * @param {Client} client
 * @param {string} name
 * @param {Json} args
 * @returns {Promise<Json[]>}
 */
async function callOk(client, name, args) {
	const result = await client.callTool({ name, arguments: args });
	const text = textOf(result);
	assert.ok(!result.isError, `${name}(${JSON.stringify(args)}) failed: ${text}`);
	return JSON.parse(text);
}

/**
 * The text parts of a tool's answer, joined.
 * @param {Awaited<ReturnType<Client['callTool']>>} result
 * @returns {string}
 */
const textOf = (result) =>
	/** @type {{ text?: string }[]} */ (result.content).map((part) => part.text).join('');

/**
 * A failed call's message: a tool error (isError), not a crash of the session. n8n puts the
 * error's name first, `NodeOperationError: ` (2.x) or `Error: ` (1.x): left out here.
 * @param {Client} client
 * @param {string} name
 * @param {Json} args
 * @returns {Promise<string>}
 */
async function callError(client, name, args) {
	const result = await client.callTool({ name, arguments: args });
	const text = textOf(result);
	assert.equal(
		result.isError,
		true,
		`${name}(${JSON.stringify(args)}) should fail, answered: ${text}`,
	);
	assert.match(text, /^\w*Error: /, `${name}: an error's text`);
	return text.replace(/^\w*Error: /, '');
}

/** One line per tool as the client listed it, for the suite's output (and the closing note). */
const toolLine = (/** @type {Tool} */ tool) => {
	const inputs = Object.entries(tool.inputSchema.properties || {}).map(
		([key, schema]) => `${key}: ${/** @type {InputSchema} */ (schema).type}`,
	);
	return `${tool.name}(${inputs.join(', ')}): ${tool.description}`;
};

/**
 * Rows written and requests sent to the service while `fn` ran.
 * @template T
 * @param {import('./types').Emulator} emu
 * @param {() => Promise<T>} fn
 */
async function serviceEffect(emu, fn) {
	const before = await emu.lastSeq();
	const result = await fn();
	const writes = (await emu.log()).filter(
		(e) => e.seq > before && e.kind === 'rest' && e.method !== 'GET',
	);
	return { result, writes };
}

/**
 * The example's tools as the SDK client lists them: names, descriptions, required described
 * inputs, and a wait shorter than the client's timeout; returns the details.
 * @param {Client} client
 * @param {Json} example the mcp-server workflow
 * @param {import('./types').Note} note
 */
async function listsItsTools(client, example, note) {
	const { tools } = await client.listTools();
	for (const tool of tools) note(`MCP tool  ${toolLine(tool)}`);
	const descriptions = Object.fromEntries(
		example.nodes
			.filter((/** @type {Json} */ node) => node.parameters.toolDescription)
			.map((/** @type {Json} */ node) => [
				node.name.replace(/ /g, '_'),
				node.parameters.toolDescription,
			]),
	);
	assert.deepEqual(
		tools.map((tool) => tool.name).sort(),
		Object.keys(EXAMPLE_INPUTS),
		'tool names',
	);
	for (const tool of tools) {
		assert.equal(tool.description, descriptions[tool.name], `${tool.name}: description`);
		const properties = tool.inputSchema.properties || {};
		const types = Object.fromEntries(
			Object.entries(properties).map(([key, schema]) => [
				key,
				/** @type {InputSchema} */ (schema).type,
			]),
		);
		assert.deepEqual(types, EXAMPLE_INPUTS[tool.name], `${tool.name}: inputs`);
		assert.deepEqual(
			(tool.inputSchema.required || []).sort(),
			Object.keys(types).sort(),
			`${tool.name}: every input required`,
		);
		for (const [key, schema] of Object.entries(properties))
			assert.ok(
				String(/** @type {InputSchema} */ (schema).description || '').length > 10,
				`${tool.name}.${key}: a description for the model`,
			);
	}
	// A wait longer than the client's request timeout would end in the client's error, not the node's.
	const { timeout } = example.nodes.find(
		(/** @type {Json} */ node) => node.parameters.waitForCompletion,
	).parameters;
	assert.ok(
		timeout * 1000 < DEFAULT_REQUEST_TIMEOUT_MSEC,
		`Export Website waits ${timeout} s, the SDK client ${DEFAULT_REQUEST_TIMEOUT_MSEC / 1000} s`,
	);
	return `${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}; descriptions as written in the workflow, every $fromAI key a required, described input; Export Website waits at most ${timeout} s (< the SDK client's ${DEFAULT_REQUEST_TIMEOUT_MSEC / 1000} s request timeout)`;
}

/**
 * The checks, with n8n serving the published workflows at srv.baseUrl. Resolves to the names of
 * the tools that were made to fail: n8n logs each such call at level error.
 * @param {{ srv: Json, emu: import('./types').Emulator, check: import('./types').Check, note: import('./types').Note, expiredDownloadId: number }} suite
 * @returns {Promise<string[]>}
 */
async function runMcp({ srv, emu, check, note, expiredDownloadId }) {
	const example = readWorkflow(EXAMPLE);
	const client = await connect(srv.baseUrl, example);
	/** @type {string[]} */
	const failedTools = [];
	/** A call made to fail: n8n logs it at level error, which the suite's log check leaves out. */
	/** @type {McpCalls['failing']} */
	const failing = async (toolClient, name, args) => {
		failedTools.push(name);
		return callError(toolClient, name, args);
	};
	try {
		await check('MCP: the example lists its tools (mcp-server, SDK client)', () =>
			listsItsTools(client, example, note),
		);

		await check(
			'MCP: bad input is a tool error naming the field, nothing created (Export_Website)',
			async () => {
				const jobsBefore = (await emu.rows('jobs')).length;
				const { result: text, writes } = await serviceEffect(emu, () =>
					failing(client, 'Export_Website', { url: 'example dot com', email: RECIPIENT }),
				);
				assert.match(
					text,
					/^Invalid input: URL must be a full http:\/\/ or https:\/\/ address/,
					"the node's own message",
				);
				assert.deepEqual(writes, [], 'requests that write');
				assert.equal((await emu.rows('jobs')).length, jobsBefore, 'jobs in the service');
				return `isError, "${text.split('\n')[0]}"; no write request, ${jobsBefore} jobs before and after`;
			},
		);

		const exported = await exampleCalls({ client, emu, check, failing, expiredDownloadId });
		if (exported) await everyOperation({ srv, emu, check, job: exported, failing });
	} finally {
		await client.close();
	}
	return failedTools;
}

/**
 * The reading tools find the exported job and its valid link; an unknown job is a tool error. Returns the details.
 * @param {McpCalls} calls
 * @param {Json} job the job Export_Website created
 */
async function readsJobsAndLinks({ client, emu, failing }, job) {
	const [got] = await callOk(client, 'Get_Export_Job', { jobId: job.id });
	assert.deepEqual([got.id, got.url, got.status], [job.id, SITE, 'finished'], 'Get_Export_Job');
	const found = await callOk(client, 'Find_Export_Jobs', { url: SITE });
	assert.deepEqual(
		found.map((row) => row.id),
		[job.id],
		'Find_Export_Jobs',
	);
	const links = await callOk(client, 'List_Download_Links', {});
	const now = await emu.now(); // validity is judged by the service's clock
	const valid = (await emu.rows('downloads')).filter(
		(row) => Date.parse(row.created_at) + 24 * 3_600_000 > now,
	).length;
	assert.equal(links.length, Math.min(valid, 20), 'one per valid download, at most 20');
	assert.ok(
		links.some((link) => link.id === job.download.id) &&
			links.every((link) => link.is_expired === false),
		'the new link in, expired ones out',
	);
	const missing = await failing(client, 'Get_Export_Job', { jobId: 987654 });
	assert.match(missing, /^No job with ID 987654 was found/, 'an unknown job');
	return `job #${got.id} ${got.status}; ${found.length} job for ${SITE}; ${links.length} valid links; unknown job: isError "${missing.split('\n')[0]}"`;
}

/**
 * Check_Archive describes the job's archive without its bytes; an expired one is a tool error. Returns the details.
 * @param {McpCalls} calls
 * @param {Json} job the job Export_Website created
 */
async function checksTheArchive({ client, failing, expiredDownloadId }, job) {
	const answer = await callOk(client, 'Check_Archive', { downloadId: job.download.id });
	assert.equal(answer.length, 1, 'one item');
	const [archive] = answer;
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
	const expired = await failing(client, 'Check_Archive', { downloadId: expiredDownloadId });
	assert.match(
		expired,
		new RegExp(`^The download link of download ${expiredDownloadId} expired on `),
		'an expired link',
	);
	return `${archive.fileName}, ${archive.fileSize} bytes, expires_at ${archive.expires_at}; expired #${expiredDownloadId}: isError "${expired.split('\n')[0]}"`;
}

/** The example's tools, one call each with what an agent would pass; resolves to the exported job. */
/** @param {McpCalls & { check: import('./types').Check }} calls */
async function exampleCalls({ client, emu, check, failing, expiredDownloadId }) {
	/** @type {Json} */
	let job;
	await check(
		'MCP: Export_Website creates the job and waits for it (job.create, Wait for Completion)',
		async () => {
			const started = Date.now();
			[job] = await callOk(client, 'Export_Website', { url: SITE, email: RECIPIENT });
			assert.equal(job.status, 'finished', 'status');
			assert.equal(job.download.job_id, job.id, 'download of the job');
			assert.match(
				job.download.download_link,
				/^http:\/\/127\.0\.0\.1:\d+\/storage\/v1\/object\/public\/exports\/[^/]+\.zip$/,
				'download_link',
			);
			assert.equal(job.download.is_expired, false, 'is_expired');
			const stored = (await emu.rows('jobs')).filter((row) => row.url === SITE);
			assert.deepEqual(
				stored.map((row) => [row.id, row.email, row.status]),
				[[job.id, RECIPIENT, 'finished']],
				'the one job in the service',
			);
			return `job #${job.id} finished in ${((Date.now() - started) / 1000).toFixed(1)} s; download #${job.download.id} ${job.download.download_link}, expires_at ${job.download.expires_at}`;
		},
	);
	if (!job) return undefined;

	await check(
		"MCP: a failed export is a tool error with the node's message (Export_Website)",
		async () => {
			const text = await failing(client, 'Export_Website', { url: FAILING_SITE, email: RECIPIENT });
			assert.match(text, /^The export of job \d+ failed/, 'the failed export');
			assert.match(text, /Check that the address is public and reachable/, 'what to do');
			return `isError "${text.replace(/\n+/g, ' ')}"`;
		},
	);

	await check(
		'MCP: Get_Export_Job, Find_Export_Jobs, List_Download_Links (job.get By ID, job.getAll, download.getAll)',
		() => readsJobsAndLinks({ client, emu, failing, expiredDownloadId }, job),
	);

	await check(
		'MCP: Check_Archive gives the link, file name, size and expiry as JSON (download.downloadArchive By ID)',
		() => checksTheArchive({ client, emu, failing, expiredDownloadId }, job),
	);
	return job;
}

/** The other operations, one tool each (workflows/mcp-every-operation.json), on the exported job. */
/**
 * @param {{ srv: Json, emu: import('./types').Emulator, check: import('./types').Check, job: Json, failing: McpCalls['failing'] }} suite
 */
async function everyOperation({ srv, emu, check, job, failing }) {
	const client = await connect(srv.baseUrl, readWorkflow(EVERY_OPERATION));
	/** @type {Omit<OperationTools, 'expiredDownloadId'>} */
	const tools = {
		client,
		emu,
		job,
		failing,
		call: (name, args) => callOk(client, name, args).then((items) => items[0]),
	};
	try {
		await check(
			'MCP: option create, get By Another Field, getAll, update, delete as tools; a refused write sends nothing',
			() => optionTools(tools),
		);
		await check(
			'MCP: download get By Another Field, archive By Link; job update By URL, delete By Another Field',
			() => jobAndDownloadTools(tools),
		);
		await check(
			'MCP: Wait for Completion is bounded by its timeout (job.create, Timeout 1 s)',
			() => waitTimeout(tools),
		);
	} finally {
		await client.close();
	}
}

/** @param {Omit<OperationTools, 'expiredDownloadId'>} tools */
async function optionTools({ client, emu, job, failing, call }) {
	const optionRow = async (/** @type {number} */ id) =>
		(await emu.rows('options')).find((row) => row.id === id);
	const bad = { mode: 'absolute', relativePath: '', replaceUrl: 'mirror', jobId: job.id };
	const { result: refused, writes } = await serviceEffect(emu, () =>
		failing(client, 'Create_Option', bad),
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
	const listed = await callOk(client, 'List_Options_Of_Job', { jobId: job.id });
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
	assert.equal((await optionRow(option.id)).replace_url, moved, 'option.update: the stored row');
	assert.equal(
		(await call('Delete_Option', { optionId: option.id })).deleted,
		true,
		'option.delete',
	);
	assert.equal(await optionRow(option.id), undefined, 'option.delete: the row is gone');
	return `refused write: isError "${refused.split('\n')[0]}", no request; option #${option.id} created for job #${job.id}, got by its job, listed, updated, deleted (each checked in the service's rows)`;
}

/** The job updated and deleted is the failed export's: the exported one and its download stay for the later suites. */
/** @param {Omit<OperationTools, 'expiredDownloadId'>} tools */
async function jobAndDownloadTools({ emu, job, call }) {
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
	const failed = (await emu.rows('jobs')).find((row) => row.url === FAILING_SITE);
	assert.ok(failed, `the job of ${FAILING_SITE}`);
	const newEmail = 'mcp-moved@e2e.example.com';
	assert.equal(
		(await call('Update_Job_By_URL', { url: FAILING_SITE, email: newEmail })).email,
		newEmail,
		'job.update By URL',
	);
	assert.equal(
		(await emu.rows('jobs')).find((row) => row.id === failed.id).email,
		newEmail,
		'job.update: the stored row',
	);
	assert.equal(
		(await call('Delete_Job_By_Email', { email: newEmail })).id,
		failed.id,
		'job.delete By Another Field',
	);
	assert.ok(
		!(await emu.rows('jobs')).some((row) => row.id === failed.id),
		'job.delete: the row is gone',
	);
	return `download #${job.download.id} got by its job; ${archive.fileName} by link (${archive.fileSize} bytes); failed job #${failed.id} updated By URL, deleted by its email (checked in the service's rows)`;
}

/** The emulated export takes 60 s for this one call, so that the 1 s timeout expires whatever the machine's load. */
/** @param {Omit<OperationTools, 'expiredDownloadId'>} tools */
async function waitTimeout({ client, emu, failing }) {
	const { jobDurationMs } = await emu.settings();
	const url = 'https://mcp-slow.e2e.example.com/';
	await emu.patchSettings({ jobDurationMs: 60_000 });
	let text;
	try {
		text = await failing(client, 'Export_With_1_s_Timeout', { url, email: RECIPIENT });
	} finally {
		await emu.patchSettings({ jobDurationMs });
	}
	const [created] = (await emu.rows('jobs')).filter((row) => row.url === url);
	assert.ok(created, 'the job was created');
	assert.match(
		text,
		new RegExp(`^Job ${created.id} is (still queued|still running) after 1 s`),
		'the timeout, with the job ID',
	);
	assert.match(text, new RegExp(`Job → Get with ID ${created.id}`), 'how to pick the job up later');
	return `isError "${text.split('\n')[0]}"; job #${created.id} stays in the service`;
}

module.exports = { mcpSupported, publishMcpWorkflows, runMcp };
