import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { ICredentialsHelper } from 'n8n-workflow';

/**
 * The parts of n8n's CredentialsHelper (packages/cli/src/credentials-helper.ts) that a node's
 * requests go through, with the same rules: preAuthentication runs only when the expirable
 * property is empty or n8n saw a 401 (`credentialsExpired`), or when testing the credential;
 * its result is persisted and merged into the credentials in use.
 * It also stands in for n8n's database of credentials: what `updateCredentials` writes is what
 * the next `getDecrypted` reads, as in n8n, where the token persisted by one execution (or one
 * queue-mode worker) is the one the next execution starts with.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly data = new Map<string, ICredentialDataDecryptedObject>();

	/** How often n8n ran the credential's preAuthentication, i.e. logged in. */
	preAuthenticationRuns = 0;

	constructor(private readonly types: Record<string, ICredentialType>) {
		super();
	}

	set(id: string, data: ICredentialDataDecryptedObject): void {
		this.data.set(id, { ...data });
	}

	get(id: string): ICredentialDataDecryptedObject {
		const stored = this.data.get(id);
		if (!stored) throw new Error(`No credential with id ${id}`);
		return { ...stored };
	}

	private type(name: string): ICredentialType {
		const type = this.types[name];
		if (!type) throw new Error(`Unknown credential type ${name}`);
		return type;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.type(typeName);
		if (typeof authenticate !== 'function') {
			throw new Error('This harness supports function-style authenticate only');
		}
		return await authenticate(credentials, requestOptions as IHttpRequestOptions);
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.type(typeName);
		const expirable = type.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';
		if (credentials[expirable.name] !== '' && !credentialsExpired && !isTestingCredentials)
			return undefined;

		this.preAuthenticationRuns++;
		const output = await type.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;
		const details = node.credentials?.[type.name];
		if (details?.id)
			await this.updateCredentials(details, type.name, {
				...this.get(details.id),
				...output,
			} as ICredentialDataDecryptedObject);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these nodes');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
	): Promise<ICredentialDataDecryptedObject> {
		return this.get(nodeCredentials.id ?? '');
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		_type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.set(nodeCredentials.id ?? '', data);
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.type(type).properties;
	}
}
