import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { requestsSince, startService, type Service } from '../support';
import { byId, expectServiceError, itemsOf, runError, runJson, runNode } from './helpers';
import { badIdCases, itRejectsInput, type InputErrorCase } from './inputErrors';

const option = (operation: string, parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'option',
	operation,
	...parameters,
});

/** The operation on the option with this ID (or expression). */
const optionById = (
	operation: string,
	recordId: string | number,
	parameters: INodeParameters = {},
) => byId('option', operation, recordId, parameters);

describe('Website Export node: Option resource', () => {
	let service: Service;
	let jobId: number;

	beforeEach(async () => {
		service = await startService();
		[{ id: jobId }] = (await service.emulator.insert('jobs', [
			{ url: 'https://example.com', email: 'owner@example.com' },
		])) as Array<{ id: number }>;
		service.emulator.clearLog();
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	const addOptions = async (...rows: IDataObject[]) =>
		(await service.emulator.insert('options', rows)) as IDataObject[];

	describe('create', () => {
		it('creates an offline option without a job', async () => {
			const [created] = await runJson(service, option('create', { mode: 'offline' }));
			expect(created).toMatchObject({ mode: 'offline', job_id: null });
			expect(created.id).toEqual(expect.any(Number));
			expect(await service.emulator.rows('options')).toEqual([
				expect.objectContaining({ id: created.id, mode: 'offline' }),
			]);
			expect(requestsSince(service.emulator)).toMatchObject({ rest: 1, token: 1 });
		});

		it('creates a relative option for a job, with the path made to start with a slash', async () => {
			const [created] = await runJson(
				service,
				option('create', {
					mode: 'relative',
					relativePath: 'docs/',
					additionalFields: { jobId: String(jobId) },
				}),
			);
			expect(created).toMatchObject({ mode: 'relative', relative_path: '/docs/', job_id: jobId });
		});

		it('creates an absolute option with its Replace URL', async () => {
			const [created] = await runJson(
				service,
				option('create', {
					mode: 'absolute',
					replaceUrl: 'https://mirror.example.com',
					additionalFields: { jobId },
				}),
			);
			expect(created).toMatchObject({
				mode: 'absolute',
				replace_url: 'https://mirror.example.com',
				job_id: jobId,
			});
		});

		it('passes the foreign key error of a missing job on as a NodeApiError with the service message', async () => {
			const error = await runError(
				service,
				option('create', { mode: 'offline', additionalFields: { jobId: '999999' } }),
			);
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toBe(
				'insert or update on table "options" violates foreign key constraint "options_job_id_fkey"',
			);
			expect((error as unknown as NodeApiError).httpCode).toBe('409');
			expect(await service.emulator.count('options')).toBe(0);
		});
	});

	describe('get', () => {
		it('gets an option by ID', async () => {
			const [stored] = await addOptions(
				{ mode: 'offline' },
				{ mode: 'relative', relative_path: '/a/' },
			);
			const [found] = await runJson(service, optionById('get', String(stored.id)));
			expect(found).toEqual(stored);
		});

		it('gets an option by another field (Job ID)', async () => {
			await addOptions({ mode: 'offline' });
			const [, stored] = await addOptions(
				{ mode: 'offline' },
				{ mode: 'absolute', replace_url: 'https://m.example.com', job_id: jobId },
			);
			const [found] = await runJson(
				service,
				option('get', { selectBy: 'field', selectField: 'job_id', selectValue: String(jobId) }),
			);
			expect(found).toEqual(stored);
		});

		it('refuses a field value that matches several options', async () => {
			await addOptions({ mode: 'offline', job_id: jobId }, { mode: 'offline', job_id: jobId });
			const error = await runError(
				service,
				option('get', { selectBy: 'field', selectField: 'job_id', selectValue: String(jobId) }),
			);
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toBe(`2 records match the option with job_id "${jobId}"`);
		});

		it('says when the option does not exist', async () => {
			const error = await runError(service, optionById('get', '4242'));
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toBe('No option with ID 4242 was found');
			expect((error as unknown as NodeApiError).httpCode).toBe('404');
		});
	});

	describe('getAll', () => {
		let stored: IDataObject[];
		beforeEach(async () => {
			stored = await addOptions(
				{ mode: 'offline' },
				{ mode: 'relative', relative_path: '/a/', job_id: jobId },
				{ mode: 'absolute', replace_url: 'https://m.example.com' },
				{ mode: 'relative', relative_path: '/b/' },
				{ mode: 'offline', job_id: jobId },
			);
		});

		it('returns all options in ID order', async () => {
			expect(await runJson(service, option('getAll', { returnAll: true }))).toEqual(stored);
		});

		it('stops at the limit', async () => {
			expect(await runJson(service, option('getAll', { returnAll: false, limit: 2 }))).toEqual(
				stored.slice(0, 2),
			);
		});

		it('filters by mode and by job', async () => {
			const relative = await runJson(
				service,
				option('getAll', { returnAll: true, filters: { mode: 'relative' } }),
			);
			expect(relative.map((o) => o.id)).toEqual([stored[1].id, stored[3].id]);
			const ofJob = await runJson(
				service,
				option('getAll', { returnAll: true, filters: { jobId: String(jobId) } }),
			);
			expect(ofJob.map((o) => o.id)).toEqual([stored[1].id, stored[4].id]);
			const both = await runJson(
				service,
				option('getAll', { returnAll: true, filters: { jobId, mode: 'offline' } }),
			);
			expect(both.map((o) => o.id)).toEqual([stored[4].id]);
		});
	});

	describe('update', () => {
		it('changes the mode together with the field the new mode needs', async () => {
			const [stored] = await addOptions({ mode: 'relative', relative_path: '/a/' });
			const [updated] = await runJson(
				service,
				optionById('update', String(stored.id), {
					updateFields: { mode: 'absolute', replaceUrl: 'https://m.example.com' },
				}),
			);
			expect(updated).toMatchObject({
				id: stored.id,
				mode: 'absolute',
				replace_url: 'https://m.example.com',
			});
			expect((await service.emulator.rows('options'))[0]).toMatchObject({
				mode: 'absolute',
				replace_url: 'https://m.example.com',
			});
		});

		it('updates an option selected by another field, and its job', async () => {
			const [, stored] = await addOptions({ mode: 'offline' }, { mode: 'offline', job_id: jobId });
			const [{ id: otherJob }] = (await service.emulator.insert('jobs', [
				{ url: 'https://other.example.com', email: 'o@example.com' },
			])) as IDataObject[];
			const [updated] = await runJson(
				service,
				option('update', {
					selectBy: 'field',
					selectField: 'job_id',
					selectValue: String(jobId),
					updateFields: { jobId: String(otherJob) },
				}),
			);
			expect(updated).toMatchObject({ id: stored.id, job_id: otherJob });
		});

		it('says when the option to update does not exist', async () => {
			await expectServiceError(
				service,
				optionById('update', '4242', { updateFields: { mode: 'offline' } }),
				'No option with ID 4242 was found',
			);
		});
	});

	describe('delete', () => {
		it('deletes an option and outputs it', async () => {
			const [stored, kept] = await addOptions({ mode: 'offline' }, { mode: 'offline' });
			const [deleted] = await runJson(service, optionById('delete', String(stored.id)));
			expect(deleted).toEqual({ deleted: true, ...stored });
			expect(await service.emulator.rows('options')).toEqual([kept]);
		});

		it('says when the option to delete does not exist, by ID or by another field', async () => {
			await expectServiceError(
				service,
				optionById('delete', '4242'),
				'No option with ID 4242 was found',
			);
			const byField = await runError(
				service,
				option('delete', { selectBy: 'field', selectField: 'job_id', selectValue: '4242' }),
			);
			expect(byField.message).toBe('No option with job_id "4242" was found');
			// Looked up first (by ID too, while the service has not shown that it returns deleted
			// rows): no DELETE is sent for a record that does not exist.
			expect(
				requestsSince(service.emulator).entries.filter((e) => e.method === 'DELETE'),
			).toHaveLength(0);
		});
	});

	describe('validation, before any request', () => {
		const update = (updateFields: INodeParameters, recordId = '1') =>
			optionById('update', recordId, { updateFields });
		const relative = (relativePath: string) => option('create', { mode: 'relative', relativePath });
		const absolute = (replaceUrl: string) => option('create', { mode: 'absolute', replaceUrl });
		const NOT_AN_ADDRESS = 'Replace URL must be a full http:// or https:// address';
		const cases: InputErrorCase[] = [
			[
				'relative without a path',
				relative('  '),
				'Relative Path is required when the mode is Relative',
			],
			['a path with ".."', relative('/a/../b'), 'Relative Path must not contain ".."'],
			['absolute without a Replace URL', absolute(''), 'Replace URL is required'],
			['a Replace URL that is not http(s)', absolute('ftp://m.example.com'), NOT_AN_ADDRESS],
			['a Replace URL that is no address', absolute('mirror'), NOT_AN_ADDRESS],
			...badIdCases('Option ID', {
				get: (bad) => optionById('get', bad),
				delete: (bad) => optionById('delete', bad),
			}),
			...badIdCases('Job ID', {
				create: (bad) => option('create', { mode: 'offline', additionalFields: { jobId: bad } }),
				getAll: (bad) => option('getAll', { returnAll: true, filters: { jobId: bad } }),
				update: (bad) => update({ jobId: bad }),
			}),
			[
				'update to relative without a path',
				update({ mode: 'relative' }),
				'Relative Path is required when the mode is changed to Relative',
			],
			[
				'update to absolute without a Replace URL',
				update({ mode: 'absolute' }),
				'Replace URL is required when the mode is changed to Absolute',
			],
			['update to a bad Replace URL', update({ replaceUrl: 'mirror' }), NOT_AN_ADDRESS],
			[
				'update with a bad Option ID',
				update({ mode: 'offline' }, 'x'),
				'Option ID must be a whole number greater than 0',
			],
			[
				'update without fields',
				update({}),
				'Nothing to update: add at least one field under Update Fields',
			],
			[
				'a limit of 0',
				option('getAll', { returnAll: false, limit: 0 }),
				'Limit must be at least 1',
			],
			[
				'an empty selection value',
				option('get', { selectBy: 'field', selectField: 'job_id', selectValue: '' }),
				'Value is required',
			],
		];

		itRejectsInput(cases, () => service);

		it('names the item that failed, and sends nothing for any item', async () => {
			const error = await runError(
				service,
				option('create', { mode: 'offline', additionalFields: { jobId: '={{ $json.jobId }}' } }),
				{
					items: itemsOf({ jobId: '' }, { jobId }, { jobId: '1.5' }),
				},
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe('Invalid input: Job ID must be a whole number greater than 0');
			expect(error.description).toBe('Job ID must be a whole number greater than 0 [item 2]');
			expect((error as unknown as NodeOperationError).context.itemIndex).toBe(2);
			expect(requestsSince(service.emulator).rest).toBe(0);
			expect(await service.emulator.count('options')).toBe(0);
		});
	});

	it('continueOnFail turns one bad item of three into an error item, pairedItem intact', async () => {
		const output = await runNode(
			service,
			option('create', { mode: 'offline', additionalFields: { jobId: '={{ $json.jobId }}' } }),
			{
				items: itemsOf({ jobId }, { jobId: 999999 }, { jobId: '' }),
				onError: 'continueRegularOutput',
			},
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json).toMatchObject({ mode: 'offline', job_id: jobId });
		expect(output[1].json).toEqual({
			error:
				'insert or update on table "options" violates foreign key constraint "options_job_id_fkey"',
			details: expect.stringContaining('is not present in table "jobs"'),
		});
		expect(output[2].json).toMatchObject({ mode: 'offline', job_id: null });
		expect(await service.emulator.count('options')).toBe(2);
	});
});
