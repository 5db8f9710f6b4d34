import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readSelection, recordSelector } from '../common';
import type { ItemRun } from '../types';
import { DOWNLOAD_FIELDS, fetchDownload } from './record';

const properties: INodeProperties[] = [...recordSelector('download', DOWNLOAD_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['download'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, run: ItemRun): Promise<INodeExecutionData[]> {
	const selection = readSelection.call(this, 'download', run.itemIndex);
	return [{ json: await fetchDownload.call(this, run, selection) }];
}
