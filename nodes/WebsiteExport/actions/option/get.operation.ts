import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { prepareSelection, type Selection } from '../parameters';
import { selectByProperties } from '../properties';
import { fetchOne } from '../records';
import type { ItemRun } from '../types';
import { OPTION_SELECT_BY_FIELDS } from './fields';

const properties: INodeProperties[] = [...selectByProperties('option', OPTION_SELECT_BY_FIELDS)];

export const description = updateDisplayOptions(
	{ show: { resource: ['option'], operation: ['get'] } },
	properties,
);

export const prepare = prepareSelection('option');

export async function execute(
	this: IExecuteFunctions,
	run: ItemRun<Selection>,
): Promise<INodeExecutionData[]> {
	return [{ json: await fetchOne.call(this, run, 'options', run.input) }];
}
