// Why: the Option resource: its operations and its Operation selector.
import type { Operation } from '../types';
import { recordOperationOptions, resourceDescription } from '../resourceDescription';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations: Record<string, Operation> = { create, get, getAll, update, delete: del };

export const description = resourceDescription(
	'option',
	operations,
	recordOperationOptions({ one: 'an export option', many: 'export options' }),
	'getAll',
);
