/** The benchmark's one table: rows of figures, rendered for the terminal and as markdown. */

type Verdict = 'ok' | 'missed' | 'reported' | 'error';

export interface Row {
	figure: string;
	measured: string;
	target: string;
	verdict: Verdict;
	/** Why a target was missed, or what failed. */
	note?: string;
	/**
	 * Counts that do not depend on the machine (requests, tokens, bytes): missing one of these
	 * targets fails the run. Timing and memory targets are printed as MISSED, never fatal.
	 */
	strict?: boolean;
}

/** A row with a target: ok when `met`, else MISSED with `reason`. */
export function judged(row: Omit<Row, 'verdict' | 'note'>, met: boolean, reason: string): Row {
	return met ? { ...row, verdict: 'ok' } : { ...row, verdict: 'missed', note: reason };
}

export function reported(figure: string, measured: string, target = 'reported'): Row {
	return { figure, measured, target, verdict: 'reported' };
}

export function failed(figure: string, error: unknown): Row {
	const line = (error instanceof Error ? error.message : String(error)).split('\n')[0];
	const note = line.length > 300 ? `${line.slice(0, 300)}…` : line;
	return { figure, measured: '—', target: '—', verdict: 'error', note };
}

const RESULTS: Record<Verdict, string> = {
	ok: 'ok',
	reported: '—',
	missed: 'MISSED',
	error: 'ERROR',
};

/** The Result column: the verdict, and why (a missed target's reason, an error's message). */
const result = (row: Row) =>
	row.note === undefined ? RESULTS[row.verdict] : `${RESULTS[row.verdict]}: ${row.note}`;

const COLUMNS = ['Figure', 'Measured', 'Target', 'Result'];

const cells = (row: Row) => [row.figure, row.measured, row.target, result(row)];

/** `header` (markdown: the command in backticks) above the table, columns padded. */
export function renderText(header: string, rows: Row[]): string {
	const table = [COLUMNS, ...rows.map(cells)];
	const widths = COLUMNS.map((_, column) => Math.max(...table.map((line) => line[column].length)));
	const line = (values: string[]) =>
		values
			.map((value, column) => value.padEnd(widths[column]))
			.join('  ')
			.trimEnd();
	return [
		header.replace(/`/g, ''),
		'',
		line(COLUMNS),
		line(widths.map((width) => '-'.repeat(width))),
		...rows.map((row) => line(cells(row))),
	].join('\n');
}

export function renderMarkdown(header: string, rows: Row[]): string {
	const escape = (text: string) => text.replace(/\|/g, '\\|');
	return [
		header,
		'',
		`| ${COLUMNS.join(' | ')} |`,
		`|${COLUMNS.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${cells(row).map(escape).join(' | ')} |`),
	].join('\n');
}
