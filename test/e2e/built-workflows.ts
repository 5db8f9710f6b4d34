// Why: the workflows the tests build in code (a start → Website Export nodes): the adverse
// cases' (imported by global-setup.ts), the bulk comparison's and queue mode's.
import { CREDENTIAL } from '../../stack/demo-data';
import { CREDENTIAL_TYPE, NODE_TYPE, itemsParameters, type Json } from './suite';

/** The demo credential `npm start` and the e2e user folders hold. */
const CREDENTIALS = { [CREDENTIAL_TYPE]: { id: CREDENTIAL.id, name: CREDENTIAL.name } };
const WEBSITE_EXPORT = { type: NODE_TYPE, typeVersion: 2 };

/** A node after the items: the Website Export node unless `type` says otherwise. */
export interface ChainedNode {
	name: string;
	parameters: Json;
	type?: string;
	typeVersion?: number;
}

/** n8n's connections of nodes that run one after another. */
const chainConnections = (names: string[]): Json =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);

/** `leading` nodes (built by the caller), then `chained`, one after another, the chained with the demo credential. */
export function chainedWorkflow(
	id: string,
	name: string,
	leading: Json[],
	chained: ChainedNode[],
): Json {
	const nodes = [
		...leading,
		...chained.map((c, index) => ({
			parameters: c.parameters,
			id: `${id}-${c.name}`,
			name: c.name,
			type: c.type ?? WEBSITE_EXPORT.type,
			typeVersion: c.typeVersion ?? WEBSITE_EXPORT.typeVersion,
			position: [220 * (leading.length + index), 300],
			credentials: CREDENTIALS,
		})),
	];
	return {
		id,
		name,
		nodes,
		connections: chainConnections(nodes.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

/** Manual trigger → one item per element of `items` → `chained`, one after another, with the demo credential. */
export function chainWorkflow(
	id: string,
	name: string,
	items: Json[],
	chained: ChainedNode[],
): Json {
	const node = (n: string, type: string, typeVersion: number, parameters: Json, x: number) => ({
		parameters,
		id: `${id}-${n}`,
		name: n,
		type,
		typeVersion,
		position: [x, 300],
	});
	const split = { fieldToSplitOut: 'items', include: 'noOtherFields', options: {} };
	const leading = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
		node('Items', 'n8n-nodes-base.set', 3.4, itemsParameters(id, items), 220),
		node('One Item Each', 'n8n-nodes-base.splitOut', 1, split, 440),
	];
	return chainedWorkflow(id, `e2e: ${name}`, leading, chained);
}

/** `n` items of distinct sites; the one at `badAt` has an invalid email. */
const sites = (prefix: string, n: number, badAt = -1) =>
	Array.from({ length: n }, (_, i) => ({
		url: `https://${prefix}-${i}.e2e.example.com/`,
		email: i === badAt ? 'not-an-email' : 'adverse@e2e.example.com',
	}));
const createJobs = {
	name: 'Website Export',
	parameters: {
		resource: 'job',
		operation: 'create',
		url: '={{ $json.url }}',
		email: '={{ $json.email }}',
	},
};
const one = [{ run: 1 }];

/** The adverse cases' workflows (adverse.scenarios.ts). */
export const ADVERSE = {
	validate: chainWorkflow(
		'wexE2eAdvValidate',
		'a bad 3rd item sends nothing',
		sites('adv-validate', 10, 2),
		[createJobs],
	),
	refused: chainWorkflow(
		'wexE2eAdvRefused',
		'the service refuses the 3rd create',
		sites('adv-refused', 10),
		[createJobs],
	),
	lost: chainWorkflow('wexE2eAdvLost', 'answers lost after the commit', sites('adv-lost', 1), [
		createJobs,
		{
			name: 'Delete Job',
			parameters: {
				resource: 'job',
				operation: 'delete',
				selectBy: 'id',
				recordId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			},
		},
	]),
	keyset: chainWorkflow('wexE2eAdvKeyset', 'Return All while jobs are created', one, [
		{
			name: 'Website Export',
			parameters: {
				resource: 'job',
				operation: 'getAll',
				returnAll: true,
				filters: { email: 'keyset@e2e.example.com' },
				sort: 'newest',
			},
		},
	]),
	timestamps: chainWorkflow('wexE2eAdvTimestamps', 'downloads in other created_at formats', one, [
		{
			name: 'Website Export',
			parameters: {
				resource: 'download',
				operation: 'getAll',
				returnAll: true,
				onlyValidLinks: false,
				filters: {},
			},
		},
	]),
};

export const adverseWorkflows = (): Json[] => Object.values(ADVERSE);
