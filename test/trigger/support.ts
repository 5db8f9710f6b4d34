import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { WebsiteExportTrigger } from '../../nodes/WebsiteExportTrigger/WebsiteExportTrigger.node.js';
import type { Emulator } from '../../stack/service';
import type { NodeHarness } from '../harness';
import { startService, type Service } from '../support';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A whole second of real time: emulator clocks frozen there keep Date headers exact. */
export const wholeSecond = (ms: number) => Math.floor(ms / SECOND) * SECOND;

/** An emulator whose clock only moves when a test moves it, `skewMs` away from this machine's. */
export async function startFrozenService(skewMs = 0): Promise<Service> {
	return await startService({ freezeClock: true, now: wholeSecond(Date.now() + skewMs) });
}

/** How n8n keeps (or drops) the static data of a poll; see the README of the trigger. */
export type Persistence =
	/** n8n's default in one process: the node's static data lives on in memory between polls. */
	| 'memory'
	/** n8n's default across restarts: saved after activation and with each emitting poll only. */
	| 'emits'
	/** n8n 2.41's durable poll cursors: a scheduled poll's state is committed, emitting or not;
	 *  the activation poll's only when it emitted. */
	| 'durable'
	/** n8n 2.41's task scheduler: a scheduled poll's state saved only when it emitted, and the
	 *  activation poll's saved late, after the first scheduled poll, over whatever that one saved
	 *  (the worst case of its race: the minute polls start before that save). */
	| 'scheduler';

export interface PollResult {
	ok: boolean;
	emitted: IDataObject[];
	error?: Error & IDataObject;
	/** The activation poll's state, saved late ('scheduler'), replaced what this poll left. */
	activationStateSaved?: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The harness's default name for a trigger node. */
const NODE_NAME = 'Website Export Trigger';

/**
 * One active trigger: polls through n8n's PollContext and keeps the static data the way n8n
 * would (JSON round trip between polls, as after a restart).
 */
export class ActiveTrigger {
	staticData: IDataObject = {};

	/** True until an activation poll succeeded: n8n retries a failed activation. */
	activating = true;

	/** 'scheduler': the activation poll's state, saved once the next poll has run. */
	private lateActivationState: IDataObject | undefined;

	/** The static data n8n keeps for the node (keyed by the node's name). */
	get state(): IDataObject {
		return (this.staticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	constructor(
		private readonly harness: NodeHarness,
		private readonly parameters: INodeParameters = {},
		private readonly persistence: Persistence = 'emits',
	) {}

	async poll(): Promise<PollResult> {
		const late = this.lateActivationState;
		this.lateActivationState = undefined;
		const result = await this.pollAndKeep();
		if (late === undefined) return result;
		this.staticData = late;
		return { ...result, activationStateSaved: true };
	}

	private async pollAndKeep(): Promise<PollResult> {
		try {
			const { emitted, staticData } = await this.harness.poll(new WebsiteExportTrigger(), {
				parameters: this.parameters,
				staticData: this.staticData,
			});
			const items = emitted?.[0] ?? [];
			if (this.activating && this.persistence === 'scheduler')
				this.lateActivationState = staticData;
			else if (items.length > 0 || this.keepsQuietPoll()) this.staticData = staticData;
			this.activating = false;
			return { ok: true, emitted: items.map((item) => item.json) };
		} catch (error) {
			return { ok: false, emitted: [], error };
		}
	}

	/** Whether n8n keeps the state of a poll that emitted nothing. */
	private keepsQuietPoll(): boolean {
		if (this.activating) return this.persistence !== 'durable';
		return this.persistence === 'memory' || this.persistence === 'durable';
	}

	/** Polls and returns the ids emitted; fails the test when the poll fails. */
	async ids(): Promise<number[]> {
		const result = await this.poll();
		if (!result.ok) throw result.error;
		return result.emitted.map((json) => json.id as number);
	}

	/** Fetch Test Event: the manual-mode poll, with the current static data. */
	async fetchTestEvent(parameters: INodeParameters = this.parameters) {
		return await this.harness.poll(new WebsiteExportTrigger(), {
			parameters,
			staticData: this.staticData,
			mode: 'manual',
		});
	}
}

/** Inserts downloads at the given emulator times (ms); returns their ids. */
export async function insertDownloads(
	emulator: Emulator,
	times: number[],
	jobId: number | null = null,
): Promise<number[]> {
	const rows = (await emulator.insert(
		'downloads',
		times.map((at) => ({ job_id: jobId, created_at: iso(at) })),
	)) as IDataObject[];
	return rows.map((row) => row.id as number);
}

/** The requests since `since`, by table. */
export function restRequests(emulator: Emulator, since: number) {
	const entries = emulator.log.slice(since).filter((entry) => entry.kind === 'rest');
	return {
		downloads: entries.filter((entry) => entry.table === 'downloads'),
		jobs: entries.filter((entry) => entry.table === 'jobs'),
		all: entries,
	};
}
