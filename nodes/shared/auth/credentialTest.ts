// Why: the nodes test the credential (`testedBy`): n8n 1.x's tester loses a failed test's status.
import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { readServiceFailure } from '../serviceError';
import { brokenAnswer } from '../transport/answerShape';
import { requestToken } from './renewal';

/** The login works, the API refuses the account (PostgREST 403, `42501`): no Business plan. */
export const NO_BUSINESS_PLAN_MESSAGE =
	'The login works, but the account has no active Business plan subscription, which the API requires';
/** The API refused the key or the fresh token (401). */
export const API_KEY_REFUSED_MESSAGE =
	'The service refused the API key or the token: check the API key and the Base URL';

/**
 * The legacy `helpers.request` of n8n's credential-test context in httpRequest's shape, non-2xx
 * answers thrown alike.
 */
function asHttpRequestHelper(context: ICredentialTestFunctions): IHttpRequestHelper {
	const httpRequest = async ({ method, url, qs, headers, body }: IHttpRequestOptions) => {
		const { statusCode: status, body: data } = (await context.helpers.request({
			method: method ?? 'GET',
			uri: url,
			qs,
			headers: { Accept: 'application/json', ...headers },
			body,
			json: true,
			timeout: 15_000,
			simple: false,
			resolveWithFullResponse: true,
			followRedirect: false,
		})) as { statusCode: number; body: unknown };
		if (status >= 200 && status <= 299) return data;
		throw Object.assign(new Error(`HTTP ${status}`), { response: { status, data } });
	};
	return { helpers: { httpRequest } };
}

const failed = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/**
 * The login, as preAuthentication makes it, then one `jobs` id under RLS, which needs the key, the
 * login and the plan. It names the cause on n8n 1.x and 2.x alike.
 */
export async function websiteExportApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const helper = asHttpRequestHelper(this);
	const data = credential.data ?? {};
	const login = await requestToken(helper, data).catch((error: Error) => error);
	if (login instanceof Error) return failed(login.message);
	try {
		const rows: unknown = await helper.helpers.httpRequest({
			url: `${login.baseUrl}/rest/v1/jobs`,
			qs: { select: 'id', limit: 1 },
			headers: { apikey: String(data.apiKey ?? ''), Authorization: `Bearer ${login.accessToken}` },
		});
		// A 200 that is not a list (a proxy's page) did not come from the API.
		const broken = brokenAnswer({ body: rows, statusCode: 200 }, 'rows');
		if (broken) return failed(`${broken.message} (check the Base URL)`);
	} catch (error) {
		const { status, code, message } = readServiceFailure(error);
		if (status === 403 || code === '42501') return failed(NO_BUSINESS_PLAN_MESSAGE);
		if (status === 401) return failed(`${API_KEY_REFUSED_MESSAGE} (${message})`);
		if (status === undefined)
			return failed(`${message}: check the Base URL and that the service is online`);
		return failed(`The service answered HTTP ${status} (${message})`);
	}
	return { status: 'OK', message: 'Connection successful!' };
}
