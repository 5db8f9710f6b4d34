/** The benchmark's one table: rows of figures, rendered for the terminal and as markdown. */

export type Verdict = 'ok' | 'missed' | 'reported' | 'pending' | 'error';

export interface Row {
	figure: string;
	measured: string;
	target: string;
	verdict: Verdict;
	/** Why a target was missed, what is pending, or what failed. */
	note?: string;
	/**
	 * Counts that do not depend on the machine (requests, tokens, bytes): missing one of these
	 * targets fails the run. Timing and memory targets are printed as MISSED, never fatal.
	 */
	strict?: boolean;
}

export interface Header {
	date: string;
	command: string;
	node: string;
	cpus: string;
	/** The machine's 1-minute load average at the start and at the end: other work competing for the CPUs. */
	load?: [number, number];
	seconds?: number;
}

/** A row with a target: ok when `met`, else MISSED with `reason`. */
export function judged(row: Omit<Row, 'verdict' | 'note'>, met: boolean, reason: string): Row {
	return met ? { ...row, verdict: 'ok' } : { ...row, verdict: 'missed', note: reason };
}

export function reported(figure: string, measured: string, target = 'reported'): Row {
	return { figure, measured, target, verdict: 'reported' };
}

export function failed(figure: string, error: unknown): Row {
	const message = error instanceof Error ? error.message : String(error);
	const line = message.split('\n')[0];
	return {
		figure,
		measured: '—',
		target: '—',
		verdict: 'error',
		note: line.length > 300 ? `${line.slice(0, 300)}…` : line,
	};
}

function result(row: Row): string {
	switch (row.verdict) {
		case 'ok':
			return 'ok';
		case 'reported':
			return '—';
		case 'missed':
			return `MISSED: ${row.note ?? ''}`;
		case 'pending':
			return `PENDING: ${row.note ?? ''}`;
		case 'error':
			return `ERROR: ${row.note ?? ''}`;
	}
}

const COLUMNS = ['Figure', 'Measured', 'Target', 'Result'];

const cells = (row: Row) => [row.figure, row.measured, row.target, result(row)];

function headerLine(header: Header): string {
	const took = header.seconds === undefined ? '' : ` · took ${header.seconds.toFixed(0)} s`;
	const load = header.load
		? ` · load average ${header.load[0].toFixed(1)} → ${header.load[1].toFixed(1)}`
		: '';
	return `${header.date} · \`${header.command}\` · Node ${header.node} · ${header.cpus}${load}${took}`;
}

export function renderText(header: Header, rows: Row[]): string {
	const table = [COLUMNS, ...rows.map(cells)];
	const widths = COLUMNS.map((_, column) => Math.max(...table.map((line) => line[column].length)));
	const line = (values: string[]) =>
		values
			.map((value, column) => value.padEnd(widths[column]))
			.join('  ')
			.trimEnd();
	return [
		headerLine(header).replace(/`/g, ''),
		'',
		line(COLUMNS),
		line(widths.map((width) => '-'.repeat(width))),
		...rows.map((row) => line(cells(row))),
	].join('\n');
}

export function renderMarkdown(header: Header, rows: Row[]): string {
	const escape = (text: string) => text.replace(/\|/g, '\\|');
	return [
		headerLine(header),
		'',
		`| ${COLUMNS.join(' | ')} |`,
		`|${COLUMNS.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${cells(row).map(escape).join(' | ')} |`),
	].join('\n');
}
