// Records picked From List (searched and paged by the service, newest first), By ID or, for a
// job, By URL; a plain value (an expression, an AI tool's argument) counts as By ID.
import type { IDataObject, INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeHelpers, NodeOperationError } from 'n8n-workflow';

import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { requestsSince, serviceEachTest } from '../support';
import { runError, runJson, runNode } from './helpers';

const locator = (mode: string, value: string) => ({ __rl: true, mode, value });

describe('Website Export node: resource locators', () => {
	const node = new WebsiteExport();
	// Jobs stay queued and without downloads however slow the machine (labels show the status).
	const service = serviceEachTest({ jobDurationMs: 3_600_000 });

	const jobs = async (n: number, prefix = 'site') =>
		(await service.emulator.insert(
			'jobs',
			Array.from({ length: n }, (_, i) => ({
				url: `https://${prefix}${i}.example.com/`,
				email: `owner${i % 3}@example.com`,
			})),
		)) as IDataObject[];
	const search = (method: string, filter?: string, token?: string) =>
		service.harness.listSearch(node, method, filter, token);

	describe('From List', () => {
		it('lists jobs newest first, 50 a page, with a token for the next page, until the end', async () => {
			const stored = await jobs(120);
			const seen: string[] = [];
			let token: string | undefined;
			let pages = 0;
			do {
				const page = await search('searchJobs', undefined, token);
				seen.push(...page.results.map((result) => String(result.value)));
				token = page.paginationToken as string | undefined;
				pages++;
			} while (token);
			expect(pages).toBe(3);
			expect(seen).toEqual(stored.map((job) => String(job.id)).reverse());
			const [first] = (await search('searchJobs')).results;
			expect(first.name).toMatch(
				/^#\d+ · https:\/\/site119\.example\.com\/ · owner2@example\.com · queued · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
			);
		});

		it('searches jobs by URL or email on the service, not in n8n', async () => {
			await jobs(10);
			await jobs(2, 'docs-');
			const before = service.emulator.log.length;
			const byUrl = await search('searchJobs', 'DOCS-');
			expect(byUrl.results.map((result) => result.name.split(' · ')[1])).toEqual([
				'https://docs-1.example.com/',
				'https://docs-0.example.com/',
			]);
			const byEmail = await search('searchJobs', 'owner1@');
			expect(byEmail.results).toHaveLength(4);
			expect(requestsSince(service.emulator, before).rest).toBe(2);
			// The user's % and _ are literal characters, not wildcards.
			expect((await search('searchJobs', '%')).results).toEqual([]);
		});

		it('searches options by job ID or mode, and downloads by job ID', async () => {
			const [a, b] = await jobs(2);
			await service.emulator.insert('options', [
				{ mode: 'offline', job_id: a.id },
				{ mode: 'relative', relative_path: '/x/', job_id: b.id },
				{ mode: 'offline', job_id: b.id },
			]);
			expect((await search('searchOptions', String(b.id))).results).toHaveLength(2);
			expect((await search('searchOptions', 'rel')).results.map((r) => r.name)).toEqual([
				expect.stringMatching(/ · relative · job #/),
			]);
			await service.emulator.insert('downloads', [{ job_id: a.id }, { job_id: b.id }]);
			const downloads = await search('searchDownloads', String(a.id));
			expect(downloads.results).toHaveLength(1);
			expect(downloads.results[0].name).toContain(`job #${String(a.id)}`);
			expect((await search('searchDownloads', 'not a job id')).results).toEqual([]);
		});
	});

	describe('picking a record', () => {
		/** An operation on the record `recordId` picks (a locator, or a plain ID). */
		const pick = (
			resource: string,
			operation: string,
			recordId: unknown,
			extra: INodeParameters = {},
		): INodeParameters => ({
			resource,
			operation,
			selectBy: 'id',
			recordId: recordId as string,
			...extra,
		});
		const get = (resource: string, recordId: unknown) => pick(resource, 'get', recordId);

		it.each(['list', 'id'])('gets a job picked %s', async (mode) => {
			const [, job] = await jobs(3);
			const [got] = await runJson(service, get('job', locator(mode, String(job.id))));
			expect(got.id).toBe(job.id);
		});

		it('gets, updates and deletes a job picked By URL', async () => {
			const [, job] = await jobs(3);
			const byUrl = locator('url', String(job.url));
			expect((await runJson(service, get('job', byUrl)))[0].id).toBe(job.id);
			const [updated] = await runJson(
				service,
				pick('job', 'update', byUrl, { updateFields: { email: 'new@example.com' } }),
			);
			expect(updated).toMatchObject({ id: job.id, email: 'new@example.com' });
			const [deleted] = await runJson(service, pick('job', 'delete', byUrl));
			expect(deleted).toMatchObject({ deleted: true, id: job.id });
		});

		it('refuses a URL that matches several jobs, or none', async () => {
			await service.emulator.insert('jobs', [
				{ url: 'https://twice.example.com', email: 'a@example.com' },
				{ url: 'https://twice.example.com', email: 'b@example.com' },
			]);
			const several = await runError(
				service,
				get('job', locator('url', 'https://twice.example.com')),
			);
			expect(several).toBeInstanceOf(NodeApiError);
			expect(several.message).toBe('2 records match the job with URL "https://twice.example.com"');
			const none = await runError(
				service,
				get('job', locator('url', 'https://nowhere.example.com')),
			);
			expect(none.message).toBe('No job with URL "https://nowhere.example.com" was found');
		});

		it('gets an option and a download, and downloads an archive, picked From List', async () => {
			service.emulator.settings.jobDurationMs = 1;
			const [job] = await jobs(1);
			const [option] = (await service.emulator.insert('options', [
				{ mode: 'offline', job_id: job.id },
			])) as IDataObject[];
			await service.emulator.clock.advance(10);
			const [download] = (await service.emulator.rows('downloads')) as IDataObject[];
			expect(
				(await runJson(service, get('option', locator('list', String(option.id)))))[0].id,
			).toBe(option.id);
			expect(
				(await runJson(service, get('download', locator('list', String(download.id)))))[0].id,
			).toBe(download.id);
			const [archive] = await runJson(service, {
				resource: 'download',
				operation: 'downloadArchive',
				downloadBy: 'id',
				downloadId: locator('list', String(download.id)) as unknown as string,
				binaryPropertyName: 'data',
			});
			expect(archive).toMatchObject({ id: download.id, fileName: expect.stringMatching(/\.zip$/) });
		});

		it('refuses a bad ID before any request, naming the field and the item', async () => {
			const error = await runError(service, get('job', locator('id', 'abc')));
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toContain('Job ID must be a whole number greater than 0');
			expect(service.emulator.log).toHaveLength(0);
		});

		it('takes a plain ID or an expression as By ID', async () => {
			const [job] = await jobs(1);
			expect((await runJson(service, get('job', String(job.id))))[0].id).toBe(job.id);
			expect(
				(
					await runJson(service, get('job', '={{ $json.id }}'), {
						items: [{ json: { id: job.id } }],
					})
				)[0].id,
			).toBe(job.id);
			expect(
				(
					await runJson(service, get('job', locator('id', '={{ $json.id }}')), {
						items: [{ json: { id: job.id } }],
					})
				)[0].id,
			).toBe(job.id);
		});
	});

	describe('Job ID fields', () => {
		// How each operation with a Job ID field is run, and the job_id the service received: the
		// stored row for a write, the query's filter for a Get Many.
		interface JobIdCase {
			parameters: (jobId: unknown, option: IDataObject) => INodeParameters;
			received: (output: IDataObject[], option: IDataObject) => unknown;
		}
		const storedJobId = async (optionId: unknown) =>
			((await service.emulator.rows('options')) as IDataObject[]).find((row) => row.id === optionId)
				?.job_id;
		const filteredJobId = () => {
			const query = decodeURIComponent(
				service.emulator.log.filter((entry) => entry.kind === 'rest').at(-1)?.query ?? '',
			);
			return Number(/(?:^|&)job_id=eq\.(\d+)/.exec(query)?.[1]);
		};
		const cases: Record<string, JobIdCase> = {
			'option create': {
				parameters: (jobId) => ({
					resource: 'option',
					operation: 'create',
					mode: 'offline',
					additionalFields: { jobId } as INodeParameters,
				}),
				received: ([created]) => storedJobId(created.id),
			},
			'option update': {
				parameters: (jobId, option) => ({
					resource: 'option',
					operation: 'update',
					selectBy: 'id',
					recordId: locator('id', String(option.id)),
					updateFields: { jobId } as INodeParameters,
				}),
				received: (_, option) => storedJobId(option.id),
			},
			'option getAll filter': {
				parameters: (jobId) => ({
					resource: 'option',
					operation: 'getAll',
					returnAll: true,
					filters: { jobId } as INodeParameters,
				}),
				received: filteredJobId,
			},
			'download getAll filter': {
				parameters: (jobId) => ({
					resource: 'download',
					operation: 'getAll',
					returnAll: true,
					onlyValidLinks: false,
					filters: { jobId } as INodeParameters,
				}),
				received: filteredJobId,
			},
		};
		const picks: Array<[string, (id: string) => unknown]> = [
			['From List', (id) => locator('list', id)],
			['By ID', (id) => locator('id', id)],
		];
		const table = Object.keys(cases).flatMap((name) =>
			picks.map(([pick, value]) => [name, pick, value] as const),
		);

		// Two jobs, each with an option and a download: a filter that ignored the Job ID would return both.
		const seed = async () => {
			const [a, b] = await jobs(2);
			const [option] = (await service.emulator.insert('options', [
				{ mode: 'offline', job_id: a.id },
				{ mode: 'offline', job_id: b.id },
			])) as IDataObject[];
			await service.emulator.insert('downloads', [{ job_id: a.id }, { job_id: b.id }]);
			return { job: b, option };
		};

		it.each(table)('%s, %s: sends the job_id', async (name, _pick, value) => {
			const { job, option } = await seed();
			const output = await runJson(service, cases[name].parameters(value(String(job.id)), option));
			expect(output.length).toBeGreaterThan(0);
			expect(output.every((record) => record.job_id === job.id)).toBe(true);
			expect(await cases[name].received(output, option)).toBe(job.id);
		});

		it.each(Object.keys(cases))('%s: refuses an invalid By ID before any request', async (name) => {
			const { option } = await seed();
			const error = await runError(service, cases[name].parameters(locator('id', 'abc'), option));
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toContain('Job ID must be a whole number greater than 0');
			expect(service.emulator.log).toHaveLength(0);
		});

		it('leaves the filter out when the picked job is empty', async () => {
			await seed();
			const output = await runNode(
				service,
				cases['option getAll filter'].parameters(locator('list', ''), {}),
			);
			expect(output).toHaveLength(2);
		});
	});

	describe('what the editor shows', () => {
		// The editor's view: n8n's own display rules.
		const shown = (values: INodeParameters): INodeProperties[] => {
			const nodeOf = (parameters: INodeParameters) => ({ typeVersion: 2, parameters }) as INode;
			const parameters =
				NodeHelpers.getNodeParameters(
					node.description.properties,
					values,
					true,
					false,
					nodeOf(values),
					node.description,
				) ?? {};
			return node.description.properties.filter((property) =>
				NodeHelpers.displayParameter(parameters, property, nodeOf(parameters), node.description),
			);
		};
		const named = (properties: INodeProperties[], name: string) =>
			properties.filter((property) => property.name === name);

		it('one Select By, whose ID choice is labelled Record', () => {
			for (const resource of ['job', 'option', 'download']) {
				const selectBy = named(shown({ resource, operation: 'get' }), 'selectBy');
				expect(selectBy).toHaveLength(1);
				expect(selectBy[0].options?.[0]).toMatchObject({ name: 'Record', value: 'id' });
			}
		});

		it('shows Items per Request in Options unless Batching is One Request per Item', () => {
			const options = named(node.description.properties, 'options')[0].options as INodeProperties[];
			const itemsPerRequest = named(options, 'itemsPerRequest')[0];
			// The editor decides an option's display from the collection's values (n8n's ParameterInputList).
			const showsWith = (collection: INodeParameters) => {
				const parameters: INodeParameters = {
					resource: 'job',
					operation: 'get',
					options: collection,
				};
				const inCanvas = { typeVersion: 2, parameters } as unknown as INode;
				return NodeHelpers.displayParameter(
					collection,
					itemsPerRequest,
					inCanvas,
					node.description,
					parameters,
				);
			};
			expect(showsWith({ itemsPerRequest: 5 })).toBe(true);
			expect(showsWith({ batching: 'automatic', itemsPerRequest: 5 })).toBe(true);
			expect(showsWith({ batching: 'perItem', itemsPerRequest: 5 })).toBe(false);
		});

		it('says what Record picks: by URL only for a job', () => {
			const description = (resource: string) =>
				(
					named(shown({ resource, operation: 'get' }), 'selectBy')[0].options?.[0] as {
						description: string;
					}
				).description;
			expect(description('job')).toBe('The job picked from the list, by ID or by URL');
			expect(description('option')).toBe('The option picked from the list, by ID');
		});

		it.each([
			['option', 'create', 'additionalFields'],
			['option', 'update', 'updateFields'],
			['option', 'getAll', 'filters'],
			['download', 'getAll', 'filters'],
		])('%s %s: Job ID in %s is a From List / By ID locator', (resource, operation, collection) => {
			const collections = named(shown({ resource, operation }), collection);
			expect(collections).toHaveLength(1);
			const jobIds = (collections[0].options as INodeProperties[]).filter(
				(option) => option.name === 'jobId',
			);
			expect(jobIds).toHaveLength(1);
			const jobLocator = jobIds[0];
			expect(jobLocator).toMatchObject({
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
			});
			expect(jobLocator.modes?.map((mode) => mode.name)).toEqual(['list', 'id']);
			expect(jobLocator.modes?.[0].typeOptions?.searchListMethod).toBe('searchJobs');
			const recordIdRegex = named(node.description.properties, 'recordId').find(
				(property) => property.type === 'resourceLocator',
			)?.modes?.[1].validation;
			expect(jobLocator.modes?.[1].validation).toEqual(recordIdRegex);
		});

		it("keeps a stored Job ID through n8n's parameter resolution", () => {
			const stored = (jobId: unknown) =>
				NodeHelpers.getNodeParameters(
					node.description.properties,
					{ resource: 'option', operation: 'getAll', filters: { jobId } as INodeParameters },
					true,
					false,
					{ typeVersion: 2 } as INode,
					node.description,
				)?.filters;
			expect(stored(locator('list', '7'))).toEqual({ jobId: locator('list', '7') });
		});
	});

	it('has one version, with From List, By ID and By URL for a job', () => {
		expect(node.description.version).toBe(2);
		const locators = node.description.properties.filter(
			(property) => property.type === 'resourceLocator',
		);
		const jobLocator = locators.find((property) =>
			property.modes?.some((mode) => mode.name === 'url'),
		);
		expect(jobLocator?.modes?.map((mode) => mode.name)).toEqual(['list', 'id', 'url']);
		expect(new Set(locators.map((property) => property.name))).toEqual(
			new Set(['recordId', 'downloadId']),
		);
	});
});
