// Why: the action node: its resources and operations for the editor, and the router that runs them.
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as download from './actions/download/Download.resource';
import * as job from './actions/job/Job.resource';
import * as option from './actions/option/Option.resource';
import { collection } from '../shared/collection';
import { websiteExportApiTest } from '../shared/auth/credentialTest';
import { router } from './actions/router';
import { searchDownloads, searchJobs, searchOptions } from './methods/listSearch';

export class WebsiteExport implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Website Export',
		name: 'websiteExport',
		icon: { light: 'file:websiteExport.svg', dark: 'file:websiteExport.dark.svg' },
		group: ['transform'],
		// 2: records are picked with resource locators (From List, By ID, By URL); 1 was never released.
		version: 2,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Download websites as archives: export jobs, their options and download links',
		documentationUrl: 'https://github.com/website-export/n8n-nodes-website-export#operations',
		defaults: { name: 'Website Export' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Tested by the node's own function: n8n 1.x's tester would lose the reason of a declarative test.
		credentials: [{ name: 'websiteExportApi', required: true, testedBy: 'websiteExportApiTest' }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Download',
						value: 'download',
						description: 'Download links of finished exports',
					},
					{ name: 'Job', value: 'job', description: 'Website exports: one job downloads one site' },
					{
						name: 'Option',
						value: 'option',
						description: 'How links inside an export are treated',
					},
				],
				default: 'job',
			},
			...job.description,
			...option.description,
			...download.description,
			collection('Options', 'options', 'Add Option', [
				{
					displayName: 'Batching',
					name: 'batching',
					type: 'options',
					options: [
						{
							name: 'Automatic',
							value: 'automatic',
							description:
								'Items go to the service in as few requests as it allows, e.g. one read for many records',
						},
						{
							name: 'One Request per Item',
							value: 'perItem',
							description:
								'Each item goes to the service on its own, as the HTTP Request node sends it',
						},
					],
					default: 'automatic',
					description: 'How input items are grouped into requests to the service',
					hint: 'Both give every item the same result; Automatic needs far fewer requests',
				},
				{
					displayName: 'Items per Request',
					name: 'itemsPerRequest',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 1000 },
					default: 1000,
					description:
						'With Batching: Automatic, the most items sent in one request; fewer when the request would pass 8 KiB',
				},
				{
					displayName: 'Requests in Flight',
					name: 'requestsInFlight',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 32 },
					default: 8,
					description: 'How many requests the node sends to the service at once',
					hint: 'Without On Error: Continue, writes go one request at a time, so that nothing is sent after a failed item',
				},
			]),
		],
	};

	methods = {
		listSearch: { searchJobs, searchOptions, searchDownloads },
		credentialTest: { websiteExportApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
