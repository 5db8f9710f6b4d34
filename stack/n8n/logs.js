'use strict';
/** n8n's JSON log lines (N8N_LOG_FORMAT=json) read back: parsed, and their errors summarised. */

const fs = require('node:fs');
const { tail } = require('./process');

/**
 * One log line; `metadata` is n8n's untyped JSON. A line that is not JSON is { level: 'raw', message }.
 * @typedef {{ level: string, message: unknown, metadata?: any }} LogLine
 */

/**
 * Parse n8n's stdout: one {level, message, metadata} per line.
 * @param {string} text
 * @returns {LogLine[]}
 */
function parseLogLines(text) {
	/** @type {LogLine[]} */
	const out = [];
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
 * The log file's lines, or none while it does not exist.
 * @param {string} file
 */
function readLogFile(file) {
	return parseLogLines(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
}

/**
 * The end of a log file's lines above level info, for an error message.
 * @param {string} file
 */
function tailLog(file) {
	try {
		return tail(
			parseLogLines(fs.readFileSync(file, 'utf8'))
				.filter((l) => l.level !== 'info')
				.map(
					(l) =>
						`${l.level}: ${typeof l.message === 'string' ? l.message : JSON.stringify(l.message)}`,
				)
				.join('\n'),
			4000,
		);
	} catch {
		return '';
	}
}

/**
 * The first capture of `re` in each log message it matches.
 * @param {LogLine[]} logs
 * @param {RegExp} re
 */
function capturesInLog(logs, re) {
	/** @type {string[]} */
	const out = [];
	for (const l of logs) {
		const m = typeof l.message === 'string' && re.exec(l.message);
		if (m) out.push(m[1]);
	}
	return out;
}

module.exports = { parseLogLines, readLogFile, tailLog, capturesInLog };
