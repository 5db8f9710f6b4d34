import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations: Record<string, Operation> = {
	create: { ...create, writes: true },
	get,
	getAll,
	update: { ...update, writes: true },
	delete: { ...del, writes: true },
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['job'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Start exporting a website',
				action: 'Create an export job',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete an export job',
				action: 'Delete an export job',
			},
			{ name: 'Get', value: 'get', description: 'Get an export job', action: 'Get an export job' },
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many export jobs',
				action: 'Get many export jobs',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Update an export job',
				action: 'Update an export job',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getAll.description,
	...update.description,
	...del.description,
];
