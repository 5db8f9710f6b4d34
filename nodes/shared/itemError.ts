// Why: one answer can fail several items (a group's request, a lookup), and each item's error must be an object of its own, naming only that item.
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What an item's error may say beyond the answer's own words. */
export interface ItemErrorOptions {
	/** A sentence added to the error's details, for this item only. */
	note?: string;
}

const joined = (description: string | null | undefined, note?: string) =>
	[description, note].filter(Boolean).join(' ') || undefined;

/**
 * A new error for item `itemIndex` that says what `error` says (message, details, HTTP status),
 * plus `note`: never `error` itself, so that what one item's error gains no other item shows.
 */
export function errorForItem(
	node: INode,
	error: Error & { description?: string | null },
	itemIndex: number | undefined,
	{ note }: ItemErrorOptions = {},
): Error {
	const description = joined(error.description, note);
	if (error instanceof NodeApiError) {
		const { message, httpCode } = error;
		const options = { message, description, httpCode: httpCode ?? undefined, itemIndex };
		return new NodeApiError(node, { message }, options);
	}
	// Other errors (an unreadable timestamp) keep their class for the router unless a note is added.
	if (note === undefined && !(error instanceof NodeOperationError)) return error;
	return new NodeOperationError(node, error.message, { description, itemIndex });
}
