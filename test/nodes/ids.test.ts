// IDs in every form the service reads (` 5`, `+5`, `05`, `1_000`, `0x1F`, `0o17`, `0b101`): the node
// reads them as Postgres does, wherever an ID is given, and refuses the rest before any request.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { pgInteger } from '../../nodes/shared/validation';
import { startService, withClient, type Service } from '../support';
import {
	BATCHINGS,
	byId,
	itemIndexOf,
	itemsOf,
	restSince,
	runError,
	runJson,
	withBatching,
} from './helpers';

/** Forms of 1000 (job 1000 is made for them): Postgres reads each as 1000. */
const FORMS_OF_1000 = ['1000', '1_000', '01000', ' 1000 ', '+1000', '0x3E8', '0x3_E8', '0o1750'];
/** Forms of 5 that Postgres reads. */
const FORMS_OF_5 = ['05', ' 5', '5\t', '+5', '0b101', '0B1_01', '0O5', '0x_5', '+0x5'];
/** Forms Postgres refuses (22P02) or reads as no ID > 0. */
const NOT_IDS = [
	'1e3',
	'5.0',
	'+-0x5',
	'0x-5',
	'_5',
	'5_',
	'1__0',
	'0x',
	'0xG',
	'- 5',
	'5 5',
	'٥',
	'0',
	'-5',
	'+-5',
];

const locator = (mode: string, value: string) => ({ __rl: true, mode, value });

describe('Website Export node: IDs as the service reads them', () => {
	let service: Service;

	beforeAll(async () => {
		service = await startService({ jobDurationMs: 3_600_000 });
		const jobs = Array.from({ length: 5 }, (_, i) => ({
			url: `https://site${i}.example.com`,
			email: 'a@example.com',
		}));
		await service.emulator.insert('jobs', jobs);
		await service.emulator.insert('jobs', [
			{ id: 1000, url: 'https://k.example.com', email: 'k@example.com' },
		]);
		await service.emulator.insert('options', [{ mode: 'offline', job_id: 1000 }]);
		await service.emulator.insert('downloads', [{ job_id: 5 }]);
	});
	afterAll(async () => {
		await service.emulator.close();
	});

	/** What Postgres reads `form` as, through the real PostgREST: `id=eq.<form>` on the jobs. */
	const postgresReads = async (form: string) =>
		await withClient(service, async (client) => {
			const filters = [{ column: 'id', operator: 'eq' as const, value: form }];
			const page = await client.select('jobs', { filters }).catch(() => undefined);
			return page?.rows.map((row) => Number(row.id));
		});

	it('reads every form as the real Postgres does, and refuses what it refuses', async () => {
		for (const form of [...FORMS_OF_1000, ...FORMS_OF_5, ...NOT_IDS, '-0', '00']) {
			const read = pgInteger(form);
			const rows = await postgresReads(form);
			// Postgres refused it exactly when the node's rule does; else they read the same ID.
			expect({ form, refused: rows === undefined }).toEqual({ form, refused: read === undefined });
			if (rows && read !== undefined && read >= BigInt(1) && read <= BigInt(1000))
				expect({ form, rows }).toEqual({ form, rows: [Number(read)] });
		}
	});

	it.each(BATCHINGS)('Select By → Job ID 1_000 finds the option of job 1000 (%s)', async (how) => {
		const parameters = {
			resource: 'option',
			operation: 'get',
			selectBy: 'field',
			selectField: 'job_id',
			selectValue: '={{ $json.jobId }}',
		};
		const items = itemsOf(...['1_000', '0x3E8', ' +1000'].map((jobId) => ({ jobId })));
		const output = await runJson(service, withBatching(parameters, how), { items });
		expect(output.map((json) => json.job_id)).toEqual([1000, 1000, 1000]);
	});

	it.each(BATCHINGS)('Get By ID and an expression read every form (%s)', async (how) => {
		const forms = [...FORMS_OF_1000, ...FORMS_OF_5];
		const items = itemsOf(...forms.map((id) => ({ id })));
		const parameters = withBatching(byId('job', 'get', '={{ $json.id }}'), how);
		const output = await runJson(service, parameters, { items });
		expect(output.map((json) => json.id)).toEqual(forms.map((form) => (form in SET_5 ? 5 : 1000)));
		const byLocator = withBatching(byId('job', 'get', ''), how);
		byLocator.recordId = locator('id', '1_000');
		expect((await runJson(service, byLocator)).map((json) => json.id)).toEqual([1000]);
	});

	it('reads them in every Job ID field: Get Many filters, Option → Create', async () => {
		const downloads = await runJson(service, {
			resource: 'download',
			operation: 'getAll',
			returnAll: true,
			filters: { jobId: locator('id', '0b101') },
		});
		expect(downloads.map((json) => json.job_id)).toEqual([5]);
		const options = await runJson(service, {
			resource: 'option',
			operation: 'getAll',
			returnAll: true,
			filters: { jobId: locator('id', '1_000') },
		});
		expect(options.map((json) => json.job_id)).toEqual([1000]);
		const created = await runJson(service, {
			resource: 'option',
			operation: 'create',
			mode: 'offline',
			additionalFields: { jobId: locator('id', '+0x5') },
		});
		expect(created.map((json) => json.job_id)).toEqual([5]);
	});

	it('From List finds job 1000 typed as 1_000', async () => {
		const found = await service.harness.listSearch(new WebsiteExport(), 'searchJobs', '1_000');
		expect(found.results.map((result) => result.value)).toEqual(['1000']);
	});

	it.each(BATCHINGS)(
		'refuses other forms before any request, naming the field (%s)',
		async (how) => {
			for (const bad of NOT_IDS) {
				const since = service.emulator.log.length;
				const parameters: INodeParameters = withBatching(byId('job', 'get', bad), how);
				const error = await runError(service, parameters, { items: itemsOf({}) });
				expect(error).toBeInstanceOf(NodeOperationError);
				expect(error.message).toBe('Invalid input: Job ID must be a whole number greater than 0');
				expect(itemIndexOf(error)).toBe(0);
				expect(restSince(service, since)).toEqual([]);
			}
		},
	);
});

/** The forms of 5, for looking up which ID a form names. */
const SET_5: IDataObject = Object.fromEntries(FORMS_OF_5.map((form) => [form, true]));
