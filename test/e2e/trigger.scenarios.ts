/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: `n8n start` with the trigger example activated: the pack served over REST, the trigger live
// over three poll cycles (each download exactly once), and n8n's own credential test.
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import {
	assertEachOnce,
	collectFinishedExecutions,
	countIds,
	insertFinishedDownloads,
	isTriggerPoll,
	waitForTriggerPoll,
} from './trigger-runs';
import {
	CREDENTIAL_TYPE,
	JOB_MS,
	NODE_TYPE,
	PACKAGE,
	TOOL_TYPE,
	TRIGGER_TYPE,
	WRONG_PASSWORD,
	assertDownload,
	checkServerLog,
	fileServer,
	report,
	resetService,
	seconds,
	service,
	workflowFile,
	type Json,
	type N8nServer,
	credentialsFor,
} from './suite';

// Registered by editor-n8n.test.ts, inside its describe block, on its n8n.
const CYCLE_TIMEOUT_MS = 150_000; // n8n polls every minute at most: one cycle ≤ 60 s plus the run
const workflow = workflowFile('trigger-download-ready');

/** One execution of the live trigger as the test reads it. */
interface TriggerExecution {
	id: string;
	mode: string;
	status: string;
	error: Json;
	items: Json[];
	notification: Json[];
}

let srv: N8nServer | undefined;
let baseline: Json;
let seqBefore = 0;
let serial = 0;
/** One finished job and its download per label, created `ageMs` before the service's now, in one statement. */
const insertDownloads = (labels: string[], ageMs = 0) =>
	insertFinishedDownloads(service, labels, {
		email: 'trigger@e2e.example.com',
		nextFiles: () => 1 + ++serial,
		ageMs,
		jobMs: JOB_MS,
	});

beforeAll(async () => {
	await resetService();
	// Older than a poll without state looks back (one poll interval + 10 min): never emitted.
	[baseline] = await insertDownloads(['baseline'], 30 * 60_000);
	seqBefore = await service.lastSeq();
	srv = await fileServer();
	// Activated as the editor's toggle does: the activation poll takes the baseline.
	await srv.activate(workflow.id);
});
checkServerLog(() => srv);

test('n8n start serves the pack (types over REST)', async () => {
	const server = srv as N8nServer;
	const nodeTypes = await server.nodeTypes();
	assert.deepEqual(
		(nodeTypes.byPackage[PACKAGE] || []).sort(),
		[NODE_TYPE, TOOL_TYPE, TRIGGER_TYPE],
		'node types',
	);
	const cred = (await server.credentialTypes()).find((c: Json) => c.name === CREDENTIAL_TYPE);
	assert.ok(cred, `credential type ${CREDENTIAL_TYPE}`);
	for (const type of [NODE_TYPE, TRIGGER_TYPE])
		assert.ok(
			cred.supportedNodes.includes(type),
			`supportedNodes ${cred.supportedNodes} lacks ${type}`,
		);
	report(
		`n8n ready in ${seconds(server.startMs)}; the 3 node types, ${CREDENTIAL_TYPE} ("${cred.displayName}") for ${cred.supportedNodes.join(', ')}`,
	);
});

const containing = (executions: Map<string, TriggerExecution>, id: number) =>
	[...executions.values()].filter((x) => x.items.some((d) => d.id === id));

/** Waits until the trigger emitted every row; one successful execution holds them all. */
async function pollCycle(
	rows: Json[],
	labels: string[],
	executions: Map<string, TriggerExecution>,
	collect: () => Promise<void>,
) {
	await n8n.waitFor(
		async () => {
			await collect();
			return rows.every((d) => containing(executions, d.id).length > 0);
		},
		{
			timeoutMs: CYCLE_TIMEOUT_MS,
			intervalMs: 1000,
			failure: () =>
				new Error(
					`downloads ${rows.map((d) => `#${d.id}`)} not emitted within ${CYCLE_TIMEOUT_MS / 1000} s; executions: ${JSON.stringify([...executions.values()].map((x) => ({ id: x.id, status: x.status, ids: x.items.map((d) => d.id) })))}`,
				),
		},
	);
	const execs = [...new Set(rows.flatMap((d) => containing(executions, d.id)))];
	assert.equal(
		execs.length,
		1,
		`one execution holds the whole batch (inserted in one statement): ${execs.map((x) => x.id)}`,
	);
	const [x] = execs;
	assert.deepEqual([x.mode, x.status], ['trigger', 'success'], `execution (${x.error?.message})`);
	for (const [index, row] of rows.entries()) {
		const item = x.items.find((d) => d.id === row.id);
		assertDownload(item, { what: 'emitted download' });
		assert.equal(
			item.job.url,
			`https://${labels[index]}.trigger.e2e.example.com/`,
			'job.url (Include Job)',
		);
		assert.equal(item.job.status, 'finished', 'job.status');
		assert.deepEqual(
			x.notification[x.items.indexOf(item)],
			{
				site: item.job.url,
				recipient: item.job.email,
				downloadLink: item.download_link,
				expiresAt: item.expires_at,
				files: item.job.files,
			},
			'Prepare Notification item',
		);
	}
	return x;
}

test('the trigger emits each new download exactly once over three poll cycles (live)', async () => {
	const server = srv as N8nServer;
	// Activation polls once (the baseline): only after it may new downloads go in.
	await waitForTriggerPoll(
		service,
		seqBefore,
		60_000,
		`no poll of the trigger within 60 s of n8n being ready; server log: ${server.logFile}`,
	);
	const executions = new Map<string, TriggerExecution>();
	const collect = () =>
		collectFinishedExecutions(server, workflow.id, executions, (full, id) => ({
			id,
			mode: full.mode,
			status: full.status,
			error: full.data?.resultData?.error,
			items: n8n.nodeItems(full, 'Website Export Trigger') || [],
			notification: n8n.nodeItems(full, 'Prepare Notification') || [],
		}));
	const inserted: Json[] = [];
	const cycles: string[] = [];
	let previous: TriggerExecution | undefined;
	for (const labels of [['cycle-1'], ['cycle-2a', 'cycle-2b'], ['cycle-3']]) {
		const rows = await insertDownloads(labels);
		inserted.push(...rows);
		const insertedAt = Date.now();
		const x = await pollCycle(rows, labels, executions, collect);
		assert.notEqual(x.id, previous?.id, 'a later poll than the previous cycle');
		previous = x;
		cycles.push(
			`${rows.map((d) => `#${d.id}`).join(' + ')} in execution ${x.id} ${seconds(Date.now() - insertedAt)} after the insert`,
		);
	}
	await collect();
	const all = [...executions.values()];
	const counts = countIds(all.map((x) => x.items.map((d) => d.id)));
	assertEachOnce(counts, inserted);
	assert.ok(
		!counts.has(baseline.id),
		`baseline download #${baseline.id} (inserted before activation) was emitted`,
	);
	const polls = (await service.log()).filter((e) => e.seq > seqBefore && isTriggerPoll(e));
	assert.ok(
		polls.every((e) => e.status === 200 || e.status === 206),
		`poll statuses ${polls.map((e) => e.status)}`,
	);
	report(
		`${cycles.join('; ')}; each exactly once, baseline #${baseline.id} never; ${polls.length} polls (activation + one a minute)`,
	);
});

test("n8n's credential test tells a good login, a wrong password and no Business plan apart", async () => {
	const server = srv as N8nServer;
	// What the dialog sends: the credential's id (n8n checks access to it) and the form's data.
	const results = [];
	for (const { id, name, type, data } of credentialsFor(service))
		results.push(
			await server.rest('POST', '/rest/credentials/test', {
				credentials: { id, name, type, data },
			}),
		);
	const [good, wrongPassword, noPlan] = results;
	assert.deepEqual(good, { status: 'OK', message: 'Connection successful!' }, 'good login');
	assert.equal(wrongPassword.status, 'Error');
	assert.match(
		wrongPassword.message,
		/^Login failed \(Invalid login credentials\): check the email and password/,
	);
	assert.equal(noPlan.status, 'Error');
	assert.match(noPlan.message, /no active Business plan subscription/, 'no Business plan');
	for (const secret of [WRONG_PASSWORD, service.freeUser.password, service.apiKey])
		assert.ok(!JSON.stringify([wrongPassword, noPlan]).includes(secret), 'a secret in a message');
	report(`OK; "${wrongPassword.message}"; "${noPlan.message}"`);
});
