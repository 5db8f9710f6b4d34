// Why: the credential users save: base URL, API key, email, password; a login makes a 1-hour token.
import type {
	IAuthenticate,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { checkBaseUrl } from '../nodes/shared/auth/baseUrl';
import { renewToken } from '../nodes/shared/auth/renewal';

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
			description: 'Address of the Website Export service, without /rest/v1',
			hint: 'Must use https:// (http:// only for localhost)',
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

	/**
	 * The 1-hour bearer token (auth/renewal.ts), for every request that met a 401: those that met the
	 * same token share one login.
	 */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		return { accessToken: await renewToken(this, credentials) };
	}

	/**
	 * The API key and the token, only for the service's own origin: a link on another host (a CDN, a
	 * bucket) never gets them.
	 */
	authenticate: IAuthenticate = async (credentials, requestOptions: IHttpRequestOptions) => {
		const baseUrl = checkBaseUrl(credentials.baseUrl);
		// n8n's HTTP Request node sends through the legacy request helper, whose address is `uri`.
		const { baseURL = '', url, uri } = requestOptions as IHttpRequestOptions & { uri?: string };
		const target = `${baseURL}${url ?? uri ?? ''}`;
		const own =
			baseUrl.ok && URL.canParse(target) && new URL(target).origin === new URL(baseUrl.url).origin;
		if (!own) return requestOptions;
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				apikey: credentials.apiKey as string,
				Authorization: `Bearer ${credentials.accessToken as string}`,
			},
		};
	};
}
