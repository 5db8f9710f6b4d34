// Why: zod rules for user input, and their failures as NodeOperationError with the field's name.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

// zod resolves to the host n8n's own copy at run time (3.25.x): only its v3 API is used.

/** An empty parameter counts as not given. */
export const nonEmpty = <T>(value: T | '' | undefined): T | undefined =>
	value === '' ? undefined : value;

/** Whole characters only: a UTF-16 surrogate without its pair (an emoji cut in two) can be carried by no URL or JSON body. */
const WHOLE_CHARACTERS = /^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;
const HALF_CHARACTER =
	'contains half of a character (an unpaired UTF-16 surrogate, e.g. an emoji cut in two) that cannot be sent';

/** A record id: a whole number > 0, given as a number or as digits (from an expression). */
export const recordId = z
	.union([z.number(), z.string().trim().regex(/^\d+$/, 'must be a whole number greater than 0')], {
		// Neither a number nor text (e.g. an expression that found no value): say what is expected.
		errorMap: () => ({ message: 'is required: a whole number greater than 0' }),
	})
	.transform(Number)
	.pipe(
		z
			.number({ invalid_type_error: 'must be a whole number greater than 0' })
			.int('must be a whole number greater than 0')
			.positive('must be a whole number greater than 0')
			.max(Number.MAX_SAFE_INTEGER, 'is too large'),
	);

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
