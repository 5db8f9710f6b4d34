// Why: zod rules for user input, and their failures as NodeOperationError with the field's name.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

// zod resolves to the host n8n's own copy at run time (3.25.x): only its v3 API is used.

/** An empty parameter counts as not given. */
export const nonEmpty = <T>(value: T | '' | undefined): T | undefined =>
	value === '' ? undefined : value;

/**
 * Whole characters only: a UTF-16 surrogate without its pair (an emoji cut in two) can be carried
 * by no URL or JSON body.
 */
const WHOLE_CHARACTERS = /^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;
const HALF_CHARACTER =
	'contains half of a character (an unpaired UTF-16 surrogate, e.g. an emoji cut in two) that cannot be sent';

/** Whitespace as Postgres skips it around a number (C's isspace). */
const PG_SPACE = '[ \\t\\n\\v\\f\\r]*';
/** The digits of an integer as Postgres (16+) reads them: decimal, 0x, 0o or 0b, `_` between. */
const PG_DIGITS =
	'0[xX]((?:_?[0-9a-fA-F])+)|0[oO]((?:_?[0-7])+)|0[bB]((?:_?[01])+)|([0-9](?:_?[0-9])*)';
const integerPattern = (sign: string) => `^${PG_SPACE}(${sign})(?:${PG_DIGITS})${PG_SPACE}$`;
/** By ID's check in the editor: the forms the node reads, unsigned or `+` (0 it refuses on run). */
export const ID_PATTERN = integerPattern('\\+?');
const PG_INTEGER = new RegExp(integerPattern('[+-]?'));

/**
 * The integer Postgres reads from `text` (` 5`, `+5`, `05`, `1_000`, `0x1F`, `0o17`, `0b101`),
 * or undefined where it would refuse it: the service matches IDs this way, so the node does too.
 */
export function pgInteger(text: string): bigint | undefined {
	const match = PG_INTEGER.exec(text);
	if (!match) return undefined;
	const [, sign, hex, octal, binary, decimal] = match;
	const prefix = hex ? '0x' : octal ? '0o' : binary ? '0b' : '';
	const magnitude = BigInt(prefix + (hex ?? octal ?? binary ?? decimal).replace(/_/g, ''));
	return sign === '-' ? -magnitude : magnitude;
}

/**
 * A value for an ID column (e.g. Select By → Job ID) as the service reads it: the integer in its
 * canonical form, so that the rows it matches are found in the answer; else as given, for the
 * service to refuse with its own words.
 */
export function asIdValue(value: string): string | number {
	const id = pgInteger(value);
	return id !== undefined && Math.abs(Number(id)) <= Number.MAX_SAFE_INTEGER ? Number(id) : value;
}

const NOT_AN_ID = 'must be a whole number greater than 0';

/**
 * A record id: a whole number > 0, given as a number or as text in any form Postgres reads
 * (pgInteger), always sent in its canonical form.
 */
export const recordId = z.unknown().transform((value, ctx) => {
	const id =
		typeof value === 'number' ? value : typeof value === 'string' ? pgInteger(value) : null;
	const refuse = (message: string) => {
		ctx.addIssue({ code: z.ZodIssueCode.custom, message });
		return z.NEVER;
	};
	// Neither a number nor text (e.g. an expression that found no value): say what is expected.
	if (id === null) return refuse(`is required: a whole number greater than 0`);
	if (id === undefined || !(id > 0) || (typeof id === 'number' && !Number.isInteger(id)))
		return refuse(NOT_AN_ID);
	if (id > Number.MAX_SAFE_INTEGER) return refuse('is too large');
	return Number(id);
});

/** Required text of at most `max` characters, trimmed, that can be sent. */
const required = (max: number) =>
	z
		.string()
		.regex(WHOLE_CHARACTERS, HALF_CHARACTER)
		.trim()
		.min(1, 'is required')
		.max(max, `is longer than ${max} characters`);

/** An http(s) address with a host, as the service downloads it. */
export const webAddress = required(2048).refine((value) => {
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
	} catch {
		return false;
	}
}, 'must be a full http:// or https:// address, e.g. https://example.com');

export const emailAddress = required(254).email('must be an email address, e.g. name@example.com');

/** Text that can be sent, at most `max` characters. */
export const text = (max: number) =>
	z.string().max(max, `is longer than ${max} characters`).regex(WHOLE_CHARACTERS, HALF_CHARACTER);

/**
 * Validates one item's parameters before any request. The error names the field as the
 * editor shows it and the item as n8n does (`[item 0]` for the first), so the user can find it.
 */
export function validate<T extends z.ZodTypeAny>(
	ctx: IExecuteFunctions,
	schema: T,
	value: unknown,
	itemIndex: number,
	labels: Record<string, string>,
): z.output<T> {
	const result = schema.safeParse(value);
	if (result.success) return result.data as z.output<T>;
	const describe = (issue: z.ZodIssue) => {
		const key = issue.path.map(String).join('.');
		const label = labels[key] ?? labels[String(issue.path[0])] ?? (key || 'Value');
		return `${label} ${issue.message}`;
	};
	const issues = result.error.issues.map(describe);
	throw new NodeOperationError(ctx.getNode(), `Invalid input: ${issues[0]}`, {
		itemIndex,
		// n8n names an item by its index, from 0: `[item 0]` is the first.
		description: `${issues.join('; ')} [item ${itemIndex}]`,
	});
}
