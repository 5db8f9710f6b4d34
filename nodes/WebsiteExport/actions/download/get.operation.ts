import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { recordSelector, selectionOf, type Selection } from '../common';
import type { ItemRun } from '../types';
import { DOWNLOAD_FIELDS, fetchDownload } from './record';

const properties: INodeProperties[] = [...recordSelector('download', DOWNLOAD_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['download'], operation: ['get'] } }, properties);

export const prepare = selectionOf('download');

export async function execute(this: IExecuteFunctions, run: ItemRun<Selection>): Promise<INodeExecutionData[]> {
	return [{ json: await fetchDownload.call(this, run, run.input) }];
}
