/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * `npm run bench` (full, a few minutes) and `npm run bench -- --quick` (seconds, small N, the
 * same table; part of `npm run test:all`). Prints one table of figures measured in this run, each
 * a count or a ratio; see bench/README.md for how each is measured. It writes no file unless asked:
 * `-- --markdown <file>` also writes the table as markdown there (never a tracked file by default).
 *
 * Exit code 1 when a figure could not be measured or a count target (requests, tokens, bytes,
 * package size: the same on every machine) is missed. Timing and memory targets that are missed
 * print MISSED with the reason, without failing the run: shared machines are noisy.
 */
import './env';

import { writeFileSync } from 'fs';
import { cpus, loadavg } from 'os';
import { resolve } from 'path';
import { parseArgs } from 'util';

import { archiveMemory } from './figures/archive';
import { editFieldsFloor } from './figures/floor';
import { packageFigures } from './figures/package';
import { idleTriggerPoll, returnAll, returnAllUnderChurn } from './figures/polling';
import {
	singleRecordRequests,
	tokenExpiresMidRun,
	tokenRejectedUnforeseen,
	tokensAcrossExecutions,
} from './figures/requests';
import { latencyBound, overheadAndFloor, returnAllLatency } from './figures/timing';
import { DEFAULT_IN_FLIGHT } from './nodes';
import { failed, renderMarkdown, renderText, type Header, type Row } from './table';

const { values: options } = parseArgs({
	options: {
		quick: { type: 'boolean', default: false },
		markdown: { type: 'string' },
		// Only the figures whose name contains this text, e.g. `--only floor`.
		only: { type: 'string', default: '' },
	},
});
const quick = options.quick;

/** N and sizes: the in the full run, smaller ones in the quick run. */
const size = quick
	? {
			items: 30,
			executions: 20,
			itemsEach: 10,
			midRun: 200,
			timing: 100,
			rounds: 3,
			latencyItems: 100,
			extraInFlight: [] as number[],
			archive: 64 * 1024 ** 2,
			requireRounds: 3,
			floorItems: 500,
			floorRounds: 1,
			returnAllRows: 5_000,
			churnRows: 2_000,
			storedDownloads: 5_000,
		}
	: {
			items: 1000,
			executions: 20,
			itemsEach: 50,
			midRun: 1000,
			timing: 1000,
			rounds: 11,
			latencyItems: 1000,
			extraInFlight: [2, 4, 16, 32],
			archive: 1024 ** 3,
			requireRounds: 7,
			floorItems: 10_000,
			floorRounds: 3,
			returnAllRows: 25_000,
			churnRows: 5_000,
			storedDownloads: 100_000,
		};

const figures: Array<[string, () => Promise<Row | Row[]>]> = [
	['Requests per single-record operation', () => singleRecordRequests(size.items)],
	[
		'Token requests across executions',
		() => tokensAcrossExecutions(size.executions, size.itemsEach),
	],
	[
		'Token expiring mid-run, default concurrency',
		() => tokenExpiresMidRun(size.midRun, DEFAULT_IN_FLIGHT),
	],
	['Token expiring mid-run, sequential', () => tokenExpiresMidRun(size.midRun, 1)],
	[
		'Token refused early, default concurrency',
		() => tokenRejectedUnforeseen(size.midRun, DEFAULT_IN_FLIGHT),
	],
	["Our overhead and n8n's floor", () => overheadAndFloor(size.timing, size.rounds)],
	['Latency-bound', () => latencyBound(size.latencyItems, 50, size.extraInFlight)],
	[
		"n8n's floor: Edit Fields over the same expressions",
		() => editFieldsFloor(size.floorItems, size.floorRounds),
	],
	['Return All', () => returnAll(size.returnAllRows, 1000)],
	['Return All, latency-bound', () => returnAllLatency(size.returnAllRows, 50)],
	['Return All under churn', () => returnAllUnderChurn(size.churnRows)],
	['Idle trigger poll', () => idleTriggerPoll(10, size.storedDownloads)],
	['Download Archive memory', () => archiveMemory(size.archive)],
	['Package', () => packageFigures(size.requireRounds)],
];

async function main(): Promise<void> {
	const started = Date.now();
	const loadAtStart = loadavg()[0];
	const rows: Row[] = [];
	const chosen = figures.filter(([name]) =>
		name.toLowerCase().includes(options.only.toLowerCase()),
	);
	for (const [name, measure] of chosen) {
		const figureStarted = Date.now();
		try {
			rows.push(...[await measure()].flat());
		} catch (error) {
			rows.push(failed(name, error));
		}
		process.stderr.write(
			`bench: ${name} (${((Date.now() - figureStarted) / 1000).toFixed(1)} s)\n`,
		);
	}
	const cpuList = cpus();
	const header: Header = {
		date: `${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
		command: quick ? 'npm run bench -- --quick' : 'npm run bench',
		node: process.version,
		cpus: `${cpuList.length} CPU${cpuList.length === 1 ? '' : 's'} (${cpuList[0]?.model.trim() ?? 'unknown'})`,
		load: [loadAtStart, loadavg()[0]],
		seconds: (Date.now() - started) / 1000,
	};
	console.log(renderText(header, rows));
	if (options.markdown) {
		// Relative to where the user typed the command (npm run sets INIT_CWD), not to the package root.
		const file = resolve(process.env.INIT_CWD ?? process.cwd(), options.markdown);
		writeFileSync(file, `${renderMarkdown(header, rows)}\n`);
		console.log(`\nWritten to ${file}`);
	}
	const fatal = rows.filter(
		(row) => row.verdict === 'error' || (row.verdict === 'missed' && row.strict),
	);
	process.exit(fatal.length > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
