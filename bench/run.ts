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
import {
	idleTriggerPoll,
	returnAll,
	returnAllLatency,
	returnAllUnderChurn,
} from './figures/polling';
import {
	singleRecordRequests,
	tokenExpiresMidRun,
	tokenRejectedUnforeseen,
	tokensAcrossExecutions,
} from './figures/requests';
import { latencyBound, overheadAndFloor } from './figures/timing';
import { DEFAULT_IN_FLIGHT } from './nodes';
import { stopServices } from './services';
import { failed, renderMarkdown, renderText, type Row } from './table';

const { values: options } = parseArgs({
	options: {
		quick: { type: 'boolean', default: false },
		markdown: { type: 'string' },
		// Only the figures whose name contains this text, e.g. `--only floor`.
		only: { type: 'string', default: '' },
	},
});
const quick = options.quick;

/** N: the in the full run, the second, smaller one in the quick run. */
const n = (full: number, small: number) => (quick ? small : full);
const midRun = n(1000, 200);
const returnAllRows = n(25_000, 5_000);

const figures: Array<[string, () => Promise<Row | Row[]>]> = [
	['Requests per single-record operation', () => singleRecordRequests(n(1000, 30))],
	['Token requests across executions', () => tokensAcrossExecutions(20, n(50, 10))],
	[
		'Token expiring mid-run, default concurrency',
		() => tokenExpiresMidRun(midRun, DEFAULT_IN_FLIGHT),
	],
	['Token expiring mid-run, sequential', () => tokenExpiresMidRun(midRun, 1)],
	[
		'Token refused early, default concurrency',
		() => tokenRejectedUnforeseen(midRun, DEFAULT_IN_FLIGHT),
	],
	// N requests each in `rounds` rounds.
	["Our overhead and n8n's floor", () => overheadAndFloor(n(1000, 100), n(11, 3))],
	// The full run adds the widths that justify the default.
	['Latency-bound', () => latencyBound(n(1000, 100), 50, quick ? [] : [2, 4, 16, 32])],
	[
		"n8n's floor: Edit Fields over the same expressions",
		() => editFieldsFloor(n(10_000, 500), n(3, 1)),
	],
	['Return All', () => returnAll(returnAllRows)],
	['Return All, latency-bound', () => returnAllLatency(returnAllRows, 50)],
	['Return All under churn', () => returnAllUnderChurn(n(5_000, 2_000))],
	['Idle trigger poll', () => idleTriggerPoll(10, n(100_000, 5_000))],
	['Download Archive memory', () => archiveMemory(n(1024 ** 3, 64 * 1024 ** 2))],
	// Cold requires, median of this many rounds.
	['Package', () => packageFigures(n(7, 3))],
];

async function main(): Promise<void> {
	const started = Date.now();
	const loadAtStart = loadavg()[0];
	const rows: Row[] = [];
	for (const [name, measure] of figures) {
		if (!name.toLowerCase().includes(options.only.toLowerCase())) continue;
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
	await stopServices();
	const cpuList = cpus();
	const header = [
		`${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
		`\`${quick ? 'npm run bench -- --quick' : 'npm run bench'}\``,
		`Node ${process.version}`,
		`${cpuList.length} CPU${cpuList.length === 1 ? '' : 's'} (${cpuList[0]?.model.trim() ?? 'unknown'})`,
		// The 1-minute load average at the start and at the end: other work competing for the CPUs.
		`load average ${loadAtStart.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
		`took ${((Date.now() - started) / 1000).toFixed(0)} s`,
	].join(' · ');
	console.log(renderText(header, rows));
	if (options.markdown) {
		// Relative to where the user typed the command (npm run sets INIT_CWD), not to the package root.
		const file = resolve(process.env.INIT_CWD ?? process.cwd(), options.markdown);
		writeFileSync(file, `${renderMarkdown(header, rows)}\n`);
		console.log(`\nWritten to ${file}`);
	}
	const fatal = (row: Row) => row.verdict === 'error' || (row.verdict === 'missed' && row.strict);
	process.exit(rows.some(fatal) ? 1 : 0);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
