/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: `n8n start` with the trigger example activated: the pack served over REST, the trigger live
// over three poll cycles (each download exactly once), and n8n's own credential test.
// Required by editor-n8n.test.ts at its top level, after its workflow runs: the hook below starts
// the live trigger before the file's first test, on a service of its own (its polls add nothing to
// the workflow runs' request counts), so that its polls (every 10 s) go on while workflows run.
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import { startServiceProcess, type ServiceProcess } from '../../stack/service/launch';
import {
	assertEachOnce,
	collectFinishedExecutions,
	countIds,
	insertFinishedDownloads,
	isTriggerPoll,
	pollingEvery10s,
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
	saveActiveWithCredential,
	seconds,
	service,
	workflowFile,
	type Json,
	type N8nServer,
	credentialsFor,
} from './suite';

// A bound for a failure, not a wait: one cycle is a poll interval (10 s) plus the run.
const CYCLE_TIMEOUT_MS = 120_000;

/** One execution of the live trigger as the test reads it. */
interface TriggerExecution {
	id: string;
	mode: string;
	status: string;
	error: Json;
	items: Json[];
	notification: Json[];
}

/** What the three poll cycles found: every finished execution, the rows inserted, a line per cycle. */
interface LiveRun {
	executions: Map<string, TriggerExecution>;
	inserted: Json[];
	cycles: string[];
}

let srv: N8nServer | undefined;
/** The live trigger's own service stand-in, and its workflow as n8n stored it. */
let triggerService: ServiceProcess;
let workflow: Json;
let baseline: Json;
let seqBefore = 0;
let serial = 0;
let live: Promise<LiveRun>;
/** One finished job and its download per label, created `ageMs` before the service's now, in one statement. */
const insertDownloads = (labels: string[], ageMs = 0) =>
	insertFinishedDownloads(triggerService, labels, {
		email: 'trigger@e2e.example.com',
		nextFiles: () => 1 + ++serial,
		ageMs,
		jobMs: JOB_MS,
	});

/**
 * The trigger example saved as the editor saves it (polling every 10 s), with a credential of its
 * own for `triggerService`, then activated by its toggle.
 */
async function saveTriggerWorkflow(server: N8nServer): Promise<Json> {
	const [{ type, data }] = credentialsFor(triggerService);
	const credential = { name: 'Website Export (the live trigger)', type, data };
	const [saved] = await saveActiveWithCredential(server, credential, [
		pollingEvery10s(workflowFile('trigger-download-ready')),
	]);
	return saved;
}

beforeAll(async () => {
	triggerService = await startServiceProcess({ jobMs: JOB_MS });
	// Older than a poll without state looks back (one poll interval + 10 min): never emitted.
	[baseline] = await insertDownloads(['baseline'], 30 * 60_000);
	seqBefore = await triggerService.lastSeq();
	srv = await fileServer();
	// The activation poll takes the baseline.
	workflow = await saveTriggerWorkflow(srv);
	live = threePollCycles(srv);
	live.catch(() => undefined); // its test awaits it and fails with its error
}, 300_000);
afterAll(() => triggerService?.stop());

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

/**
 * The trigger's three poll cycles, from its activation poll on: one download, then two inserted in
 * one statement, then one more, each awaited until an execution emitted it.
 */
async function threePollCycles(server: N8nServer): Promise<LiveRun> {
	// Activation polls once (the baseline): only after it may new downloads go in.
	await waitForTriggerPoll(
		triggerService,
		seqBefore,
		60_000,
		`no poll of the trigger within 60 s of its activation; server log: ${server.logFile}`,
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
	return { executions, inserted, cycles };
}

describe('the live trigger, polling while the workflows run', () => {
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

	test('the trigger emits each new download exactly once over three poll cycles (live)', async () => {
		const { executions, inserted, cycles } = await live;
		const counts = countIds([...executions.values()].map((x) => x.items.map((d) => d.id)));
		assertEachOnce(counts, inserted);
		assert.ok(
			!counts.has(baseline.id),
			`baseline download #${baseline.id} (inserted before activation) was emitted`,
		);
		const polls = (await triggerService.log()).filter((e) => e.seq > seqBefore && isTriggerPoll(e));
		assert.ok(
			polls.every((e) => e.status === 200 || e.status === 206),
			`poll statuses ${polls.map((e) => e.status)}`,
		);
		report(
			`${cycles.join('; ')}; each exactly once, baseline #${baseline.id} never; ${polls.length} polls (activation + one every 10 s)`,
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
});
