/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/** n8n's JSON log lines (N8N_LOG_FORMAT=json) read back: parsed, and their errors summarised. */

import fs from 'node:fs';
import { readWhole, tail } from './process';

/**
 * One log line; `metadata` is n8n's untyped JSON. A line that is not JSON is { level: 'raw', message }.
 */
export type LogLine = { level: string; message: unknown; metadata?: any };

/** Parse n8n's stdout: one {level, message, metadata} per line. */
export function parseLogLines(text: string): LogLine[] {
	const out: LogLine[] = [];
	for (const line of String(text).split('\n')) {
		if (!line.trim()) continue;
		try {
			const j = JSON.parse(line);
			if (j && typeof j === 'object' && 'level' in j && 'message' in j) {
				out.push(j);
				continue;
			}
		} catch {
			/* not a log line */
		}
		out.push({ level: 'raw', message: line });
	}
	return out;
}

/**
 * The log file's whole lines, or none while it does not exist: the line n8n is still writing waits
 * for the next read (read now, a JSON line cut short would be a 'raw' line, a message cut short).
 */
export function readLogFile(file: string): LogLine[] {
	return readWhole(file, parseLogLines) ?? [];
}

/** The end of a log file's lines above level info, for an error message: its last line too, whole or not. */
export function tailLog(file: string) {
	const text = (message: unknown) =>
		typeof message === 'string' ? message : JSON.stringify(message);
	const all = parseLogLines(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
	const lines = all.filter((l) => l.level !== 'info');
	return tail(lines.map((l) => `${l.level}: ${text(l.message)}`).join('\n'), 4000);
}

/** The first capture of `re` in each log message it matches. */
export function capturesInLog(logs: LogLine[], re: RegExp) {
	const out: string[] = [];
	for (const l of logs) {
		const m = typeof l.message === 'string' && re.exec(l.message);
		if (m) out.push(m[1]);
	}
	return out;
}
