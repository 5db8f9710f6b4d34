import { PollContext } from 'n8n-core';
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

/** How a poll of `TriggerProcess` ended: what it emitted, and whether n8n kept its state. */
export interface ProcessPoll {
	ids: number[];
	/** Its state was saved: it emitted, and n8n did not drop its result. */
	saved: boolean;
}

/**
 * One active trigger in one n8n process, whose polls may overlap (n8n starts each from its cron
 * tick without waiting for the one before). 'shared': n8n's default mode, one workflow and one
 * PollContext for every poll of the activation, all on the same static-data object. 'copies':
 * its task scheduler, each poll on a workflow built from a copy of the static data saved last
 * (loaded before the poll starts), saved only when the poll emits. Every poll runs the same node
 * module, so shares its map of running polls, as in one process.
 */
export class TriggerProcess {
	/** 'copies': the static data in the database; 'shared': the activation's static-data object. */
	saved: IDataObject = {};

	private sharedContext: PollContext | undefined;

	constructor(
		private readonly harness: NodeHarness,
		private readonly persistence: 'shared' | 'copies',
		private readonly parameters: INodeParameters = {},
	) {}

	/** The node's static data saved last. */
	get state(): IDataObject {
		return (this.saved[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	/** The static data a poll starting now gets: the shared object, or a copy of the saved one. */
	load(): IDataObject {
		return this.persistence === 'shared'
			? this.saved
			: (JSON.parse(JSON.stringify(this.saved)) as IDataObject);
	}

	/**
	 * One poll on `staticData` (by default what `load()` gives now). `activation`: the activation
	 * poll, whose state n8n saves whatever it returned; `budgetMs`: what n8n's task scheduler tells
	 * the node it may spend; `dropped`: n8n abandons the poll (past the scheduler's timeout), its
	 * result neither emitted nor saved.
	 */
	async poll(
		staticData = this.load(),
		options: { activation?: boolean; budgetMs?: number; dropped?: boolean } = {},
	): Promise<ProcessPoll> {
		const context = this.context(staticData, options.budgetMs);
		const emitted = await new WebsiteExportTrigger().poll!.call(context);
		const ids = (emitted?.[0] ?? []).map((item) => item.json.id as number);
		if (options.dropped) return { ids: [], saved: false };
		const saved = ids.length > 0 || options.activation === true;
		if (saved && this.persistence === 'copies')
			this.saved = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		return { ids, saved };
	}

	private context(staticData: IDataObject, budgetMs: number | undefined): PollContext {
		if (this.persistence === 'shared' && staticData !== this.saved)
			throw new Error("'shared': every poll works on the activation's static data");
		if (this.persistence === 'shared' && this.sharedContext && budgetMs === undefined)
			return this.sharedContext;
		// The harness's own one-node workflow and run data (private: only these tests need one
		// workflow across polls).
		const [workflow, node, additionalData] = this.harness['setUp'](
			new WebsiteExportTrigger(),
			{ parameters: this.parameters, name: NODE_NAME },
			{ active: true, staticData },
		);
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			'trigger',
			'activate',
			// n8n's defaults for emit, emitError, commitCursor, runPoll and the node's static data.
			undefined,
			undefined,
			undefined,
			undefined,
			undefined,
			budgetMs === undefined ? undefined : () => budgetMs,
		);
		if (this.persistence === 'shared' && budgetMs === undefined) this.sharedContext = context;
		return context;
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
