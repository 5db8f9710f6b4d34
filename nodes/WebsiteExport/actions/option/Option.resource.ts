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
		displayOptions: { show: { resource: ['option'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create an export option',
				action: 'Create an export option',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete an export option',
				action: 'Delete an export option',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get an export option',
				action: 'Get an export option',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many export options',
				action: 'Get many export options',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Update an export option',
				action: 'Update an export option',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...get.description,
	...getAll.description,
	...update.description,
	...del.description,
];
