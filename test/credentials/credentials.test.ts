import { WebsiteExportApi } from '../../credentials/WebsiteExportApi.credentials';
import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node';
import {
	API_KEY_REFUSED_MESSAGE,
	NO_BUSINESS_PLAN_MESSAGE,
} from '../../nodes/shared/auth/credentialTest';
import { FREE_USER } from '../../stack/service/accounts';
import { WebsiteExportClient } from '../../nodes/shared/transport';
import { probeNode, requestsSince, serviceEachTest } from '../support';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One list request through the real transport, as a node makes it. */
const listJobs = probeNode(async function () {
	const client = await WebsiteExportClient.connect(this);
	const page = await client.select('jobs', { select: ['id'], limit: 1 });
	return [page.rows.map((json) => ({ json }))];
});

describe('WebsiteExportApi credential against the emulator', () => {
	const service = serviceEachTest();

	it('logs in once and reuses the stored token across executions', async () => {
		const { emulator, harness } = service;
		for (let run = 0; run < 5; run++) await harness.execute(listJobs, { parameters: {} });
		const counts = requestsSince(emulator);
		expect(counts).toMatchObject({ token: 1, rest: 5 });
		expect(harness.store.preAuthenticationRuns).toBe(1);
		expect(harness.credential.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
	});

	it('logs in again after the token expired (401 PGRST303), once, and the run completes', async () => {
		const { emulator, harness } = service;
		await harness.execute(listJobs, { parameters: {} });
		const firstToken = harness.credential.accessToken;
		await emulator.clock.advance((3600 + 60) * 1000); // past the hour and PostgREST's 30 s leeway
		const before = emulator.log.length;
		await harness.execute(listJobs, { parameters: {} });
		await harness.execute(listJobs, { parameters: {} });
		const counts = requestsSince(emulator, before);
		expect(counts.token).toBe(1);
		// the refused request, its retry, then the next execution with the new token
		expect(counts.entries.filter((e) => e.kind === 'rest').map((e) => e.status)).toEqual([
			401, 200, 200,
		]);
		expect(harness.credential.accessToken).not.toBe(firstToken);
	});

	describe.each([
		['Website Export', new WebsiteExport()],
		['Website Export Trigger', new WebsiteExportTrigger()],
	])('credential test, as n8n runs it for the %s node (testedBy)', (_name, nodeType) => {
		it('passes with a Business-plan login: one token request, one row id', async () => {
			const { emulator, harness } = service;
			await expect(harness.testCredential(nodeType)).resolves.toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
			expect(emulator.log.map((e) => `${e.kind} ${e.status}`)).toEqual(['token 200', 'rest 200']);
		});

		it('tells a bad API key, a bad login and a missing plan apart, with no secret in a message', async () => {
			const { emulator, harness } = service;
			const outcomes: Record<string, string> = {};

			harness.updateCredential({ apiKey: 'not-the-key' });
			outcomes.badKey = (await harness.testCredential(nodeType)).message;

			harness.updateCredential({ apiKey: emulator.apiKey, password: 'wrong-password' });
			outcomes.badLogin = (await harness.testCredential(nodeType)).message;

			harness.updateCredential({ ...FREE_USER });
			outcomes.noPlan = (await harness.testCredential(nodeType)).message;

			expect(outcomes.badKey).toMatch(/^The API key was refused \(Invalid API key\)/);
			expect(outcomes.badLogin).toBe(
				'Login failed (Invalid login credentials): check the email and password of the Website Export account',
			);
			expect(outcomes.noPlan).toBe(NO_BUSINESS_PLAN_MESSAGE);
			const text = JSON.stringify(outcomes);
			for (const secret of ['not-the-key', 'wrong-password', FREE_USER.password, emulator.apiKey])
				expect(text).not.toContain(secret);
		});
	});

	it('names a refused key or token (401) and any other answer of the API', async () => {
		const { emulator, harness } = service;
		emulator.fault({ match: { path: '/rest/v1/jobs' }, status: 401, times: 1 });
		const unauthorized = await harness.testCredential(new WebsiteExport());
		emulator.fault({ match: { path: '/rest/v1/jobs' }, status: 500, times: 1 });
		const broken = await harness.testCredential(new WebsiteExport());
		expect(unauthorized).toEqual({
			status: 'Error',
			message: expect.stringMatching(new RegExp(`^${escape(API_KEY_REFUSED_MESSAGE)} \\(.+\\)$`)),
		});
		expect(broken).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The service answered HTTP 500 \(.+\)$/),
		});
	});

	it('reports an unreachable service and a bad Base URL, the latter without sending anything', async () => {
		const { emulator, harness } = service;
		harness.updateCredential({ baseUrl: 'http://example.com' });
		const plainHttp = await harness.testCredential(new WebsiteExport());
		expect(plainHttp).toEqual({
			status: 'Error',
			message: expect.stringMatching(/must start with https:\/\//),
		});
		expect(emulator.log).toHaveLength(0);
		harness.updateCredential({ baseUrl: emulator.baseUrl });
		await emulator.close();
		const offline = await harness.testCredential(new WebsiteExport());
		expect(offline).toEqual({
			status: 'Error',
			message: expect.stringMatching(/could not be reached \(ECONNREFUSED\): check the Base URL/),
		});
	});

	it('names the failed login when a node runs with a wrong password, and tries it once', async () => {
		const { emulator, harness } = service;
		harness.updateCredential({ password: 'wrong-password' });
		const error = (await harness
			.execute(listJobs, { parameters: {} })
			.catch((e: unknown) => e)) as Error & { description?: string };
		expect(error.message).toBe(
			'Login failed (Invalid login credentials): check the email and password of the Website Export account',
		);
		expect(error.description).toMatch(/Website Export credential/);
		expect(requestsSince(emulator)).toMatchObject({ token: 1, rest: 0 });
	});

	it('says what came back when a proxy answers the login or the API with an HTML page (issue 47)', async () => {
		const { emulator, harness } = service;
		const page = { status: 200, body: '<html><body>Sign in to the Wi-Fi</body></html>' };
		const proxy = { ...page, contentType: 'text/html' };
		const HTML = 'the service answered with an HTML page, not JSON: is a proxy in between?';
		emulator.fault({ match: { path: '/rest/v1/jobs' }, ...proxy });
		expect(await harness.testCredential(new WebsiteExport())).toEqual({
			status: 'Error',
			message: `T${HTML.slice(1)} (check the Base URL)`,
		});
		emulator.fault({ match: { path: '/auth/v1/token' }, ...proxy });
		expect(await harness.testCredential(new WebsiteExport())).toEqual({
			status: 'Error',
			message: `Login failed: ${HTML}`,
		});
		harness.updateCredential({ accessToken: '' });
		emulator.fault({ match: { path: '/auth/v1/token' }, ...proxy });
		const error = (await harness
			.execute(listJobs, { parameters: {} })
			.catch((e: unknown) => e)) as Error;
		expect(error.message).toBe(`Login failed: ${HTML}`);
	});

	it('refuses a plain-http Base URL off this machine before sending anything', async () => {
		const { emulator, harness } = service;
		harness.updateCredential({ baseUrl: 'http://example.com' });
		await expect(harness.execute(listJobs, { parameters: {} })).rejects.toThrow(
			/must start with https:\/\//,
		);
		expect(emulator.log).toHaveLength(0);
	});

	it('trims trailing slashes of the Base URL', async () => {
		const { emulator, harness } = service;
		harness.updateCredential({ baseUrl: `${emulator.baseUrl}///` });
		await harness.execute(listJobs, { parameters: {} });
		expect(emulator.log.map((e) => e.path)).toEqual(['/auth/v1/token', '/rest/v1/jobs']);
	});

	it('never puts the password, the API key or the token in an error', async () => {
		const { emulator, harness } = service;
		await harness.execute(listJobs, { parameters: {} });
		const token = String(harness.credential.accessToken);
		emulator.fault({ match: { path: '/rest/v1/jobs' }, status: 400, times: 1 });
		const error = await harness.execute(listJobs, { parameters: {} }).catch((e: unknown) => e);
		harness.updateCredential({ accessToken: '', password: 'a-secret-password' });
		const loginError = await harness.execute(listJobs, { parameters: {} }).catch((e: unknown) => e);
		for (const thrown of [error, loginError]) {
			const text =
				JSON.stringify(thrown, Object.getOwnPropertyNames(thrown)) +
				String((thrown as Error).message);
			expect(text).not.toContain('a-secret-password');
			expect(text).not.toContain(emulator.apiKey);
			expect(text).not.toContain(token);
		}
	});

	it('adds the key and token only to requests for the service itself', async () => {
		const type = new WebsiteExportApi();
		const authenticate = type.authenticate as (
			c: object,
			r: object,
		) => Promise<{ headers?: Record<string, string> }>;
		const credentials = { baseUrl: 'https://abc.supabase.co/', apiKey: 'k', accessToken: 't' };
		const own = await authenticate(credentials, { url: 'https://abc.supabase.co/rest/v1/jobs' });
		const foreign = await authenticate(credentials, { url: 'https://cdn.example.com/a.zip' });
		expect(own.headers).toEqual({ apikey: 'k', Authorization: 'Bearer t' });
		expect(foreign.headers).toBeUndefined();
		// n8n's HTTP Request node sends with the legacy request helper: its address is `uri`.
		const legacy = await authenticate(credentials, { uri: 'https://abc.supabase.co/rest/v1/jobs' });
		const legacyForeign = await authenticate(credentials, { uri: 'https://cdn.example.com/a.zip' });
		expect(legacy.headers).toEqual({ apikey: 'k', Authorization: 'Bearer t' });
		expect(legacyForeign.headers).toBeUndefined();
	});
});
