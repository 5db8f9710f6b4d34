/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: the oracle of the Batching property test (issue 43): a plain loop that sends each item's requests one by one with fetch, straight to PostgREST, under n8n's item contract, and states each item's output or error as the README promises it; nothing from nodes/.
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IDataObject } from 'n8n-workflow';

/** README, Errors, retries and limits: 4 attempts in all; the node waits for a Retry-After of 60 s at most. */
const MAX_ATTEMPTS = 4;
const MAX_RETRY_AFTER_MS = 60_000;
/** "Created since the request was sent", by the service's Date headers, which count whole seconds. */
const SLACK_MS = 2_000;
const DAY_MS = 86_400_000;
const RETURN = 'return=representation';
/** README, Errors, retries and limits: a gateway takes request lines of 8 KiB at most. */
const MAX_LINE_BYTES = 8 * 1024;
/** The page the longest line asks for: after the largest id and the longest created_at, 1 000 rows. */
const LONGEST_AFTER = {
	id: Number.MAX_SAFE_INTEGER,
	created_at: '9999-12-31 23:59:59.999999+00:00',
};
const PAGE_SIZE = 1000;

/** One run of the node; each item's JSON says what it asks for (see the operations below). */
export interface OracleTask {
	resource: 'job' | 'option' | 'download';
	operation: 'get' | 'getAll' | 'create' | 'update' | 'delete' | 'downloadArchive';
	items: IDataObject[];
	continueOnFail: boolean;
	/** Select By → Record: By ID, or (jobs) By URL; an item with `by: 'field'` names its `field`. */
	locator: 'id' | 'url';
	downloadBy: 'id' | 'link';
	/** Get Many: Return All or the first `limit`, filters by column, the order, Only Valid Links. */
	list: {
		returnAll: boolean;
		limit: number;
		filters: IDataObject;
		oldest: boolean;
		valid: boolean;
	};
	wait?: { timeoutSeconds: number; intervalSeconds: number };
	/** A fault's reach (the property test's allowed difference): these items' requests meet it. */
	forced?: Forced;
	/** The service's row cap, as its settings say. */
	pageRows?: number;
	/** Options → Timeout (ms): how long a request waits for its answer. */
	timeoutMs?: number;
}

/**
 * What a fault answers these items' first request to `path` (`/rest/v1/jobs`, `/auth/v1/token`)
 * with: a status and body in its stead, or (cutAfterBytes) the real answer with its body cut.
 */
export interface Forced {
	method: string;
	path: string;
	status: number;
	body?: unknown;
	contentType?: string;
	cutAfterBytes?: number;
	retryAfterMs?: number;
	items: number[];
	/** Which of the item's requests to `path` meets it: the nth (1 by default). */
	nth?: number;
	/** A 401, and the login n8n then runs refused with this answer. */
	refusedLogin?: IDataObject;
	/** Held this long by the service, and carried out then (past the Timeout: unanswered). */
	heldMs?: number;
	/** Held, then refused: a group held past the Timeout is written whole or not at all. */
	refusedWhenHeld?: boolean;
}

export type Login = { baseUrl: string; apiKey: string; email: string; password: string };
export type OracleStatus =
	| 'success'
	| { error: string; message?: string; description?: string; itemIndex: number };

const VALIDITY =
	'Links are valid for 24 hours after the job finished: run the job again to get a new link.';

/** What the user reads, by situation (README, Operations and Errors, retries and limits): message, description. */
export const TEXT = {
	notFound: (label: string) => [
		`No ${label} was found`,
		'It does not exist, or it belongs to another account (the service only shows your own records).',
	],
	ambiguous: (n: number, label: string) => [
		`${n} records match the ${label}`,
		'Select By must identify exactly one record: use the ID, or a field whose value is unique.',
	],
	notReturned: (noun: string) => `The service accepted the ${noun} but did not return it`,
	/** README, Lost answers: what the lookup saw, never a guess; `waitedMs` after a timeout. */
	noneCreated: (noun: string, waitedMs?: number) =>
		`Not found yet: no ${noun} with these values was created between the request and the lookup${waitedMs === undefined ? '' : ` ${waitedMs} ms after the node stopped waiting`}.`,
	severalCreated: (noun: string, ids: unknown[]) =>
		`${ids.length} ${noun}s with these values were created since the request was sent (IDs ${ids.join(', ')}): the node cannot tell which one is this item's.`,
	lookFor: (hint: string) => `Look for it with ${hint} before running this item again.`,
	mayExist: (noun: string, timedOut = false) =>
		timedOut
			? `The service did not answer in time: it may have created the ${noun}, or create it later.`
			: `The service did not answer, and it may have created the ${noun}.`,
	jobHint: (url: unknown, email: unknown) =>
		`Job → Get Many with the filters URL "${String(url)}" and Email "${String(email)}"`,
	optionHint: (job: unknown, mode: unknown) => {
		const filters = [job === null || job === undefined ? '' : `Job ID ${String(job)}`];
		if (mode !== undefined) filters.push(`Mode "${String(mode)}"`);
		const named = filters.filter(Boolean);
		return `Option → Get Many${named.length ? ` with the filters ${named.join(' and ')}` : ''}`;
	},
	jobFirst: (id: unknown) =>
		`The job itself was created (ID ${String(id)}): rather than running this item again, add the option with Option → Create and Job ID ${String(id)}.`,
	exportFailed: (id: unknown, url: unknown) => [
		`The export of job ${String(id)} failed`,
		`The service could not export ${String(url)}. Check that the address is public and reachable, then create a new job.`,
	],
	timedOut: (id: unknown, state: string, seconds: number) => [
		`Job ${String(id)} is ${state} after ${seconds} s`,
		`The export goes on without the node. Use Job → Get with ID ${String(id)}, or Download → Get Many with Job ID ${String(id)}, later to fetch it, or raise Timeout (Seconds).`,
	],
	expired: (subject: string, on: string) => [`${subject} expired on ${on}`, VALIDITY],
	/** A 2xx whose body is not the JSON due (issue 47): a proxy's page, a cut-off body. */
	htmlPage: 'The service answered with an HTML page, not JSON: is a proxy in between?',
	cutOff: 'The answer ended before its JSON did: a proxy or the network cut it.',
	/** Options → Timeout: no answer in time (issue 47); an update is then not sent again. */
	noAnswer: (ms: number) => `The service did not answer within ${ms} ms (Options → Timeout)`,
	lateUpdate:
		'The service may still carry out this update later, even after the writes of later items, and so undo them; for that reason it was not sent again. Read the record (e.g. Job → Get) to see its values before running this item again. If the service is only slow, raise Options → Timeout.',
	/** README, Request lines stay within 8 KiB: a value too long for its pages, before any request. */
	tooLong: (field: string, bytes: number, item: number) => [
		`Invalid input: ${field} is too long`,
		`Its pages would be asked for with request lines of up to ${bytes} bytes (the filters URL-encoded, and where the page starts), and a gateway in front of the service takes at most ${MAX_LINE_BYTES}: shorten ${field}. [item ${item}]`,
	],
	/** README, Credentials: the login refused (n8n logs in again after a 401). */
	loginFailed: (said: unknown) =>
		`Login failed (${String(said)}): check the email and password of the Website Export account`,
	loginAdvice:
		'Open the Website Export credential of this node and correct it: saving it tests the login.',
	gone: (subject: string, said: unknown) => [
		`${subject} no longer works: the storage answered "${String(said)}"`,
		`The archive has expired or was removed. ${VALIDITY}`,
	],
};

/** Some words of a text answer on one line, as a broken answer's details quote it. */
const excerpt = (text: string) => {
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length > 120 ? `${line.slice(0, 120)}…` : line;
};

/**
 * What a 2xx body is (issue 47): its JSON, null for a write's 201/204 without one, or, where a
 * list of records was due and something else came, what the user is told came back.
 */
function shapeOf(method: string, status: number, text: string, type: string) {
	const due = 'where a list was due';
	if (text === '')
		return method === 'GET' || (status !== 201 && status !== 204)
			? { broken: { message: `The service answered with an empty body ${due}` } }
			: { body: null };
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		if (/html/i.test(type) || text.trimStart().startsWith('<'))
			return { broken: { message: TEXT.htmlPage, details: `The page begins: ${excerpt(text)}` } };
		const bytes = Buffer.byteLength(text);
		const message = `The service answered with a JSON body cut off after ${bytes} bytes`;
		return { broken: { message, details: TEXT.cutOff } };
	}
	if (Array.isArray(body)) return { body };
	return { broken: { message: `The service answered with an object ${due}` } };
}

/** An item's error: a NodeApiError (the service's answer or verdict) or a NodeOperationError. */
class Failure extends Error {
	description?: string;
	constructor(
		[message, description]: Array<string | undefined>,
		readonly kind = 'NodeApiError',
	) {
		super(message);
		this.description = description;
	}
}

type Reply = {
	status: number;
	body: unknown;
	wait?: number;
	attempts: number;
	lost: boolean;
	/** A 2xx whose body was not the JSON due: `body` says what came back. */
	broken?: boolean;
};
type Answer = { status: number; text: string; type: string; wait?: number };

/** The service's own words (PostgREST's message, hint, details and code), and the attempts made. */
function serviceFailure({ body, attempts }: Reply): Failure {
	const said = (body ?? {}) as IDataObject;
	const notes = [said.hint, said.details, said.code && `Code: ${String(said.code)}`];
	const gaveUp = attempts > 1 && `Gave up after ${attempts} attempts.`;
	const description = [notes.filter(Boolean).join(' — '), gaveUp].filter(Boolean).join(' ');
	return new Failure([String(said.message), description || undefined]);
}

/** A login refused, in the auth server's words (README, Credentials). */
const loginFailure = (said: IDataObject) =>
	new Failure([TEXT.loginFailed(said.msg ?? said.message), TEXT.loginAdvice]);

/** An answer as the wire gives it: status, body text, Content-Type, Retry-After in ms. */
async function answerOf(answer: Response, cutAfterBytes?: number): Promise<Answer> {
	const [text, retryAfter] = [await answer.text(), answer.headers.get('retry-after')];
	const cut = cutAfterBytes === undefined ? text : Buffer.from(text).subarray(0, cutAfterBytes);
	const wait = retryAfter === null ? undefined : Number(retryAfter) * 1000;
	const type = answer.headers.get('content-type') ?? '';
	return { status: answer.status, text: cut.toString(), type, wait };
}

/**
 * The requests of one run: the login (when the credential holds no token, and again after a
 * 401, as n8n does), the README's retries, the service's clock.
 */
class Session {
	/** The service's time: the Date of its last answer. */
	now = Date.now();
	item = 0;
	/** Rows a create returned to an earlier item: never handed to another. */
	readonly claimed = new Set<unknown>();
	/** Per table, the highest id an answer showed: a create sent later made none at or below it. */
	readonly highest = new Map<string, number>();
	/** Per item, its requests the forced fault's `path` matched so far. */
	private readonly forcedSeen = new Map<number, number>();

	constructor(
		readonly login: Login,
		/** The credential's token, kept from run to run as n8n keeps it. */
		public token: string,
		private readonly forced?: Forced,
		/** The service's row cap (its max-rows setting): a shorter page is the last. */
		private readonly pageRows = 1000,
		readonly timeoutMs = 60_000,
	) {}

	/** The fault this item's nth such request meets, once. */
	private forcedOn(method: string, path: string): Forced | undefined {
		const forced = this.forced;
		const methods = [method, '*'];
		if (!forced || !methods.includes(forced.method) || !path.startsWith(forced.path))
			return undefined;
		if (!forced.items.includes(this.item)) return undefined;
		const seen = (this.forcedSeen.get(this.item) ?? 0) + 1;
		this.forcedSeen.set(this.item, seen);
		return seen === (forced.nth ?? 1) ? forced : undefined;
	}

	private async forcedAnswer(forced: Forced, send: () => Promise<Response>): Promise<Answer> {
		if (forced.heldMs !== undefined) {
			if (!forced.refusedWhenHeld) void sleep(forced.heldMs).then(send);
			await sleep(Math.min(forced.heldMs, this.timeoutMs));
			if (forced.heldMs >= this.timeoutMs) return { status: 0, text: '', type: '' };
		}
		if (forced.cutAfterBytes !== undefined) return answerOf(await send(), forced.cutAfterBytes);
		const body = forced.body ?? {
			code: String(forced.status),
			message: STATUS_CODES[forced.status],
		};
		const text = typeof body === 'string' ? body : JSON.stringify(body);
		const type = forced.contentType ?? 'application/json';
		return { status: forced.status, text, type, wait: forced.retryAfterMs };
	}

	/** The token exchange; a refusal fails the request that needed it (README, Credentials). */
	async logIn(): Promise<void> {
		const { baseUrl, apiKey: apikey, email, password } = this.login;
		const body = JSON.stringify({ email, password });
		const init = { method: 'POST', headers: { apikey, 'content-type': 'application/json' }, body };
		const send = () => fetch(`${baseUrl}/auth/v1/token?grant_type=password`, init);
		const forced = this.forcedOn('POST', '/auth/v1/token');
		const answer = forced ? await this.forcedAnswer(forced, send) : await answerOf(await send());
		const said = JSON.parse(answer.text || '{}') as IDataObject;
		if (answer.status >= 400) throw loginFailure(said);
		this.token = said.access_token as string;
	}

	headers = (prefer?: string): Record<string, string> => ({
		...{ apikey: this.login.apiKey, authorization: `Bearer ${this.token}` },
		...{ 'content-type': 'application/json', ...(prefer ? { prefer } : {}) },
	});

	private async once(method: string, path: string, body?: unknown, prefer?: string) {
		const url = `${this.login.baseUrl}/rest/v1${path}`;
		const init = () => ({ method, headers: this.headers(prefer), body: JSON.stringify(body) });
		const forced = this.forcedOn(method, `/rest/v1${path}`);
		const refused = forced?.refusedLogin;
		if (refused) throw loginFailure(refused);
		if (forced) return await this.forcedAnswer(forced, () => fetch(url, init()));
		if (!this.token) await this.logIn();
		const signal = () => AbortSignal.timeout(this.timeoutMs);
		const timedOut: Answer = { status: 0, text: '', type: '' };
		let answer = await fetch(url, { ...init(), signal: signal() }).catch(() => undefined);
		if (answer?.status === 401) await this.logIn();
		if (answer?.status === 401)
			answer = await fetch(url, { ...init(), signal: signal() }).catch(() => undefined);
		if (!answer) return timedOut;
		this.now = Date.parse(answer.headers.get('date') ?? '') || this.now;
		return await answerOf(answer).catch(() => timedOut);
	}

	/**
	 * A 429 is sent again for every method, a 5xx for all but POST (which may have created a row);
	 * a 2xx whose body is not the JSON due as a 5xx (issue 47): a read tried again, a write's
	 * answer lost.
	 */
	async send(method: string, path: string, body?: unknown, prefer?: string): Promise<Reply> {
		for (let attempts = 1, lost = false; ; attempts++) {
			const answer = await this.once(method, path, body, prefer);
			const { status, text, type, wait } = answer;
			const shape = status < 300 ? shapeOf(method, status, text, type) : undefined;
			const broken = shape?.broken !== undefined;
			const parsed = shape ? (shape.broken ?? shape.body) : text ? JSON.parse(text) : null;
			const late = { message: TEXT.noAnswer(this.timeoutMs) };
			const reply = { status, body: (status ? parsed : late) as unknown, wait, broken };
			if (status < 300) this.see(path, reply.body);
			const failed = status >= 500 || status === 0 || broken;
			lost ||= failed && method !== 'GET';
			// A PATCH that timed out may land later, after later writes: never sent again (README).
			const again =
				status === 429 || (method !== 'POST' && failed && !(status === 0 && method === 'PATCH'));
			// A create that timed out is looked up once the Timeout has passed again (README).
			if (status === 0 && method === 'POST') await sleep(this.timeoutMs);
			const delay = wait ?? 500 * 2 ** (attempts - 1);
			if (!again || attempts === MAX_ATTEMPTS || delay > MAX_RETRY_AFTER_MS)
				return { ...reply, attempts, lost };
			await sleep(delay);
		}
	}

	/** Notes the highest id of the rows an answer showed, per table (README, Lost answers). */
	private see(path: string, body: unknown) {
		const table = path.split(/[/?]/)[1];
		for (const row of Array.isArray(body) ? (body as IDataObject[]) : [])
			if (typeof row?.id === 'number' && row.id > (this.highest.get(table) ?? 0))
				this.highest.set(table, row.id);
	}

	async request(method: string, path: string, body?: unknown, prefer?: string) {
		const reply = await this.send(method, path, body, prefer);
		if (reply.status >= 400 || (reply.broken && !reply.lost)) throw serviceFailure(reply);
		return reply;
	}

	/**
	 * Every row of a query (`order` ends with id), page after page of the service's row cap as its
	 * settings say, until a page is shorter; each page the rows after the last one received, in
	 * that order (keyset), so that rows another writer adds or removes meanwhile move none.
	 */
	async readAll(table: string, where: string, order: string, max = Infinity) {
		const rows: IDataObject[] = [];
		for (;;) {
			const asked = Math.min(max - rows.length, this.pageRows);
			const after = rows.length ? keysetAfter(order, rows[rows.length - 1]) : '';
			const query = ['select=*', where, after, `order=${order}`, `limit=${asked}`];
			const path = `/${table}?${query.filter(Boolean).join('&')}`;
			const page = (await this.request('GET', path)).body as IDataObject[];
			rows.push(...page);
			if (page.length < asked || rows.length >= max) return rows;
		}
	}
}

/** PostgREST's filter for the rows after `row` in `order` (`created_at.desc,id.desc`, `id`). */
function keysetAfter(order: string, row: IDataObject): string {
	const keys = order.split(',').map((key) => {
		const [column, way = 'asc'] = key.split('.');
		const value = JSON.stringify(String(row[column]));
		return { column, op: way === 'desc' ? 'lt' : 'gt', value };
	});
	const [last] = keys.splice(-1);
	if (keys.length === 0) return `${last.column}=${last.op}.${String(row[last.column])}`;
	const [first] = keys;
	// The id goes as it is (a number needs no quotes); created_at quoted (its `:` and `.`).
	const tie = `and(${first.column}.eq.${first.value},${last.column}.${last.op}.${String(row[last.column])})`;
	return `or=${encodeURIComponent(`(${first.column}.${first.op}.${first.value},${tie})`)}`;
}

/**
 * The longest request line any page of a read can have (README: the filters URL-encoded, a page
 * after the largest id, 2^53 − 1, and the longest created_at, of 1 000 rows); over 8 KiB, the
 * item is refused before any request, naming the value's field.
 */
export function longestLineBytes(table: string, where: string, order: string): number {
	const after = keysetAfter(order, LONGEST_AFTER);
	const query = ['select=*', where, after, `order=${order}`, `limit=${PAGE_SIZE}`];
	return Buffer.byteLength(`GET /rest/v1/${table}?${query.filter(Boolean).join('&')} HTTP/1.1`);
}

function checkLine(s: Session, table: string, where: string, order: string, field: string) {
	const bytes = longestLineBytes(table, where, order);
	if (bytes > MAX_LINE_BYTES)
		throw new Failure(TEXT.tooLong(field, bytes, s.item), 'NodeOperationError');
}

const eq = (column: string, value: unknown) => `${column}=eq.${encodeURIComponent(String(value))}`;
const byId = (id: unknown) => `id=eq.${String(id)}`;

/** An ID as the service's Postgres reads it (`+1_000 ` is 1000): the record it was asked for. */
const asRead = (value: string) =>
	/^\s*\+?\d+(_\d+)*\s*$/.test(value) ? BigInt(value.replace(/[\s+_]/g, '')).toString() : value;

/** The one record an item's Select By names (README, Operations: it must match exactly one). */
async function selectOne(s: Session, task: OracleTask, item: IDataObject) {
	const [noun, value] = [task.resource, String(item.value)];
	const column = item.by === 'field' ? String(item.field) : task.locator;
	const record = { id: `ID ${asRead(value)}`, url: `URL "${value}"` }[task.locator];
	const label = `${noun} with ${item.by === 'field' ? `${column} "${value}"` : record}`;
	const Noun = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}`;
	const field = item.by === 'field' ? 'Value' : `${Noun} ${task.locator === 'url' ? 'URL' : 'ID'}`;
	checkLine(s, `${noun}s`, eq(column, value), 'id.asc', field);
	const rows = await s.readAll(`${noun}s`, eq(column, value), 'id.asc');
	if (rows.length === 1) return { row: rows[0], label };
	throw new Failure(rows.length ? TEXT.ambiguous(rows.length, label) : TEXT.notFound(label));
}

/** Every download shows `expires_at` (created_at + 24 h) and `is_expired` by the service's clock. */
const withExpiry = (row: IDataObject, now: number) => {
	const expires = Date.parse(String(row.created_at)) + DAY_MS;
	return { ...row, expires_at: new Date(expires).toISOString(), is_expired: now >= expires };
};

/**
 * A create: its row; when its answer was lost or had none, the one row with the values sent,
 * created since the request and returned to no earlier item (README, Lost answers), `recovered`
 * after a lost answer; otherwise the item fails saying where to look. Never sent twice.
 */
async function create(s: Session, table: 'jobs' | 'options', body: IDataObject) {
	const since = new Date(s.now - SLACK_MS).toISOString();
	// Ids are identity: a row at or below the highest id seen before the request is not its.
	const floor = s.highest.get(table) ?? 0;
	const reply = await s.send('POST', `/${table}`, body, RETURN);
	if (reply.status >= 400 && !reply.lost) throw serviceFailure(reply);
	const [row] = Array.isArray(reply.body) ? (reply.body as IDataObject[]) : [];
	const same = (one: IDataObject) => Object.keys(body).every((key) => one[key] === body[key]);
	const created = row ? [] : await s.readAll(table, `created_at=gte.${since}`, 'id.asc');
	const mine = (one: IDataObject) => !s.claimed.has(one.id) && Number(one.id) > floor;
	const found = row ? [row] : created.filter((one) => mine(one) && same(one));
	if (found.length === 1) {
		s.claimed.add(found[0].id);
		return reply.lost ? { ...found[0], recovered: true } : found[0];
	}
	const noun = table.slice(0, -1);
	const ids = found.map((one) => one.id);
	const timedOut = reply.status === 0;
	const waited = timedOut ? s.timeoutMs : undefined;
	const summary = ids.length ? TEXT.severalCreated(noun, ids) : TEXT.noneCreated(noun, waited);
	const hint =
		table === 'jobs' ? TEXT.jobHint(body.url, body.email) : TEXT.optionHint(body.job_id, body.mode);
	if (!reply.lost) throw new Failure([TEXT.notReturned(noun), `${summary} ${TEXT.lookFor(hint)}`]);
	const { message } = serviceFailure(reply);
	const mayExist = TEXT.mayExist(noun, timedOut);
	throw new Failure([message, `${mayExist} ${summary} ${TEXT.lookFor(hint)}`]);
}

/** An option's row with every column, as creates send it (README, Operations). */
const optionRow = (item: IDataObject, jobId: unknown): IDataObject => ({
	mode: item.mode,
	relative_path: item.mode === 'relative' ? item.path : '/',
	replace_url: item.mode === 'absolute' ? item.replace : '',
	job_id: jobId === '' || jobId === undefined ? null : Number(jobId),
});

/** Option → Create; Job → Create: the job, then its export option, then the wait (README, Operations). */
async function createOne(s: Session, task: OracleTask, item: IDataObject) {
	if (task.resource === 'option')
		return [{ json: await create(s, 'options', optionRow(item, item.jobId)) }];
	const job = await create(s, 'jobs', { url: item.url, email: item.email });
	const option =
		item.mode === 'none'
			? undefined
			: await create(s, 'options', optionRow(item, job.id)).catch((failure: Failure) => {
					failure.description = [failure.description, TEXT.jobFirst(job.id)]
						.filter(Boolean)
						.join(' ');
					throw failure;
				});
	// README, Lost answers: a job found after a lost answer is `recovered`, waited for or not.
	const marked = job.recovered ? { recovered: true } : {};
	const done = task.wait ? { ...(await waitFor(s, job, task.wait)), ...marked } : job;
	return [{ json: option ? { ...done, option } : done }];
}

/** Wait for Completion: the job checked until it has finished (and has its download), failed, or time is up. */
async function waitFor(s: Session, job: IDataObject, wait: NonNullable<OracleTask['wait']>) {
	const deadline = Date.now() + wait.timeoutSeconds * 1000;
	for (;;) {
		const [now] = await s.readAll('jobs', byId(job.id), 'id.asc');
		if (now.status === 'failed') throw new Failure(TEXT.exportFailed(job.id, now.url));
		const query = `job_id=eq.${String(job.id)}`;
		const [download] =
			now.status === 'finished'
				? await s.readAll('downloads', query, 'created_at.desc,id.desc')
				: [];
		if (download) return { ...now, download: withExpiry(download, s.now) };
		if (Date.now() >= deadline) {
			const late = 'finished, but its download link is not there yet,';
			const state = now.status === 'finished' ? late : `still ${String(now.status)}`;
			throw new Failure(TEXT.timedOut(job.id, state, wait.timeoutSeconds), 'NodeOperationError');
		}
		await sleep(Math.max(0, Math.min(wait.intervalSeconds * 1000, deadline - Date.now())));
	}
}

/** Update: the record read, then patched by its id with the fields given ('' = unchanged); the record as written. */
async function update(s: Session, task: OracleTask, item: IDataObject) {
	const { row, label } = await selectOne(s, task, item);
	const given = (value: unknown) => (value === '' ? undefined : value);
	const [jobId, table] = [item.jobId ? Number(item.jobId) : undefined, `${task.resource}s`];
	const patch =
		task.resource === 'job'
			? { url: given(item.url), email: given(item.email), status: given(item.status) }
			: {
					mode: given(item.mode),
					relative_path: given(item.path),
					replace_url: given(item.replace),
					job_id: jobId,
				};
	const reply = await s.send('PATCH', `/${table}?id=eq.${String(row.id)}`, patch, RETURN);
	if (reply.status === 0) throw new Failure([TEXT.noAnswer(s.timeoutMs), TEXT.lateUpdate]);
	if (reply.status >= 400 || (reply.broken && !reply.lost)) throw serviceFailure(reply);
	const { body } = reply;
	const rows = Array.isArray(body)
		? (body as IDataObject[])
		: await s.readAll(table, byId(row.id), 'id.asc');
	const written = rows.find((one) => one.id === row.id);
	if (!written) throw new Failure(TEXT.notFound(label));
	return [{ json: written }];
}

/** Delete: the record read, then deleted by its id; output as it was read, with `deleted: true`. */
async function remove(s: Session, task: OracleTask, item: IDataObject) {
	const { row, label } = await selectOne(s, task, item);
	const table = `${task.resource}s`;
	const reply = await s.request('DELETE', `/${table}?id=eq.${String(row.id)}`, undefined, RETURN);
	const listed = Array.isArray(reply.body) && !reply.lost;
	const gone = listed
		? (reply.body as IDataObject[]).some((one) => one.id === row.id)
		: (await s.readAll(table, byId(row.id), 'id.asc')).length === 0;
	if (!gone) throw new Failure(TEXT.notFound(label));
	return [{ json: { deleted: true, ...row } }];
}

/** Get Many's filters as the editor names them. */
const FILTER_NAMES: Record<string, string> = {
	url: 'URL',
	email: 'Email',
	status: 'Status',
	job_id: 'Job ID',
	mode: 'Mode',
};

/** Get Many: the matching rows (the first Limit of them), in the README's order for the resource. */
async function list(s: Session, task: OracleTask) {
	const { returnAll, limit, filters, oldest, valid } = task.list;
	const max = returnAll ? Infinity : limit;
	const where = Object.entries(filters).map(([column, value]) => eq(column, value));
	const way = oldest ? 'asc' : 'desc';
	const order = {
		job: `created_at.${way},id.${way}`,
		option: 'id.asc',
		download: 'created_at.desc,id.desc',
	};
	const [query, sort] = [where.join('&'), order[task.resource]];
	// The widest filter is the one named (README: the field to shorten).
	const widest = Object.keys(filters).sort(
		(a, b) => eq(b, filters[b]).length - eq(a, filters[a]).length,
	)[0];
	checkLine(s, `${task.resource}s`, query, sort, FILTER_NAMES[widest] ?? widest);
	if (task.resource !== 'download')
		return (await s.readAll(`${task.resource}s`, query, sort, max)).map((json) => ({ json }));
	const rows = (await s.readAll('downloads', query, sort)).map((row) => withExpiry(row, s.now));
	return rows
		.filter((row) => !valid || !row.is_expired)
		.slice(0, max)
		.map((json) => ({ json }));
}

/** Download Archive: By ID the download read first (an expired link refused before any download), then the archive. */
async function downloadArchive(s: Session, task: OracleTask, item: IDataObject) {
	let [json, subject]: [IDataObject, string] = [{ download_link: item.value }, 'The download link'];
	if (task.downloadBy === 'id') {
		const { row } = await selectOne(s, { ...task, locator: 'id' }, { value: item.value });
		[json, subject] = [withExpiry(row, s.now), `The download link of download ${String(row.id)}`];
		const on = String(json.expires_at)
			.replace('T', ' ')
			.replace(/\.\d+Z$/, ' UTC');
		if (json.is_expired) throw new Failure(TEXT.expired(subject, on));
	}
	const link = String(json.download_link);
	const answer = await fetch(link, { headers: s.headers() });
	if (answer.status === 400 || answer.status === 404)
		throw new Failure(TEXT.gone(subject, ((await answer.json()) as IDataObject).message));
	const fileSize = (await answer.arrayBuffer()).byteLength;
	const fileName = decodeURIComponent(new URL(link).pathname.split('/').pop() ?? '');
	const binary = { data: { fileName, mimeType: 'application/zip' } };
	return [{ json: { ...json, fileName, fileSize }, binary }];
}

type Run = (
	s: Session,
	task: OracleTask,
	item: IDataObject,
) => Promise<Array<{ json: IDataObject; binary?: IDataObject }>>;
const OPERATIONS: Record<OracleTask['operation'], Run> = {
	get: async (s, task, item) => {
		const { row } = await selectOne(s, task, item);
		return [{ json: task.resource === 'download' ? withExpiry(row, s.now) : row }];
	},
	getAll: list,
	create: createOne,
	update,
	delete: remove,
	downloadArchive,
};

/**
 * n8n's item contract, as written: items in order, each sent only when the one before it is done.
 * Without Continue On Fail the first failing item ends the run, its error the run's (nothing after
 * it is sent); with it, a failing item's output is `{ error, details? }` and the next one goes on.
 */
export async function runOracle(login: Login, task: OracleTask, token = '') {
	const s = new Session(login, token, task.forced, task.pageRows, task.timeoutMs);
	const run = await itemByItem(s, task);
	return { ...run, token: s.token };
}

async function itemByItem(s: Session, task: OracleTask) {
	const output: IDataObject[] = [];
	for (; s.item < task.items.length; s.item++) {
		const pairedItem = { item: s.item };
		try {
			const results = await OPERATIONS[task.operation](s, task, task.items[s.item]);
			output.push(...results.map((result) => ({ ...result, pairedItem })));
		} catch (caught) {
			if (!(caught instanceof Failure)) throw caught;
			const { kind: error, message, description } = caught;
			const status: OracleStatus = { error, message, description, itemIndex: s.item };
			if (!task.continueOnFail) return { status, output: [] };
			output.push({
				json: { error: message, ...(description ? { details: description } : {}) },
				pairedItem,
			});
		}
	}
	return { status: 'success' as OracleStatus, output };
}
