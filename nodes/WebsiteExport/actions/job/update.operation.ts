// Why: Job → Update: changes the URL, email or status of the one export job Select By names.
import { nonEmpty, validate } from '../../../shared/validation';
import { updateOperation } from '../selectedRecord';
import { JOB_LABELS, jobFields, STATUS_OPTIONS, status } from './fields';

const patchSchema = jobFields.partial().extend({ status: status.optional() });

export const { description, prepare, execute } = updateOperation(
	'job',
	[
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			default: '',
			placeholder: 'name@email.com',
			description: 'Address that receives the download link',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: STATUS_OPTIONS,
			default: 'finished',
			description: 'State of the job',
			hint: 'The service documents only Finished',
		},
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://example.com',
			description: 'Address of the website to download',
		},
	],
	function (fields, itemIndex) {
		return validate(
			this,
			patchSchema,
			{ url: nonEmpty(fields.url), email: nonEmpty(fields.email), status: nonEmpty(fields.status) },
			itemIndex,
			JOB_LABELS,
		);
	},
);
