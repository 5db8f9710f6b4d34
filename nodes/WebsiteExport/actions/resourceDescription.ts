// Why: each resource's Operation selector and its operations' properties, one way for all three.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Operation, Resource } from './types';

/** An operation's own properties, shown only while its resource and operation are chosen. */
export const shownFor = (resource: Resource, operation: string, properties: INodeProperties[]) =>
	updateDisplayOptions({ show: { resource: [resource], operation: [operation] } }, properties);

/**
 * The Operation parameter of one resource, followed by the properties of each of its operations.
 */
export function resourceDescription(
	resource: Resource,
	operations: Record<string, Operation>,
	options: INodePropertyOptions[],
	defaultOperation: string,
): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource] } },
			options,
			default: defaultOperation,
		},
		...Object.values(operations).flatMap((operation) => operation.description),
	];
}

/**
 * Create, Delete, Get, Get Many and Update of one kind of record,
 * worded as n8n's own nodes word them.
 */
export function recordOperationOptions(
	record: { one: string; many: string },
	createDescription = `Create ${record.one}`,
): INodePropertyOptions[] {
	const option = (name: string, value: string, action: string, description = action) => ({
		name,
		value,
		description,
		action,
	});
	return [
		option('Create', 'create', `Create ${record.one}`, createDescription),
		option('Delete', 'delete', `Delete ${record.one}`),
		option('Get', 'get', `Get ${record.one}`),
		option('Get Many', 'getAll', `Get many ${record.many}`),
		option('Update', 'update', `Update ${record.one}`),
	];
}
