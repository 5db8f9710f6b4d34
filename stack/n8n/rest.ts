/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any, @typescript-eslint/no-require-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** A started n8n's REST API as the owner sees it: login (or first setup), node and credential types, executions. */

import path from 'node:path';
import { httpRequest, type HttpOptions } from './http';
import { runOutcome, summarizeNodeTypes, type N8nRun, type RunOutcome } from './cli';
import { waitFor } from './process';
import { provision } from './provision';
import type { LogLine } from './logs';

const DEFAULT_OWNER = Object.freeze({
	email: 'owner@example.com',
	password: 'Wex-e2e-Passw0rd',
	firstName: 'Wex',
	lastName: 'Owner',
});

/** An execution as n8n's REST API answers it: untyped JSON, read by the suites. */
type Execution = { id: string; status: string; data?: any } & Record<string, any>;
type Owner = { email: string; password: string; firstName?: string; lastName?: string };
export type RestClient = ReturnType<typeof restClient>;

/** A workflow as n8n's REST API answers it (GET or POST /rest/workflows). */
type StoredWorkflow = { id: string; nodes: Array<{ type: string; name: string }> } & Record<
	string,
	any
>;

/** Execution statuses of a run that has not ended. */
const UNFINISHED = new Set(['new', 'running', 'waiting', 'unknown']);

/** n8n stores/serves execution data "flatted"; use n8n's own copy of the flatted package. */
async function unflatten(text: string): Promise<unknown> {
	const { prefix } = await provision(); // this process's, already provisioned
	return require(path.join(prefix, 'node_modules', 'flatted')).parse(text);
}

/**
 * Create the owner (while n8n asks for one) or log in; answers the auth cookie and the user.
 * A setup call on an instance that has its owner is answered 400, which n8n logs as an error:
 * hence the look at its public settings first (an n8n without its editor has none: N8N_DISABLE_UI).
 */
async function ownerSession(baseUrl: string, owner: Owner) {
	const settings = await httpRequest('GET', `${baseUrl}/rest/settings`);
	// Only a clear "no" skips the setup: settings that cannot be read leave it to be tried.
	const hasOwner = settings.json?.data?.userManagement?.showSetupOnFirstLoad === false;
	let r = hasOwner
		? null
		: await httpRequest('POST', `${baseUrl}/rest/owner/setup`, { body: owner });
	if (!r || r.status !== 200) {
		r = await httpRequest('POST', `${baseUrl}/rest/login`, {
			body: { emailOrLdapLoginId: owner.email, password: owner.password },
		});
	}
	if (r.status !== 200) throw new Error(`n8n login failed: ${r.status} ${r.text.slice(0, 500)}`);
	const cookie = [r.headers['set-cookie'] || []]
		.flat()
		.map((c) => c.split(';')[0])
		.join('; ');
	return { cookie, user: r.json && r.json.data };
}

/** Requests to the n8n at `baseUrl` with the owner's login cookie once `login` has set it. */
function session(baseUrl: string) {
	let cookie = '';
	const request = (method: string, p: string, o: HttpOptions = {}) =>
		httpRequest(method, baseUrl + p, {
			...o,
			headers: { ...(cookie ? { cookie } : {}), ...(o.headers || {}) },
		});
	async function login(owner: Owner = DEFAULT_OWNER) {
		const answer = await ownerSession(baseUrl, owner);
		cookie = answer.cookie;
		return answer.user;
	}
	// One login for the calls that start side by side (each would set the owner up or log in).
	let loggingIn: Promise<unknown> | undefined;
	/** A request logged in (as DEFAULT_OWNER unless `login` came first); its JSON, throws on non-2xx. */
	async function json(method: string, p: string, body?: unknown): Promise<any> {
		if (!cookie) await (loggingIn ??= login().finally(() => (loggingIn = undefined)));
		const r = await request(method, p, { body });
		if (r.status < 200 || r.status >= 300)
			throw new Error(`${method} ${p} → ${r.status} ${r.text.slice(0, 500)}`);
		return r.json;
	}
	return { request, login, json };
}

/**
 * The REST client of the n8n at `baseUrl`; it logs in (as DEFAULT_OWNER) on its first call that needs it.
 * @param logs the server's log, for nodeTypes()'s failed packages
 */
export function restClient(baseUrl: string, logs: () => LogLine[]) {
	const { request, login, json } = session(baseUrl);
	/** JSON REST call with the login cookie; resolves to the `data` field, throws on non-2xx. */
	async function rest(method: string, p: string, body?: unknown): Promise<any> {
		const answer = await json(method, p, body);
		return answer && 'data' in answer ? answer.data : answer;
	}
	/** Node or credential type descriptions the running instance serves to its editor (needs login). */
	const typesFile = (kind: 'nodes' | 'credentials') => json('GET', `/types/${kind}.json`);
	/** Full execution with run data (IRun-like: { data: { resultData: { runData } }, status … }). */
	async function execution(id: string): Promise<Execution> {
		const d = await rest('GET', `/rest/executions/${id}`);
		if (d && typeof d.data === 'string') d.data = await unflatten(d.data);
		return d;
	}
	return {
		request,
		login,
		rest,
		execution,
		nodeTypes: async () => summarizeNodeTypes(await typesFile('nodes'), logs()),
		/** Credential type descriptions (names: d.name). */
		credentialTypes: () => typesFile('credentials'),
		/** Executions list (newest first) — e.g. executions({ workflowId }). */
		async executions(filter: Record<string, unknown> = {}): Promise<Execution[]> {
			const q = encodeURIComponent(JSON.stringify(filter));
			const d = await rest('GET', `/rest/executions?filter=${q}&limit=100`);
			return (d && d.results) || [];
		},
		runManually: (workflow: string | StoredWorkflow) =>
			runManually({ rest, execution }, logs, workflow),
		/** Saves a stored credential's name and data, as its dialog does (e.g. one imported with placeholders). */
		updateCredential: ({
			id,
			name,
			type,
			data,
		}: {
			id: string;
			name: string;
			type: string;
			data: object;
		}) => rest('PATCH', `/rest/credentials/${id}`, { name, type, data }),
		/** Activates (2.x: publishes) a workflow's current version (by id, or as n8n stored it), as the editor's toggle does. */
		async activate(workflow: string | StoredWorkflow) {
			const { id, versionId } =
				typeof workflow === 'string' ? await rest('GET', `/rest/workflows/${workflow}`) : workflow;
			return rest('POST', `/rest/workflows/${id}/activate`, { versionId });
		},
	};
}

/**
 * Runs a workflow (by id, or as n8n stored it) from its Manual Trigger as the editor's Execute
 * Workflow does, in the n8n process `client` talks to: no n8n boot per run. Resolves once its
 * execution has ended.
 */
async function runManually(
	client: Pick<RestClient, 'rest' | 'execution'>,
	logs: () => LogLine[],
	stored: string | StoredWorkflow,
	timeoutMs = 300_000,
): Promise<RunOutcome> {
	const started = Date.now();
	const workflow: StoredWorkflow =
		typeof stored === 'string' ? await client.rest('GET', `/rest/workflows/${stored}`) : stored;
	const workflowId = workflow.id;
	const trigger = workflow.nodes.find((n: any) => n.type === 'n8n-nodes-base.manualTrigger');
	// 2.x reads the workflow from its database and `triggerToStartFrom`; 1.x runs `workflowData`.
	const answer = await client.rest('POST', `/rest/workflows/${workflowId}/run`, {
		workflowData: workflow,
		...(trigger ? { triggerToStartFrom: { name: trigger.name } } : {}),
	});
	if (!answer?.executionId)
		throw new Error(`workflow ${workflowId} did not start: ${JSON.stringify(answer)}`);
	const execution = await waitFor(
		async () => {
			const e = await client.execution(answer.executionId);
			// 1.x may store the final status a moment before the run data.
			return !e || UNFINISHED.has(e.status) || !e.data?.resultData ? undefined : e;
		},
		{
			timeoutMs,
			intervalMs: 100,
			failure: () =>
				new Error(`execution ${answer.executionId} still running after ${timeoutMs} ms`),
		},
	);
	const run: N8nRun = { ...execution, status: execution.status, data: execution.data };
	const log = logs().map((line) => JSON.stringify(line));
	return runOutcome(run, {
		output: [JSON.stringify(execution), ...log].join('\n'),
		durationMs: Date.now() - started,
		fallbackError: '',
	});
}
