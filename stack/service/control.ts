// /__emulator/*: the controls over HTTP, for processes that cannot hold the Emulator object.
import { DEMO_USER, FREE_USER } from './accounts';
import type { EmulatorCore } from './core';
import { type EmuRequest, type Reply, jsonReply } from './reply';
import type { FaultSpec, Plan } from './types';

/** How to reach a service and log in: GET /health's answer, and the CLI's report to launch.ts. */
export function serviceAccess(baseUrl: string, apiKey: string) {
	return { baseUrl, apiKey, demoUser: { ...DEMO_USER }, freeUser: { ...FREE_USER } };
}

export async function handleControl(
	req: EmuRequest,
	core: EmulatorCore,
	baseUrl: string,
): Promise<Reply> {
	try {
		return await route(req, core, baseUrl);
	} catch (error) {
		return jsonReply(400, { error: (error as Error).message });
	}
}

async function route(req: EmuRequest, core: EmulatorCore, baseUrl: string): Promise<Reply> {
	const path = req.path.replace(/^\/__emulator/, '').replace(/\/$/, '');
	const key = `${req.method} ${path}`;
	const rowsTable = /^\/rows\/([^/]+)$/.exec(path)?.[1];
	switch (key) {
		case 'GET /health':
			return jsonReply(200, { ok: true, ...serviceAccess(baseUrl, core.apiKey) });
		case 'POST /reset':
			await core.reset();
			return jsonReply(200, { ok: true });
		case 'GET /clock':
			return jsonReply(200, { now: core.clock.now() });
		case 'POST /clock':
			return moveClock(req, core);
		case 'PATCH /settings':
			return jsonReply(200, core.updateSettings(jsonObject(req)));
		case 'GET /settings':
			return jsonReply(200, { ...core.settings });
		case 'POST /faults':
			core.faults.add(faultFromJson(jsonObject(req)));
			return jsonReply(201, { ok: true });
		case 'DELETE /faults':
			core.faults.clear();
			return jsonReply(200, { ok: true });
		case 'GET /log':
			return jsonReply(200, { log: core.log.entries, stats: core.log.stats() });
		case 'DELETE /log':
			core.log.clear();
			return jsonReply(200, { ok: true });
		case 'POST /users':
			return addUser(req, core);
	}
	if (rowsTable !== undefined && req.method === 'GET')
		return jsonReply(200, await core.rows(rowsTable));
	if (rowsTable !== undefined && req.method === 'POST') return insertRows(req, core, rowsTable);
	return jsonReply(404, { error: `no control endpoint ${key}` });
}

/** POST /clock: advance the emulator's clock by, or set it to, a number of milliseconds. */
async function moveClock(req: EmuRequest, core: EmulatorCore): Promise<Reply> {
	const body = jsonObject(req);
	if (typeof body.advanceMs === 'number') await core.advanceClock(body.advanceMs);
	else if (typeof body.setMs === 'number') await core.setClock(body.setMs);
	else throw new Error('send { "advanceMs": n } or { "setMs": n }');
	return jsonReply(200, { now: core.clock.now() });
}

/** POST /users: an account with an email address, a password and optionally a plan. */
async function addUser(req: EmuRequest, core: EmulatorCore): Promise<Reply> {
	const body = jsonObject(req);
	if (typeof body.email !== 'string' || typeof body.password !== 'string')
		throw new Error('send { email, password, plan? }');
	return jsonReply(
		201,
		await core.addUser({
			email: body.email,
			password: body.password,
			plan: body.plan as Plan | undefined,
		}),
	);
}

/** POST /rows/<table>: rows written straight into a table, owned by the given user if any. */
async function insertRows(req: EmuRequest, core: EmulatorCore, table: string): Promise<Reply> {
	const body = jsonObject(req);
	if (!Array.isArray(body.rows)) throw new Error('send { "rows": [...], "owner"?: email }');
	const owner = typeof body.owner === 'string' ? body.owner : undefined;
	return jsonReply(201, await core.insert(table, body.rows as object[], { owner }));
}

function jsonObject(req: EmuRequest): Record<string, unknown> {
	const text = req.body.toString('utf8').trim();
	if (text === '') return {};
	const value: unknown = JSON.parse(text);
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw new Error('the body must be a JSON object');
	return value as Record<string, unknown>;
}

/** JSON cannot carry a RegExp: `"pathRegex": "..."` (in `match`, or beside it) stands for one. */
function faultFromJson(body: Record<string, unknown>): FaultSpec {
	const { pathRegex, match, ...rest } = body;
	const spec = rest as FaultSpec;
	const given: Record<string, unknown> = { ...(match as object) };
	const regex = given.pathRegex ?? pathRegex;
	if (match !== undefined || regex !== undefined) {
		spec.match = {
			method: given.method as string | undefined,
			path: typeof regex === 'string' ? new RegExp(regex) : (given.path as string | undefined),
		};
	}
	return spec;
}
