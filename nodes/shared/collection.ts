// Why: the optional fields behind "Add Filter", "Add Field", "Add Option", one way for both nodes.
import type { INodeProperties } from 'n8n-workflow';

/** A collection named `name`, shown as `displayName`, whose button reads `placeholder`. */
export function collection(
	displayName: string,
	name: string,
	placeholder: 'Add Filter' | 'Add Field' | 'Add Option',
	options: INodeProperties[] = [],
): INodeProperties {
	return { displayName, name, type: 'collection', placeholder, default: {}, options };
}
