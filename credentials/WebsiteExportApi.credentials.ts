import type {
	IAuthenticate,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { checkBaseUrl, isServiceUrl } from '../nodes/shared/baseUrl';
import { loginError, readServiceFailure } from '../nodes/shared/serviceError';

interface TokenResponse {
	access_token?: string;
}

/** Turns a failed login into a sentence that tells the user which field to fix. */
function loginFailureMessage(error: unknown): string {
	const failure = readServiceFailure(error);
	if (failure.status === undefined) {
		return `${failure.message}: check the Base URL and that the service is online`;
	}
	if (/api key/i.test(failure.message)) {
		return `The API key was refused (${failure.message}): copy it again from the API section of the Website Export dashboard`;
	}
	if (failure.status === 400 || failure.status === 401 || failure.status === 403) {
		return `Login failed (${failure.message}): check the email and password of the Website Export account`;
	}
	return `Login failed: the service answered HTTP ${failure.status} (${failure.message})`;
}

export class WebsiteExportApi implements ICredentialType {
	name = 'websiteExportApi';

	displayName = 'Website Export API';

	icon: Icon = {
		light: 'file:../nodes/WebsiteExport/websiteExport.svg',
		dark: 'file:../nodes/WebsiteExport/websiteExport.dark.svg',
	};

	documentationUrl = 'https://github.com/website-export/n8n-nodes-website-export#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://<project>.supabase.co',
			description: 'Address of the Website Export service, without /rest/v1. Must use https:// (http:// only for localhost).',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'From the API section of the account dashboard (needs an active Business plan)',
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			required: true,
			description: 'Email address of the Website Export account',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Password of the Website Export account',
		},
		{
			// Filled by preAuthentication(); n8n renews it when empty or after a 401, and stores it
			// in the credential so that every worker of a queue-mode setup shares one token.
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	/** Exchanges the login for a 1-hour bearer token (`/auth/v1/token?grant_type=password`). */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const baseUrl = checkBaseUrl(credentials.baseUrl);
		if (!baseUrl.ok) throw loginError(baseUrl.reason);
		let response: TokenResponse;
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url: `${baseUrl.url}/auth/v1/token`,
				qs: { grant_type: 'password' },
				headers: { apikey: credentials.apiKey as string },
				body: { email: credentials.email, password: credentials.password },
				json: true,
			})) as TokenResponse;
		} catch (error) {
			// A fresh error on purpose: the original one carries the request, password included.
			throw loginError(loginFailureMessage(error));
		}
		if (!response?.access_token) {
			throw loginError('Login failed: the token endpoint answered without an access token');
		}
		return { accessToken: response.access_token };
	}

	/**
	 * Adds the API key and the bearer token, but only to requests for the service itself:
	 * a download link on another host (a CDN, a storage bucket) must never receive them.
	 */
	authenticate: IAuthenticate = async (credentials, requestOptions: IHttpRequestOptions) => {
		const baseUrl = checkBaseUrl(credentials.baseUrl);
		const target = `${requestOptions.baseURL ?? ''}${requestOptions.url}`;
		if (!baseUrl.ok || !isServiceUrl(target, baseUrl.url)) return requestOptions;
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				apikey: credentials.apiKey as string,
				Authorization: `Bearer ${credentials.accessToken as string}`,
			},
		};
	};

	// One row id under RLS: cheap, and it needs the key, the login and the plan to succeed.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			url: '/rest/v1/jobs',
			qs: { select: 'id', limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The login works, but the account has no active Business plan subscription, which the API requires',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The service refused the API key or the token: check the API key and the Base URL',
				},
			},
		],
	};
}
