// Why: one answer (a group's request, a lookup) can fail several items: each needs its own error.
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * A new error for item `itemIndex` that says what `error` says (message, details, HTTP status),
 * plus `note` (a sentence for this item only): never `error` itself, so that what one item's
 * error gains no other item shows.
 */
export function errorForItem(
	node: INode,
	error: Error & { description?: string | null },
	itemIndex: number | undefined,
	{ note }: { note?: string } = {},
): Error {
	const description = [error.description, note].filter(Boolean).join(' ') || undefined;
	if (error instanceof NodeApiError) {
		const { message, httpCode } = error;
		const options = { message, description, httpCode: httpCode ?? undefined, itemIndex };
		return new NodeApiError(node, { message }, options);
	}
	// Other errors (an unreadable timestamp) keep their class for the router unless a note is added.
	if (note === undefined && !(error instanceof NodeOperationError)) return error;
	return new NodeOperationError(node, error.message, { description, itemIndex });
}
