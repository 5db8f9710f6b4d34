/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
import { Container } from '@n8n/di';
import {
	BinaryDataService,
	CredentialTestContext,
	ExecuteContext,
	LoadOptionsContext,
	PollContext,
} from 'n8n-core';
// n8n's own loader constant (not exported by n8n-core's index).
import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	ICredentialType,
	INodeCredentialTestResult,
	INodeListSearchResult,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { WebsiteExportApi } from '../../credentials/WebsiteExportApi.credentials';
import { TestCredentialsHelper } from './credentials';

const CREDENTIAL_TYPE = 'websiteExportApi';
const CREDENTIAL_ID = 'website-export-credential';

export interface AccountLogin {
	baseUrl: string;
	apiKey: string;
	email: string;
	password: string;
}

export interface ExecuteOptions {
	parameters: INodeParameters;
	/** Input items; one empty item when omitted, as after a Manual Trigger. */
	items?: INodeExecutionData[];
	onError?: INode['onError'];
	mode?: WorkflowExecuteMode;
	/** The node's version in the workflow; 2 when omitted. */
	typeVersion?: number;
}

export interface PollOptions {
	parameters: INodeParameters;
	/** 'manual' is the editor's "Fetch Test Event". */
	mode?: 'trigger' | 'manual';
	/** The workflow's static data, as n8n stores it between polls (JSON round-tripped). */
	staticData?: IDataObject;
}

/**
 * A throwaway node type whose execute() runs `body` in n8n's real ExecuteContext, with this
 * pack's credential: for exercising the transport or the credential below the operations.
 */
export function probeNode(
	body: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>,
): INodeType {
	return {
		description: {
			displayName: 'Probe',
			name: 'probe',
			group: [],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			properties: [],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		},
		execute: body,
	};
}

let binaryDataReady: Promise<void> | undefined;

/** n8n-core's binary data store, in its default (filesystem) mode under N8N_USER_FOLDER. */
function initBinaryData(): Promise<void> {
	process.env.N8N_BINARY_DATA_SIGNING_SECRET ??= 'website-export-tests';
	binaryDataReady ??= Container.get(BinaryDataService).init();
	return binaryDataReady;
}

/**
 * The node type as n8n's loader serves it: a polling node gets n8n's Poll Times parameter
 * (applySpecialNodeParameters), which the Workflow would otherwise drop from the node's parameters.
 */
function asLoaded(nodeType: INodeType): INodeType {
	const { polling, properties } = nodeType.description;
	if (!polling || properties.some((property) => property.name === 'pollTimes')) return nodeType;
	const description = {
		...nodeType.description,
		properties: [...commonPollingParameters, ...properties],
	};
	return Object.assign(
		Object.create(Object.getPrototypeOf(nodeType) as object) as INodeType,
		nodeType,
		{ description },
	);
}

/**
 * Runs this pack's nodes through n8n-core's own execution contexts (ExecuteContext,
 * PollContext): parameters, expressions, continueOnFail, binary data and
 * httpRequestWithAuthentication are n8n's code, and requests go over real HTTP.
 * The credential is kept in a store shared by all runs of one harness, the way n8n keeps it in
 * its database.
 */
export class NodeHarness {
	readonly credentialType: ICredentialType = new WebsiteExportApi();

	/** n8n's credentials helper and database of credentials. */
	readonly store = new TestCredentialsHelper({ [CREDENTIAL_TYPE]: this.credentialType });

	private executions = 0;

	constructor(login: AccountLogin) {
		this.store.set(CREDENTIAL_ID, { ...login, accessToken: '' });
	}

	/** The stored credential (token included), as n8n would persist it. */
	get credential() {
		return this.store.get(CREDENTIAL_ID);
	}

	updateCredential(changes: IDataObject): void {
		this.store.set(CREDENTIAL_ID, {
			...this.store.get(CREDENTIAL_ID),
			...changes,
		} as ICredentialDataDecryptedObject);
	}

	/**
	 * The node, in the one-node workflow every run of the harness happens in (inactive unless
	 * said otherwise), and the run's additional data: the first arguments of n8n's contexts.
	 */
	private setUp(
		nodeType: INodeType,
		{ parameters = {}, name = 'Website Export', onError, typeVersion = 2 }: Partial<INode>,
		{ active = false, staticData }: { active?: boolean; staticData?: IDataObject } = {},
	) {
		const node: INode = {
			id: 'node-1',
			name,
			type: nodeType.description.name,
			typeVersion,
			position: [0, 0],
			parameters,
			credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Website Export account' } },
			...(onError ? { onError } : {}),
		};
		const loaded = asLoaded(nodeType);
		const nodeTypes: INodeTypes = {
			getByName: () => loaded,
			getByNameAndVersion: () => loaded,
			getKnownTypes: () => ({}),
		};
		const workflow = new Workflow({
			id: 'workflow-1',
			nodes: [node],
			connections: {},
			active,
			nodeTypes,
			staticData,
		});
		return [workflow, node, this.additionalData()] as const;
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return {
			credentialsHelper: this.store,
			executionId: `execution-${++this.executions}`,
			currentNodeExecutionIndex: 0,
			restApiUrl: 'http://localhost:5678/rest',
			instanceBaseUrl: 'http://localhost:5678/',
			// n8n builds $execution.resumeUrl from these with `new URL()` on every parameter read.
			formBaseUrl: 'http://localhost:5678/form',
			formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
			formTestBaseUrl: 'http://localhost:5678/form-test',
			webhookBaseUrl: 'http://localhost:5678/webhook',
			webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
			webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
			mcpBaseUrl: '',
			mcpTestBaseUrl: '',
			variables: {},
		} as unknown as IWorkflowExecuteAdditionalData;
	}

	/** Runs a node's execute() once over `items`; resolves to its outputs, rejects with its error. */
	async execute(nodeType: INodeType, options: ExecuteOptions): Promise<INodeExecutionData[][]> {
		await initBinaryData();
		// The node takes the options' parameters, onError and typeVersion.
		const [workflow, node, additionalData] = this.setUp(nodeType, options);
		const items = options.items ?? [{ json: {} }];
		const inputData = { main: [items] };
		const context = new ExecuteContext(
			workflow,
			node,
			additionalData,
			options.mode ?? 'manual',
			createRunExecutionData(),
			0,
			items,
			inputData,
			{ node, data: inputData, source: null },
			[],
		);
		const output = await nodeType.execute!.call(context);
		return (output ?? []) as INodeExecutionData[][];
	}

	/**
	 * Runs a trigger's poll() once. `staticData` goes in and comes out JSON round-tripped, the
	 * way n8n stores it; like n8n, the caller should keep the new static data only when the
	 * poll emitted (n8n saves it with the execution the poll starts).
	 */
	async poll(
		nodeType: INodeType,
		options: PollOptions,
	): Promise<{ emitted: INodeExecutionData[][] | null; staticData: IDataObject }> {
		const { parameters, mode = 'trigger' } = options;
		const staticData = JSON.parse(JSON.stringify(options.staticData ?? {})) as IDataObject;
		const [workflow, node, additionalData] = this.setUp(
			nodeType,
			{ parameters, name: 'Website Export Trigger' },
			{ active: mode !== 'manual', staticData },
		);
		const activation = mode === 'manual' ? 'manual' : 'activate';
		const context = new PollContext(workflow, node, additionalData, mode, activation);
		const emitted = await nodeType.poll!.call(context);
		return { emitted, staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject };
	}

	/** Runs a listSearch method (a resource locator's "From List") through n8n-core's LoadOptionsContext. */
	async listSearch(
		nodeType: INodeType,
		method: string,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const context = new LoadOptionsContext(...this.setUp(nodeType, {}), 'parameters.recordId');
		const search = nodeType.methods?.listSearch?.[method];
		if (!search) throw new Error(`no listSearch method ${method}`);
		return await search.call(context, filter, paginationToken);
	}

	/**
	 * Runs the credential test the way n8n's tester picks it (getCredentialTestFunction): the
	 * credential's own `test` would come first, so there must be none; then the `testedBy`
	 * function of a node that uses the credential, called in n8n-core's CredentialTestContext
	 * with the credential's data as the form sends it.
	 */
	async testCredential(nodeType: INodeType): Promise<INodeCredentialTestResult> {
		if (this.credentialType.test)
			throw new Error(
				"the credential has a test of its own: n8n would run it instead of the node's testedBy",
			);
		const testedBy = nodeType.description.credentials?.find(
			(c) => c.name === CREDENTIAL_TYPE,
		)?.testedBy;
		const test =
			typeof testedBy === 'string' ? nodeType.methods?.credentialTest?.[testedBy] : undefined;
		if (!test)
			throw new Error(
				`${nodeType.description.name} names no credential test function for ${CREDENTIAL_TYPE}`,
			);
		return await test.call(new CredentialTestContext(), {
			id: CREDENTIAL_ID,
			name: 'Website Export',
			type: CREDENTIAL_TYPE,
			data: this.store.get(CREDENTIAL_ID),
		});
	}
}
