/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: `n8n start` with the trigger example activated: the pack served over REST, the trigger live
// over three poll cycles (each download exactly once), then through polls a proxy breaks (issue
// 47: nothing lost, nothing twice), and n8n's own credential test.
// Required by editor-n8n.test.ts at its top level, after its workflow runs: the hook below starts
// the live trigger before the file's first test, on a service of its own (its polls add nothing to
// the workflow runs' request counts), so that its polls (every 10 s) go on while workflows run.
import assert from 'node:assert/strict';

import * as n8n from '../../stack/n8n/lib';
import { startServiceProcess, type ServiceProcess } from '../../stack/service/launch';
import type { LogEntry } from '../../stack/service/types';
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
let broken: Promise<BrokenPolls>;
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
	// Then the polls a proxy breaks, in the background too (the workflows may still be running).
	broken = live.then((run) => brokenPolls(srv as N8nServer, run));
	broken.catch(() => undefined);
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

/** Adds the live workflow's finished executions that `executions` does not hold yet. */
const collector = (server: N8nServer, executions: Map<string, TriggerExecution>) => () =>
	collectFinishedExecutions(server, workflow.id, executions, (full, id) => ({
		id,
		mode: full.mode,
		status: full.status,
		error: full.data?.resultData?.error,
		items: n8n.nodeItems(full, 'Website Export Trigger') || [],
		notification: n8n.nodeItems(full, 'Prepare Notification') || [],
	}));

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
	const collect = collector(server, executions);
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

/** A proxy's page in front of the service, as a 200 (a gateway's maintenance page). */
const PROXY_PAGE =
	'<!doctype html><html><head><title>Maintenance</title></head>' +
	'<body><h1>We will be back shortly</h1><hr><p>nginx</p></body></html>';
/** The error of a poll that met it (answerShape.ts). */
const HTML_PAGE_MESSAGE =
	'The service answered with an HTML page, not JSON: is a proxy in between?';
/** The attempts of one read in a poll: send.ts tries a broken answer again, as a 502, 4 times in all. */
const ATTEMPTS_PER_READ = 4;

/** One poll whose `table` read a proxy answered: the download it hid, what n8n ran from then on. */
interface BrokenPoll {
	table: 'downloads' | 'jobs';
	download: Json;
	/** The download's job as the service stored it. */
	job: Json;
	/** The executions from the fault on, up to the one that emitted the download. */
	executions: TriggerExecution[];
	/** The poll reads the proxy answered. */
	faulted: LogEntry[];
}

/** Both broken polls, and the executions of the two polls after them. */
interface BrokenPolls {
	polls: BrokenPoll[];
	later: TriggerExecution[];
}

/**
 * A proxy answers every attempt of the next poll's `table` read with its HTML page (the trigger
 * example reads the jobs: Include Job), while a download finishes; then the service answers
 * again. Resolves once an execution emitted the download.
 */
async function brokenPoll(
	table: BrokenPoll['table'],
	executions: Map<string, TriggerExecution>,
	collect: () => Promise<void>,
): Promise<BrokenPoll> {
	const known = new Set(executions.keys());
	const since = await triggerService.lastSeq();
	await triggerService.fault({
		match: { method: 'GET', path: `/rest/v1/${table}` },
		status: 200,
		body: PROXY_PAGE,
		contentType: 'text/html; charset=utf-8',
		times: ATTEMPTS_PER_READ,
	});
	// Finished after the fault: no read sees it before the proxy's answers are used up.
	const [download] = await insertDownloads([`broken-${table}-read`]);
	const job = (await triggerService.rows('jobs')).find((row) => row.id === download.job_id);
	await n8n.waitFor(
		async () => {
			await collect();
			return containing(executions, download.id).length > 0;
		},
		{
			timeoutMs: CYCLE_TIMEOUT_MS,
			intervalMs: 1000,
			failure: () =>
				new Error(
					`download #${download.id} (the ${table} read broken) not emitted within ${CYCLE_TIMEOUT_MS / 1000} s: ${describeExecutions([...executions.values()].filter((x) => !known.has(x.id)))}`,
				),
		},
	);
	const faulted = (await triggerService.log()).filter(
		(e) => e.seq > since && e.faulted && e.table === table,
	);
	// The list n8n gives is newest first: in the order they ran.
	const later = [...executions.values()]
		.filter((x) => !known.has(x.id))
		.sort((a, b) => Number(a.id) - Number(b.id));
	return { table, download, job, executions: later, faulted };
}

/** A job's fields as Include Job adds them to a download. */
const jobFields = ({ url, email, status, files }: Json) => ({ url, email, status, files });

/** An execution as a user sees it: its status, its error, the downloads with their jobs. */
const seenExecution = (x: TriggerExecution) => ({
	status: x.status,
	...(x.error && { error: x.error.message }),
	downloads: x.items.map((d) => ({ id: d.id, job: d.job && jobFields(d.job) })),
});

/** What a user sees of a broken poll: the proxy's answers, then each execution, in order. */
const seenByUser = ({ faulted, executions }: BrokenPoll) => ({
	proxyPages: faulted.length,
	executions: executions.map(seenExecution),
});

/** Executions, with their ids, for the test's messages. */
const describeExecutions = (executions: TriggerExecution[]) =>
	JSON.stringify(executions.map((x) => ({ id: x.id, ...seenExecution(x) })));

/**
 * The downloads read, then the jobs read, broken for one poll each; then two more polls (the
 * second starts 10 s after the first, which emits nothing or has its execution under way), and
 * the executions they may have started, once finished.
 */
async function brokenPolls(server: N8nServer, run: LiveRun): Promise<BrokenPolls> {
	const executions = new Map(run.executions);
	const collect = collector(server, executions);
	const polls = [
		await brokenPoll('downloads', executions, collect),
		await brokenPoll('jobs', executions, collect),
	];
	let since = await triggerService.lastSeq();
	for (const nth of ['first', 'second']) {
		const failure = `no ${nth} poll after the broken ones within 60 s; server log: ${server.logFile}`;
		since = (await waitForTriggerPoll(triggerService, since, 60_000, failure)).seq;
	}
	await n8n.waitFor(
		async () =>
			(await server.executions({ workflowId: workflow.id })).every(
				(x: Json) => !['new', 'running', 'waiting'].includes(x.status),
			),
		{ timeoutMs: 60_000, intervalMs: 500, failure: () => new Error('an execution still running') },
	);
	await collect();
	const during = new Set(polls.flatMap((p) => p.executions.map((x) => x.id)));
	const later = [...executions.values()].filter(
		(x) => !run.executions.has(x.id) && !during.has(x.id),
	);
	return { polls, later };
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

	test("a proxy's HTML page for every attempt of a poll's downloads read, then its jobs read: nothing lost, nothing twice (live)", async () => {
		const { polls, later } = await broken;
		// Both cases side by side, so that a failure shows what each gave.
		assert.deepEqual(
			polls.map(seenByUser),
			polls.map(({ download, job }) => ({
				proxyPages: ATTEMPTS_PER_READ,
				// n8n records a poll that failed as an execution holding its error, nothing emitted.
				executions: [
					{ status: 'error', error: HTML_PAGE_MESSAGE, downloads: [] },
					{ status: 'success', downloads: [{ id: download.id, job: jobFields(job) }] },
				],
			})),
			'the proxy pages of the broken polls, and the executions from then on (downloads read, jobs read)',
		);
		assert.deepEqual(later, [], `executions of the two polls after: ${describeExecutions(later)}`);
		const lines = polls.map(({ table, download, executions: [failed, emitted], faulted }) => {
			assertDownload(emitted.items[0], { what: 'emitted download' });
			const lasted = seconds(faulted[faulted.length - 1].at - faulted[0].at);
			return `the ${table} read: ${faulted.length} proxy pages in ${lasted}, execution ${failed.id} "${failed.error.message}", then #${download.id} with its job in execution ${emitted.id} only`;
		});
		report(`${lines.join('; ')}; the 2 polls after: no execution`);
	});
});
