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
import { websiteExportApiTest } from '../shared/auth/credentialTest';
import { router } from './actions/router';
import { runOptionsProperty } from './actions/runSettings';
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
		// Tested by the node's own function: n8n 1.x's tester would lose the reason
		// of a declarative test.
		credentials: [{ name: 'websiteExportApi', required: true, testedBy: 'websiteExportApiTest' }],
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
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
			runOptionsProperty,
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
