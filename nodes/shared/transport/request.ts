// Why: the one place that sends a request to the service and turns its failure into what the user sees: retries, the 429 pause, the renewal gate and the error.
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

import { CREDENTIAL_NAME } from '../constants';
import {
	failureToErrorResponse,
	readServiceFailure,
	readStreamedErrorBody,
	type ServiceFailure,
} from '../serviceError';
import { answerLost, LostAnswers } from './lostAnswer';
import { RenewalGate } from './renewalGate';
import { DEFAULT_RETRY_POLICY, isIdempotent, retryDelay, type RetryPolicy } from './retry';
import { ServiceClock } from './serviceClock';

export type TransportContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface CallOptions {
	/** Item the request is made for: errors name it, so the editor can point at it. */
	itemIndex?: number;
}

export interface SendOptions extends CallOptions {
	body?: IDataObject | IDataObject[];
	/** PostgREST's Prefer header: `return=representation`, `count=exact`. */
	prefer?: string;
	/** An archive: the body comes as a stream and redirects are handed back, not followed. */
	stream?: boolean;
}

export interface ServiceResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
	/** An earlier attempt of this request lost its answer: it may have been carried out already. */
	answerLost?: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const ARCHIVE_TIMEOUT_MS = 30 * 60_000;

/**
 * Sends the requests of one execution through n8n's `httpRequestWithAuthentication`, so that
 * the credential adds the API key and the token, and n8n logs in again after a 401.
 */
export class ServiceRequests {
	readonly clock = new ServiceClock();

	/** Errors of requests that lost their answer: an insert looks for its row before giving up. */
	readonly lostAnswers = new LostAnswers();

	/** A 429 pauses every request of this execution, not just the one that got it. */
	private pausedUntil = 0;

	private readonly gate: RenewalGate;

	constructor(
		private readonly ctx: TransportContext,
		tokenExpiresAt: number | undefined,
		private readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
		private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
	) {
		this.gate = new RenewalGate(
			tokenExpiresAt,
			this.clock,
			async () => (await ctx.getCredentials(CREDENTIAL_NAME))?.accessToken,
		);
	}

	/** Sends until an answer comes or the retry policy gives up; throws NodeApiErrors only. */
	async send(
		method: IHttpRequestMethods,
		url: string,
		options: SendOptions = {},
	): Promise<ServiceResponse> {
		const request = this.requestOptions(method, url, options);
		let lostBefore = false;
		for (let attempt = 1; ; attempt++) {
			const wait = this.pausedUntil - Date.now();
			if (wait > 0) await sleep(wait);
			const endRenewal = await this.gate.pass();
			try {
				const response = (await this.ctx.helpers.httpRequestWithAuthentication.call(
					this.ctx,
					CREDENTIAL_NAME,
					{
						...request,
						headers: { ...request.headers },
					},
				)) as ServiceResponse;
				this.clock.read(response.headers ?? {});
				return lostBefore ? { ...response, answerLost: true } : response;
			} catch (error) {
				if (options.stream) await readStreamedErrorBody(error);
				const failure = readServiceFailure(error);
				if (options.stream && failure.location !== undefined) {
					return {
						body: undefined,
						headers: { location: failure.location },
						statusCode: failure.status as number,
					};
				}
				const delay = retryDelay(failure, method, attempt, this.retry);
				if (delay === undefined) throw this.giveUp(failure, method, attempt, options.itemIndex);
				lostBefore ||= answerLost(failure);
				if (failure.status === 429)
					this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delay);
				else await sleep(delay);
			} finally {
				await endRenewal?.();
			}
		}
	}

	private requestOptions(
		method: IHttpRequestMethods,
		url: string,
		options: SendOptions,
	): IHttpRequestOptions {
		return {
			method,
			url,
			headers: {
				Accept: 'application/json',
				...(options.prefer ? { Prefer: options.prefer } : {}),
			},
			returnFullResponse: true,
			timeout: options.stream ? ARCHIVE_TIMEOUT_MS : this.timeoutMs,
			...(options.stream
				? { encoding: 'stream' as const, disableFollowRedirect: true }
				: { json: true }),
			...(options.body !== undefined ? { body: options.body } : {}),
		};
	}

	/** The error the user sees when no attempt is left: the service's words and what to do about them. */
	private giveUp(
		failure: ServiceFailure,
		method: IHttpRequestMethods,
		attempts: number,
		itemIndex?: number,
	): NodeApiError {
		const response = failureToErrorResponse(failure);
		const notes: string[] = [];
		if (response.description) notes.push(response.description as string);
		if (failure.status === 401) {
			notes.push(
				'n8n logged in again and the service still refused the token: check the credential (API key, email, password).',
			);
		}
		// A failed login sent nothing to the API: no duplicate to fear, the credential to fix.
		if (failure.login)
			notes.push(
				'Open the Website Export credential of this node and correct it: saving it tests the login.',
			);
		else if (
			!isIdempotent(method) &&
			failure.status !== 429 &&
			(failure.status === undefined || failure.status >= 500)
		) {
			notes.push(
				'The request may have reached the service, so it was not sent again (that could create a duplicate): check whether the record exists before running the node again.',
			);
		}
		if (attempts > 1) notes.push(`Gave up after ${attempts} attempts.`);
		const error = new NodeApiError(this.ctx.getNode(), response as JsonObject, {
			message: failure.message,
			description: notes.join(' ') || undefined,
			httpCode: failure.status === undefined ? undefined : String(failure.status),
			itemIndex,
		});
		if (answerLost(failure)) this.lostAnswers.add(error);
		return error;
	}
}
