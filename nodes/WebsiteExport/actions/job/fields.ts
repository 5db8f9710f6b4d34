// Why: the job record: its type, statuses, validation rules and the fields Select By may use.
import type { IDataObject } from 'n8n-workflow';
import { DateTime } from 'luxon';
import { z } from 'zod';

import { emailAddress, webAddress } from '../../../shared/validation';

export interface JobRecord extends IDataObject {
	id: number;
	created_at: string;
	status: string;
	url: string;
	email: string;
}

/**
 * Job states. The service documents only `finished`; the others are the ones an export
 * passes through (queued → running → finished or failed), as the emulator implements them.
 */
export const status = z.enum(['queued', 'running', 'finished', 'failed'], {
	errorMap: () => ({ message: 'must be one of queued, running, finished, failed' }),
});

export const STATUS_OPTIONS = [
	{ name: 'Failed', value: 'failed', description: 'The export could not be made' },
	{
		name: 'Finished',
		value: 'finished',
		description: 'The export is complete and its download link is ready',
	},
	{ name: 'Queued', value: 'queued', description: 'Waiting to start' },
	{ name: 'Running', value: 'running', description: 'The site is being downloaded' },
];

/** The fields a job is created with; update accepts any of them. */
export const jobFields = z.object({ url: webAddress, email: emailAddress });

export const JOB_LABELS = { url: 'URL', email: 'Email', status: 'Status' };

/**
 * A moment from a Date & Time parameter, as an ISO timestamp in UTC. The date picker gives
 * local time without an offset: it is read in the workflow's time zone, as n8n shows it.
 */
export const instant = (zone: string) =>
	z.unknown().transform((value, ctx) => {
		let moment: DateTime | undefined;
		if (DateTime.isDateTime(value)) moment = value;
		else if (value instanceof Date) moment = DateTime.fromJSDate(value);
		else if (typeof value === 'string' && value.trim() !== '')
			moment = DateTime.fromISO(value.trim(), { zone });
		if (!moment?.isValid) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				message: 'must be a date and time, e.g. 2026-01-31T09:00:00',
			});
			return z.NEVER;
		}
		return moment.toUTC().toISO() as string;
	});
