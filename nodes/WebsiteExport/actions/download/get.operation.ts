import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { prepareSelection, type Selection } from '../parameters';
import { selectByProperties } from '../properties';
import type { ItemRun } from '../types';
import { DOWNLOAD_SELECT_BY_FIELDS, fetchDownload } from './record';

const properties: INodeProperties[] = [
	...selectByProperties('download', DOWNLOAD_SELECT_BY_FIELDS),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['download'], operation: ['get'] } },
	properties,
);

export const prepare = prepareSelection('download');

export async function execute(
	this: IExecuteFunctions,
	run: ItemRun<Selection>,
): Promise<INodeExecutionData[]> {
	return [{ json: await fetchDownload.call(this, run, run.input) }];
}
