// Why: n8n 1.x's tester loses the status of a failed declarative test request, so the nodes test the credential themselves (`testedBy`) and name the cause on 1.x and 2.x alike.
import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { requestToken } from './login';
import { readServiceFailure } from './serviceError';

/** The login works, the API refuses the account (PostgREST 403, `42501`): no Business plan. */
export const NO_BUSINESS_PLAN_MESSAGE =
	'The login works, but the account has no active Business plan subscription, which the API requires';

/** The API refused the key or the fresh token (401). */
export const API_KEY_REFUSED_MESSAGE =
	'The service refused the API key or the token: check the API key and the Base URL';

const TEST_TIMEOUT_MS = 15_000;

/**
 * n8n's credential-test context offers only the legacy `helpers.request`: this gives it the
 * httpRequest shape the login expects. A non-2xx answer is thrown the way httpRequest throws
 * it (`response.status` / `data` / `headers`), so readServiceFailure reads both alike.
 */
function asHttpRequestHelper(context: ICredentialTestFunctions): IHttpRequestHelper {
	const httpRequest = async (options: IHttpRequestOptions) => {
		const response = (await context.helpers.request({
			method: options.method ?? 'GET',
			uri: options.url,
			qs: options.qs,
			headers: options.headers,
			body: options.body,
			json: true,
			simple: false,
			resolveWithFullResponse: true,
			followRedirect: false,
			timeout: TEST_TIMEOUT_MS,
		})) as { statusCode: number; body: unknown; headers?: unknown };
		if (response.statusCode < 200 || response.statusCode > 299) {
			throw Object.assign(new Error(`HTTP ${response.statusCode}`), {
				response: { status: response.statusCode, data: response.body, headers: response.headers },
			});
		}
		return response.body;
	};
	return { helpers: { httpRequest } };
}

const failed = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/**
 * The credential test: the login, as preAuthentication makes it, then one row id of `jobs`
 * under RLS, which needs the key, the login and the plan. Messages hold the service's words,
 * never a secret.
 */
export async function websiteExportApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const helper = asHttpRequestHelper(this);
	const data = credential.data ?? {};
	let login: { baseUrl: string; accessToken: string };
	try {
		login = await requestToken(helper, data);
	} catch (error) {
		return failed((error as Error).message);
	}
	try {
		await helper.helpers.httpRequest({
			method: 'GET',
			url: `${login.baseUrl}/rest/v1/jobs`,
			qs: { select: 'id', limit: 1 },
			headers: {
				apikey: String(data.apiKey ?? ''),
				Authorization: `Bearer ${login.accessToken}`,
				Accept: 'application/json',
			},
		});
	} catch (error) {
		const failure = readServiceFailure(error);
		if (failure.status === 403 || failure.code === '42501') return failed(NO_BUSINESS_PLAN_MESSAGE);
		if (failure.status === 401) return failed(`${API_KEY_REFUSED_MESSAGE} (${failure.message})`);
		if (failure.status === undefined)
			return failed(`${failure.message}: check the Base URL and that the service is online`);
		return failed(`The service answered HTTP ${failure.status} (${failure.message})`);
	}
	return { status: 'OK', message: 'Connection successful!' };
}
