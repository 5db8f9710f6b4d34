// The three tables as Postgres sees them, and how text/JSON input becomes a typed value.
import { pgrstError } from './reply';
import { parseTimestamp } from './time';
import type { CellValue, TableName } from './types';

export type ColumnType = 'bigint' | 'integer' | 'text' | 'uuid' | 'timestamptz';

export interface ColumnDef {
	name: string;
	type: ColumnType;
	notNull: boolean;
}

export interface TableDef {
	name: TableName;
	columns: readonly ColumnDef[];
	byName: ReadonlyMap<string, ColumnDef>;
}

const col = (name: string, type: ColumnType, notNull = false): ColumnDef => ({ name, type, notNull });

function table(name: TableName, columns: ColumnDef[]): TableDef {
	return { name, columns, byName: new Map(columns.map((c) => [c.name, c])) };
}

export const TABLES: Readonly<Record<TableName, TableDef>> = {
	jobs: table('jobs', [
		col('id', 'bigint', true),
		col('created_at', 'timestamptz', true),
		col('user_id', 'uuid'),
		col('status', 'text'),
		col('files', 'integer'),
		col('url', 'text', true),
		col('email', 'text', true),
		col('plan', 'text'),
	]),
	options: table('options', [
		col('id', 'bigint', true),
		col('created_at', 'timestamptz', true),
		col('job_id', 'bigint'),
		col('mode', 'text', true),
		col('relative_path', 'text'),
		col('replace_url', 'text'),
	]),
	downloads: table('downloads', [
		col('id', 'bigint', true),
		col('created_at', 'timestamptz', true),
		col('job_id', 'bigint'),
		col('download_link', 'text'),
	]),
};

/** Postgres' own name of a type, as it appears in error messages. */
export const PG_TYPE_NAME: Readonly<Record<ColumnType, string>> = {
	bigint: 'bigint',
	integer: 'integer',
	text: 'text',
	uuid: 'uuid',
	timestamptz: 'timestamp with time zone',
};

const INTEGER_RE = /^\s*[+-]?\d+\s*$/;
const UUID_RE = /^\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;
const RANGE: Record<'bigint' | 'integer', [bigint, bigint]> = {
	bigint: [-(2n ** 63n), 2n ** 63n - 1n],
	integer: [-(2n ** 31n), 2n ** 31n - 1n],
};

function invalidInput(type: ColumnType, text: string) {
	return pgrstError(400, '22P02', `invalid input syntax for type ${PG_TYPE_NAME[type]}: "${text}"`);
}

/**
 * Converts a literal the way Postgres' input functions do (an `unknown` literal cast to the
 * column type). Throws the PostgREST-mapped Postgres error for bad input. created_at yields
 * its microsecond value; callers that store it also keep the formatted text.
 */
export function parseLiteral(type: ColumnType, text: string, nowMs: number): string | number {
	switch (type) {
		case 'text':
			return text;
		case 'uuid': {
			const trimmed = text.trim();
			if (!UUID_RE.test(trimmed)) throw invalidInput(type, text);
			const hex = trimmed.replace(/[{}-]/g, '').toLowerCase();
			return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
		}
		case 'bigint':
		case 'integer': {
			if (!INTEGER_RE.test(text)) throw invalidInput(type, text);
			const value = BigInt(text.trim());
			const [min, max] = RANGE[type];
			if (value < min || value > max) {
				throw pgrstError(400, '22003', `value "${text}" is out of range for type ${PG_TYPE_NAME[type]}`);
			}
			// bigint ids beyond 2^53 cannot occur here (identity starts at 1); keep them as numbers.
			return Number(value);
		}
		case 'timestamptz': {
			const parsed = parseTimestamp(text, nowMs);
			if (parsed.ok) return parsed.us;
			throw parsed.outOfRange
				? pgrstError(400, '22008', `date/time field value out of range: "${text}"`)
				: pgrstError(400, '22007', `invalid input syntax for type ${PG_TYPE_NAME[type]}: "${text}"`);
		}
	}
}

/**
 * Converts a JSON value from a request body, as `json_populate_record` does: strings go through
 * the type's input function, numbers and booleans through their text form, objects as JSON text.
 */
export function parseJsonValue(type: ColumnType, value: unknown, nowMs: number): CellValue {
	if (value === null || value === undefined) return null;
	if (type === 'text') return typeof value === 'string' ? value : JSON.stringify(value);
	if (typeof value === 'number' && (type === 'bigint' || type === 'integer') && !Number.isInteger(value)) {
		throw invalidInput(type, String(value));
	}
	const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
	return parseLiteral(type, text, nowMs);
}
