// Why: Option → Create: an export option (how links are treated) for a job.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { recordId, validate } from '../../../shared/validation';
import { collection } from '../../../shared/collection';
import { jobIdOption, readJobId } from '../selectBy';
import { shownFor } from '../resourceDescription';
import type { InsertRequest } from '../../../shared/transport';
import { createInGroups, resultsAfterFailure, stopAtFailure } from '../groups';
import type { ItemResult, ItemTask, RunSettings } from '../types';
import { MODE_LABELS, modeFields, modeProperties, optionRow, readModeFields } from './mode';

const properties: INodeProperties[] = [
	...modeProperties(),
	collection('Additional Fields', 'additionalFields', 'Add Field', [
		jobIdOption('Job the option belongs to'),
	]),
];

export const description = shownFor('option', 'create', properties);

/** How messages name an option being created, and where to look for it if its answer was lost. */
export function optionLookup(body: { job_id?: unknown; mode?: unknown }): {
	noun: string;
	findHint: string;
} {
	// Get Many's filters, with the values the option was sent with: the user looks for those.
	const job =
		body.job_id === undefined || body.job_id === null ? [] : [`Job ID ${String(body.job_id)}`];
	const filters = [...job, ...(body.mode === undefined ? [] : [`Mode "${String(body.mode)}"`])];
	const withFilters = filters.length > 0 ? ` with the filters ${filters.join(' and ')}` : '';
	return { noun: 'option', findHint: `Option → Get Many${withFilters}` };
}

const schema = z.intersection(modeFields, z.object({ job_id: recordId.optional() }));

export function prepare(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as { jobId?: unknown };
	const fields = { ...readModeFields.call(this, itemIndex), job_id: readJobId(extra.jobId) };
	return validate(this, schema, fields, itemIndex, MODE_LABELS);
}

/**
 * How a create of an option is sent, for Option → Create
 * and Job → Create's export option (groups.ts).
 */
export const optionInsert = ({ input, itemIndex }: ItemTask<IDataObject>): InsertRequest => ({
	body: optionRow(input),
	options: { itemIndex, ...optionLookup(input) },
});

/**
 * Every item's option, in one POST per group of rows; without Continue On Fail, up to the first
 * failure (groups.ts).
 */
export async function execute(
	this: IExecuteFunctions,
	tasks: Array<ItemTask<IDataObject>>,
	settings: RunSettings,
): Promise<ItemResult[]> {
	const created = await createInGroups(tasks, 'options', optionInsert, settings);
	if (settings.continueOnFail) return created;
	return await stopAtFailure(tasks, created, (failed) => {
		const { ids, recovered, failedItems } = resultsAfterFailure(tasks, created, failed);
		const found = recovered.map((id) => `option ${id}`);
		return { options: ids, found, unread: { table: 'options', itemIndexes: failedItems } };
	});
}
