// Why: sends a request to the service through the credential and says how it ended (an answer, a refusal, a lost answer), retries and the 429 pause included.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { RenewalGate } from '../auth/renewal';
import { CREDENTIAL_NAME, REQUEST_TIMEOUT_MS } from '../constants';
import { readServiceFailure, type ServiceFailure } from '../serviceError';
import { answerLost } from './lostAnswer';
import { DEFAULT_RETRY_POLICY, isIdempotent, retryDelay, type RetryPolicy } from './retry';

export type TransportContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** `itemIndex`: the item the request is made for: errors name it, so the editor can point at it. */
export type CallOptions = { itemIndex?: number };

export interface SendOptions extends CallOptions {
	body?: IDataObject | IDataObject[];
	/** PostgREST's Prefer header: `return=representation`, `count=exact`. */
	prefer?: string;
	/** Request options of the caller's own, e.g. an archive's stream encoding. */
	http?: Partial<IHttpRequestOptions>;
	/** Looks at a failed attempt first: may take it as the answer (an archive's redirect). */
	onFailure?: (error: unknown) => Promise<ServiceResponse | undefined>;
}

export type ServiceResponse = { body: unknown; headers: IDataObject; statusCode: number };

/** How one attempt ended: a lost answer may have been carried out, a refusal was not. */
type Attempt =
	| { kind: 'answer'; response: ServiceResponse }
	| { kind: 'refused' | 'lost'; failure: ServiceFailure };

/** How a request ended once retried: `afterLostAnswer` when an earlier attempt may have been carried out. */
export type Outcome =
	| { kind: 'answer'; response: ServiceResponse; afterLostAnswer: boolean }
	| { kind: 'refused' | 'lost'; error: NodeApiError };

/** Sends an execution's requests through n8n's `httpRequestWithAuthentication`: the credential adds the key and the token, n8n logs in again after a 401. */
export class ServiceRequests {
	/** The service's clock (Date header of its last answer) and ours then: links and tokens expire by it. */
	private serviceTime?: { service: number; local: number };
	/** A 429 pauses every request of this execution, not just the one that got it. */
	private pausedUntil = 0;
	private readonly gate: RenewalGate;
	/** Requests on the wire now, and those waiting for one of the `inFlight` places. */
	private open = 0;
	private readonly queued: Array<() => void> = [];

	constructor(
		private readonly ctx: TransportContext,
		tokenExpiresAt: number | undefined,
		private readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
		/** Requests in Flight: the most requests on the wire at once, however the callers nest. */
		private readonly inFlight = Infinity,
	) {
		const storedToken = async () => (await ctx.getCredentials(CREDENTIAL_NAME))?.accessToken;
		this.gate = new RenewalGate(tokenExpiresAt, () => this.serviceNow(), storedToken);
	}

	/** The service's time now; this machine's before any answer. Date counts whole seconds: up to 1 s early. */
	serviceNow(): number {
		const time = this.serviceTime;
		return time ? time.service + (Date.now() - time.local) : Date.now();
	}

	/** The answer; a refusal or a lost answer is thrown as the NodeApiError the user sees. */
	async request(method: IHttpRequestMethods, url: string, options: SendOptions = {}) {
		const outcome = await this.send(method, url, options);
		if (outcome.kind === 'answer') return outcome.response;
		throw outcome.error;
	}

	/** Attempts until an answer comes or the retry policy (retry.ts) gives up. */
	async send(
		method: IHttpRequestMethods,
		url: string,
		options: SendOptions = {},
	): Promise<Outcome> {
		let afterLostAnswer = false;
		for (let attempt = 1; ; attempt++) {
			const result = await this.attempt(method, url, options);
			if (result.kind === 'answer') return { ...result, afterLostAnswer };
			const { failure } = result;
			const delay = retryDelay(failure, method, attempt, this.retry);
			if (delay === undefined) {
				return { kind: result.kind, error: this.giveUp(failure, method, attempt, options) };
			}
			afterLostAnswer ||= result.kind === 'lost';
			if (failure.status === 429) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delay);
			else await sleep(delay);
		}
	}

	private async attempt(method: IHttpRequestMethods, url: string, options: SendOptions) {
		const pause = this.pausedUntil - Date.now();
		if (pause > 0) await sleep(pause);
		const endRenewal = await this.gate.pass();
		// Taken after the renewal gate: the one request that renews never waits behind those it holds back.
		await this.takePlace();
		const { prefer, body } = options;
		const request: IHttpRequestOptions = {
			method,
			url,
			headers: { Accept: 'application/json', ...(prefer && { Prefer: prefer }) },
			...(body !== undefined && { body }),
			returnFullResponse: true,
			json: true,
			timeout: REQUEST_TIMEOUT_MS,
			...options.http,
		};
		try {
			const response = (await this.ctx.helpers.httpRequestWithAuthentication.call(
				this.ctx,
				CREDENTIAL_NAME,
				request,
			)) as ServiceResponse;
			const date = Date.parse(String(response.headers?.date));
			if (!Number.isNaN(date)) this.serviceTime = { service: date, local: Date.now() };
			return { kind: 'answer', response } satisfies Attempt;
		} catch (error) {
			const taken = await options.onFailure?.(error);
			if (taken) return { kind: 'answer', response: taken } satisfies Attempt;
			const failure = readServiceFailure(error);
			return { kind: answerLost(failure) ? 'lost' : 'refused', failure } satisfies Attempt;
		} finally {
			this.freePlace();
			await endRenewal?.();
		}
	}

	private async takePlace(): Promise<void> {
		if (this.open < this.inFlight) this.open++;
		else await new Promise<void>((resolve) => this.queued.push(resolve));
	}

	/** Hands the place to the next request waiting, if any. */
	private freePlace(): void {
		const next = this.queued.shift();
		if (next) next();
		else this.open--;
	}

	/** The error the user sees when no attempt is left: the service's words and what to do about them. */
	private giveUp(
		failure: ServiceFailure,
		method: IHttpRequestMethods,
		attempts: number,
		{ itemIndex }: CallOptions,
	): NodeApiError {
		const { message, status, hint, details, code, login } = failure;
		const notes = [hint, details, code && `Code: ${code}`].filter(Boolean).join(' — ') || undefined;
		const mayHaveReached = !isIdempotent(method) && (status === undefined || status >= 500);
		const advice = [
			notes,
			status === 401 &&
				'n8n logged in again and the service still refused the token: check the credential (API key, email, password).',
			// A failed login sent nothing to the API: no duplicate to fear, the credential to fix.
			login &&
				'Open the Website Export credential of this node and correct it: saving it tests the login.',
			!login &&
				mayHaveReached &&
				'The request may have reached the service, so it was not sent again (that could create a duplicate): check whether the record exists before running the node again.',
			attempts > 1 && `Gave up after ${attempts} attempts.`,
		];
		const httpCode = status === undefined ? undefined : String(status);
		const description = advice.filter(Boolean).join(' ') || undefined;
		const response = { message, description: notes, httpCode } as JsonObject;
		const options = { message, description, httpCode, itemIndex };
		return new NodeApiError(this.ctx.getNode(), response, options);
	}
}
