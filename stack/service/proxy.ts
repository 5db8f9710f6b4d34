// /rest/v1/* to the real PostgREST, unchanged but for what Supabase's gateway and the emulator's
// settings add: the apikey stays behind (Kong's hide_credentials), `ignorePrefer` drops Prefer,
// the token's time claims follow the service clock, and downloads' created_at its format.
import type { EmulatorCore } from './core';
import { signJwt, verifyJwt } from './jwt';
import { bearerToken, type EmuRequest, type Reply } from './reply';

/** Hop-by-hop headers and the length (the body is passed on whole), dropped both ways. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];
/** And the host, the key (Kong's hide_credentials) and Origin (CORS is the gateway's, as Kong's cors plugin). */
const DROPPED_REQUEST_HEADERS = new Set([...HOP_BY_HOP, 'host', 'apikey', 'origin']);
/** And PostgREST's Date: the gateway's follows the service clock. */
const DROPPED_ANSWER_HEADERS = new Set([...HOP_BY_HOP, 'date']);

export async function proxyRest(req: EmuRequest, core: EmulatorCore): Promise<Reply> {
	await core.postgrest.setMaxRows(core.settings.maxRows);
	const headers: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(req.headers)) {
		if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
		if (name === 'prefer' && core.settings.ignorePrefer) continue;
		headers[name] = value;
	}
	const token = bearerToken(req);
	const resigned = token ? await postgrestToken(token, core) : undefined;
	if (resigned) headers.authorization = `Bearer ${resigned}`;
	const query = req.params.filter(([key]) => key !== 'apikey');
	const search =
		query.length === req.params.length ? req.query : new URLSearchParams(query).toString();
	const path = req.path.slice('/rest/v1'.length) || '/';
	const answer = await core.postgrest.forward(
		req.method,
		search ? `${path}?${search}` : path,
		headers,
		req.body,
	);
	const replyHeaders: Record<string, string> = {};
	for (const [name, value] of Object.entries(answer.headers)) {
		if (value !== undefined && !DROPPED_ANSWER_HEADERS.has(name))
			replyHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
	}
	return {
		status: answer.status,
		headers: replyHeaders,
		body: await downloadTimestamps(path, answer.status, answer.body, core),
	};
}

/** onPostgrestClock's token, worked out once per token and clock offset (a few tokens a test). */
function postgrestToken(token: string, core: EmulatorCore): Promise<string | undefined> {
	const key = `${Math.round(core.clock.state().offsetMs / 1000)} ${token}`;
	const { postgrestTokens: known } = core;
	if (known.size > 1000) known.clear(); // a test that moves its clock at every request
	let resigned = known.get(key);
	if (!resigned) known.set(key, (resigned = onPostgrestClock(token, core)));
	return resigned;
}

/**
 * PostgREST judges exp/iat by real time, the service by its own clock (tests move it): a token of
 * ours is re-signed with its time claims shifted by the clock's offset, so PostgREST's verdict
 * (`JWT expired`) is the one the service clock gives. Other tokens pass as they are (undefined).
 */
async function onPostgrestClock(token: string, core: EmulatorCore): Promise<string | undefined> {
	const verified = await verifyJwt(token, core.secret);
	if (!verified.ok) return undefined;
	const offsetSeconds = Math.round(core.clock.state().offsetMs / 1000);
	if (offsetSeconds === 0) return undefined;
	const claims = { ...verified.claims };
	for (const claim of ['exp', 'iat', 'nbf']) {
		if (typeof claims[claim] === 'number')
			claims[claim] = (claims[claim] as number) - offsetSeconds;
	}
	return await signJwt(claims, core.secret);
}

/** The clearly named rewrite: downloads' created_at in the form each row was written in. */
async function downloadTimestamps(
	path: string,
	status: number,
	body: Buffer,
	core: EmulatorCore,
): Promise<Buffer> {
	if (path !== '/downloads' || status !== 200 || body.length === 0) return body;
	let rows: unknown;
	try {
		rows = JSON.parse(body.toString('utf8'));
	} catch {
		return body;
	}
	if (!Array.isArray(rows)) return body;
	const rewritten = await core.withTimestampFormats(
		'downloads',
		rows as Array<Record<string, unknown>>,
	);
	return rewritten === rows ? body : Buffer.from(JSON.stringify(rewritten));
}
