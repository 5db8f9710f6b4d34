// Why: the workflows the e2e tests build in code (items → Website Export nodes): the adverse
// cases' (imported by global-setup.ts) and the bulk comparison's.
import { itemsParameters, type Json } from './suite';

const CREDENTIALS = {
	websiteExportApi: { id: 'website-export-demo', name: 'Website Export (local emulator)' },
};
const WEBSITE_EXPORT = { type: 'n8n-nodes-website-export.websiteExport', typeVersion: 2 };

/** A node after the items: the Website Export node unless `type` says otherwise. */
export interface ChainedNode {
	name: string;
	parameters: Json;
	type?: string;
	typeVersion?: number;
}

/** n8n's connections of nodes that run one after another. */
export const chainConnections = (names: string[]): Json =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);

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
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
		node('Items', 'n8n-nodes-base.set', 3.4, itemsParameters(id, items), 110),
		node('One Item Each', 'n8n-nodes-base.splitOut', 1, split, 220),
		...chained.map((c, index) => ({
			...node(
				c.name,
				c.type ?? WEBSITE_EXPORT.type,
				c.typeVersion ?? WEBSITE_EXPORT.typeVersion,
				c.parameters,
				440 + 220 * index,
			),
			credentials: CREDENTIALS,
		})),
	];
	return {
		id,
		name: `e2e: ${name}`,
		nodes,
		connections: chainConnections(nodes.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
		active: false,
	};
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

/** The adverse cases' workflows (adverse.test.ts). */
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
