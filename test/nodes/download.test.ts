/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
import { Container } from '@n8n/di';
import { createServer, get, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';
import { BinaryDataConfig, BinaryDataService } from 'n8n-core';
import type { IBinaryData, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { existsSync, readdirSync } from 'fs';
import AdmZip from 'adm-zip';

import type { DownloadRecord } from '../../nodes/shared/downloads';
import { WebsiteExport } from '../../nodes/WebsiteExport/WebsiteExport.node';
import { NodeHarness } from '../harness';
import { requestsSince, startService, type Service } from '../support';
import { itemsOf, runError, runNode } from './helpers';

const HOUR = 60 * 60 * 1000;
const MiB = 1024 * 1024;

/** A zip's entries (adm-zip checks the CRC-32 of each one as it reads it). */
const readZip = (zip: Buffer): Array<{ name: string; size: number }> =>
	new AdmZip(zip)
		.getEntries()
		.map((entry) => ({ name: entry.entryName, size: entry.getData().length }));

const binaryData = () => Container.get(BinaryDataService);

describe('Website Export node, Download resource', () => {
	let service: Service;
	const emu = () => service.emulator;

	beforeEach(async () => {
		service = await startService();
	});
	afterEach(async () => {
		await service.emulator.close();
	});

	/**
	 * Downloads of `count` jobs that finished `agoMs` before now by the node's (real) clock, all
	 * at the same moment: the emulator clock is set back, the jobs run, and it comes back.
	 */
	async function finishedDownloads(count: number, agoMs = 0): Promise<DownloadRecord[]> {
		const finishAt = Date.now() - agoMs;
		await emu().clock.set(finishAt - emu().settings.jobDurationMs);
		const jobs = (await emu().insert(
			'jobs',
			Array.from({ length: count }, (_, i) => ({
				url: `https://site${i}.example.com`,
				email: 'owner@example.com',
			})),
		)) as Array<{ id: number }>;
		await emu().clock.set(finishAt);
		await emu().clock.set(Date.now());
		const jobIds = new Set(jobs.map((job) => job.id));
		const downloads = ((await emu().rows('downloads')) as DownloadRecord[]).filter((d) =>
			jobIds.has(d.job_id as number),
		);
		expect(downloads).toHaveLength(count);
		return downloads;
	}

	const run = async (
		parameters: INodeParameters,
		items?: INodeExecutionData[],
		onError?: INode['onError'],
	) => await runNode(service, { resource: 'download', ...parameters }, { items, onError });

	const failure = async (parameters: INodeParameters, items?: INodeExecutionData[]) =>
		(await runError(
			service,
			{ resource: 'download', ...parameters },
			{ items },
		)) as unknown as Error & {
			description?: string;
			httpCode?: string;
			context: { itemIndex?: number };
		};

	const archiveRequests = (since = 0) =>
		requestsSince(emu(), since).entries.filter((e) => e.kind === 'archive');

	describe('get', () => {
		it('returns one download by ID, with its expiry', async () => {
			const [, download] = await finishedDownloads(3);
			const before = emu().log.length;
			const output = await run({ operation: 'get', selectBy: 'id', recordId: String(download.id) });
			expect(output).toHaveLength(1);
			const expiresAt = new Date(Date.parse(String(download.created_at)) + 24 * HOUR).toISOString();
			expect(output[0].json).toEqual({ ...download, expires_at: expiresAt, is_expired: false });
			expect(requestsSince(emu(), before).rest).toBe(1);
		});

		it('finds a download by another field and marks an old link as expired', async () => {
			const [download] = await finishedDownloads(1, 30 * HOUR);
			await finishedDownloads(2);
			for (const [field, value] of [
				['job_id', String(download.job_id)],
				['download_link', download.download_link],
			]) {
				const output = await run({
					operation: 'get',
					selectBy: 'field',
					selectField: field,
					selectValue: value,
				});
				expect(output.map((item) => item.json)).toEqual([
					expect.objectContaining({ id: download.id, is_expired: true }),
				]);
			}
		});

		it('says which download is missing', async () => {
			const error = await failure({ operation: 'get', selectBy: 'id', recordId: '999' });
			expect(error.message).toBe('No download with ID 999 was found');
			expect(error.httpCode).toBe('404');
		});
	});

	describe('getAll', () => {
		it('returns only links that still work by default, filtered on the server, newest first', async () => {
			const old = await finishedDownloads(2, 25 * HOUR);
			const older = await finishedDownloads(1, 30 * HOUR);
			const fresh = await finishedDownloads(2, 1 * HOUR);
			const newest = await finishedDownloads(1, 0);
			const before = emu().log.length;

			const valid = await run({ operation: 'getAll', returnAll: true, onlyValidLinks: true });
			// Same created_at within a batch: the id breaks the tie, newest (highest) first.
			expect(valid.map((item) => item.json.id)).toEqual([newest[0].id, fresh[1].id, fresh[0].id]);
			expect(
				valid.every(
					(item) => item.json.is_expired === false && typeof item.json.expires_at === 'string',
				),
			).toBe(true);
			const [request] = requestsSince(emu(), before).entries.filter((e) => e.kind === 'rest');
			expect(decodeURIComponent(request.query)).toMatch(/created_at=gt\.\d{4}-\d\d-\d\dT/);

			const all = await run({ operation: 'getAll', returnAll: true, onlyValidLinks: false });
			expect(all.map((item) => item.json.id)).toEqual([
				newest[0].id,
				fresh[1].id,
				fresh[0].id,
				old[1].id,
				old[0].id,
				older[0].id,
			]);
			expect(all.map((item) => item.json.is_expired)).toEqual([
				false,
				false,
				false,
				true,
				true,
				true,
			]);
		});

		it('counts Limit over valid links only and pages through Return All', async () => {
			const valid = await finishedDownloads(5, 2 * HOUR);
			await finishedDownloads(4, 26 * HOUR);
			const newestFirst = valid.map((d) => d.id).reverse();

			const limited = await run({ operation: 'getAll', returnAll: false, limit: 3 });
			expect(limited.map((item) => item.json.id)).toEqual(newestFirst.slice(0, 3));

			emu().settings.maxRows = 2;
			const before = emu().log.length;
			const all = await run({ operation: 'getAll', returnAll: true });
			expect(all.map((item) => item.json.id)).toEqual(newestFirst);
			expect(requestsSince(emu(), before).rest).toBe(3);
		});

		it('filters by job ID', async () => {
			const downloads = await finishedDownloads(3);
			const output = await run({
				operation: 'getAll',
				returnAll: true,
				filters: { jobId: String(downloads[1].job_id) },
			});
			expect(output.map((item) => item.json.id)).toEqual([downloads[1].id]);
		});

		it('refuses a job ID that is not a number before sending anything', async () => {
			const before = emu().log.length;
			const error = await failure({
				operation: 'getAll',
				returnAll: true,
				filters: { jobId: 'abc' },
			});
			expect(error.message).toBe('Invalid input: Job ID must be a whole number greater than 0');
			expect(requestsSince(emu(), before).entries).toHaveLength(0);
		});
	});

	describe('downloadArchive', () => {
		const byId = (id: number | string, extra: INodeParameters = {}): INodeParameters => ({
			operation: 'downloadArchive',
			downloadBy: 'id',
			downloadId: String(id),
			binaryPropertyName: 'data',
			...extra,
		});
		const byLink = (link: string, extra: INodeParameters = {}): INodeParameters => ({
			operation: 'downloadArchive',
			downloadBy: 'link',
			downloadLink: link,
			binaryPropertyName: 'data',
			...extra,
		});
		const linkName = (link: string) => link.slice(link.lastIndexOf('/') + 1);

		async function expectZip(binary: IBinaryData | undefined, size: number) {
			expect(binary).toBeDefined();
			expect(binary!.id).toBeDefined(); // stored in the filesystem, not inline as base64
			expect(binary!.mimeType).toBe('application/zip');
			const bytes = await binaryData().getAsBuffer(binary!);
			expect(bytes.length).toBe(size);
			expect(readZip(bytes)).toEqual([
				{ name: 'index.html', size: expect.any(Number) },
				{ name: 'payload.bin', size: emu().settings.archiveBytes },
			]);
		}

		it('many by ID: one read of their rows, one archive request each, each item as one request per item gives it', async () => {
			const downloads = await finishedDownloads(3);
			const ids = [downloads[0].id, 424242, downloads[2].id, downloads[0].id];
			const items = itemsOf(...ids.map((id) => ({ id })));
			const before = emu().log.length;
			const batched = await run(byId('={{ $json.id }}'), items, 'continueRegularOutput');
			expect(requestsSince(emu(), before).rest).toBe(1);
			expect(archiveRequests(before)).toHaveLength(3);
			const perItem = await run(
				byId('={{ $json.id }}', { options: { batching: 'perItem' } }),
				items,
				'continueRegularOutput',
			);
			expect(batched.map((item) => item.json)).toEqual(perItem.map((item) => item.json));
			expect(batched[1].json.error).toBe('No download with ID 424242 was found');
			expect(batched.map((item) => item.json.fileName !== undefined)).toEqual([
				true,
				false,
				true,
				true,
			]);
		});

		it('downloads by ID: one lookup, one archive request, a valid zip in binary data', async () => {
			const [download] = await finishedDownloads(1);
			const before = emu().log.length;
			const [item, ...rest] = await run(byId(download.id, { binaryPropertyName: 'archive' }));
			expect(rest).toHaveLength(0);
			const log = requestsSince(emu(), before);
			expect(log.rest).toBe(1);
			const [archive] = archiveRequests(before);
			expect(archive.status).toBe(200);
			expect(item.json).toEqual({
				...download,
				expires_at: expect.any(String),
				is_expired: false,
				fileName: linkName(download.download_link),
				fileSize: archive.responseBytes,
			});
			expect(Object.keys(item.binary!)).toEqual(['archive']);
			expect(item.binary!.archive.fileName).toBe(linkName(download.download_link));
			await expectZip(item.binary!.archive, archive.responseBytes);
		});

		it('downloads by link from the input with no request to the API', async () => {
			const [download] = await finishedDownloads(2);
			const listed = await run({ operation: 'getAll', returnAll: false, limit: 1 });
			const before = emu().log.length;
			const output = await run(byLink('={{ $json.download_link }}'), listed);
			expect(requestsSince(emu(), before).rest).toBe(0);
			const [archive] = archiveRequests(before);
			expect(output).toHaveLength(1);
			const link = listed[0].json.download_link as string;
			expect(link).not.toBe(download.download_link); // the newest one was listed
			expect(output[0].json).toEqual({
				download_link: link,
				fileName: linkName(link),
				fileSize: archive.responseBytes,
			});
			expect(output[0].pairedItem).toEqual({ item: 0 });
			await expectZip(output[0].binary!.data, archive.responseBytes);
		});

		it.each([
			['25 h ago', async () => (await finishedDownloads(1, 25 * HOUR))[0]],
			// Links expire by the service's clock: the node reads it from the lookup's Date header.
			[
				'now, with the service clock 25 h ahead',
				async () => {
					const [download] = await finishedDownloads(1);
					await emu().clock.advance(25 * HOUR);
					return download;
				},
			],
		])(
			'refuses a link that expired (job finished %s) before asking for the archive',
			async (_, arrange) => {
				const download = await arrange();
				const before = emu().log.length;
				const error = await failure(byId(download.id));
				const expired = new Date(Date.parse(String(download.created_at)) + 24 * HOUR)
					.toISOString()
					.replace('T', ' ')
					.replace(/\.\d+Z$/, ' UTC');
				expect(error.message).toBe(
					`The download link of download ${download.id} expired on ${expired}`,
				);
				expect(error.description).toMatch(
					/valid for 24 hours after the job finished: run the job again/,
				);
				expect(error.httpCode).toBe('410');
				expect(requestsSince(emu(), before).rest).toBe(1);
				expect(archiveRequests(before)).toHaveLength(0);
			},
		);

		it('explains a link that storage no longer serves (400 "Object not found")', async () => {
			const [download] = await finishedDownloads(1);
			// By ID the record looks valid, and storage has lost the object all the same.
			emu().fault({
				match: { path: /^\/storage\// },
				status: 400,
				body: { statusCode: '404', error: 'not_found', message: 'Object not found' },
			});
			const cases: Array<[INodeParameters, string, () => Promise<void> | void]> = [
				[byId(download.id), `The download link of download ${download.id}`, () => {}],
				// By link the node cannot know the age: storage's clock decides.
				[byLink(download.download_link), 'The download link', () => emu().clock.advance(25 * HOUR)],
			];
			for (const [parameters, subject, arrange] of cases) {
				await arrange();
				const before = emu().log.length;
				const error = await failure(parameters);
				expect(error.message).toBe(
					`${subject} no longer works: the storage answered "Object not found"`,
				);
				expect(error.description).toMatch(/expired or was removed.*run the job again/);
				expect(error.httpCode).toBe('400');
				expect(archiveRequests(before).map((e) => e.status)).toEqual([400]);
			}
		});

		it('refuses a 200 that is a proxy’s HTML page, not an archive, storing nothing (issue 47)', async () => {
			const [download] = await finishedDownloads(1);
			const page = '<!doctype html><html><body>Please sign in to the network</body></html>';
			emu().fault({
				match: { path: /^\/storage\// },
				status: 200,
				body: page,
				contentType: 'text/html',
			});
			const error = await failure(byLink(download.download_link));
			expect(error.message).toBe(
				'The download link answered with an HTML page, not an archive: is a proxy in between?',
			);
			expect(error.httpCode).toBe('200');
		});

		it('with Continue On Fail, reports a failing item and downloads the others', async () => {
			const [fresh] = await finishedDownloads(1);
			const [stale] = await finishedDownloads(1, 48 * HOUR);
			const items = [{ json: { id: stale.id } }, { json: { id: fresh.id } }, { json: { id: 'x' } }];
			const output = await run(byId('={{ $json.id }}'), items, 'continueRegularOutput');
			expect(output).toHaveLength(3);
			expect(output[0].json.error).toMatch(
				new RegExp(`^The download link of download ${stale.id} expired on `),
			);
			expect(output[0].binary).toBeUndefined();
			expect(output[1].json).toMatchObject({ id: fresh.id, is_expired: false });
			expect(output[1].binary!.data.mimeType).toBe('application/zip');
			expect(output[2].json.error).toBe(
				'Invalid input: Download ID must be a whole number greater than 0',
			);
			expect(output.map((item) => item.pairedItem)).toEqual([
				{ item: 0 },
				{ item: 1 },
				{ item: 2 },
			]);
		});

		it.each([
			['', 'Invalid input: Put Output File in Field is required, e.g. data'],
			[
				'my archive',
				'Invalid input: Put Output File in Field must not contain spaces, e.g. data or archive_zip',
			],
		])('validates the output field name %p before any request', async (name, message) => {
			const [download] = await finishedDownloads(1);
			const before = emu().log.length;
			const error = await failure(byId(download.id, { binaryPropertyName: name }));
			expect(error.message).toBe(message);
			expect(error.context.itemIndex).toBe(0);
			expect(requestsSince(emu(), before).entries).toHaveLength(0);
		});

		it.each(['ftp://example.com/site.zip', 'site.zip', ''])(
			'refuses the link %p before any request',
			async (link) => {
				const before = emu().log.length;
				const error = await failure(byLink(link));
				expect(error.message).toMatch(
					/^Invalid input: Download Link (is required|must be a full http:\/\/ or https:\/\/ address)/,
				);
				expect(requestsSince(emu(), before).entries).toHaveLength(0);
			},
		);

		describe('a link on another origin', () => {
			let server: Server;
			let origin: string;
			const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
			let zip: Buffer;

			beforeEach(async () => {
				const [download] = await finishedDownloads(1);
				zip = await new Promise<Buffer>((resolve, reject) => {
					get(download.download_link, (res) => {
						const chunks: Buffer[] = [];
						res
							.on('data', (chunk: Buffer) => chunks.push(chunk))
							.on('end', () => resolve(Buffer.concat(chunks)));
					}).on('error', reject);
				});
				seen.length = 0;
				server = createServer((req, res) => {
					seen.push({ path: req.url ?? '', headers: req.headers });
					if (req.url === '/exports/cut.zip') {
						// Headers and a first part, then the connection drops.
						res.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length });
						res.write(zip.subarray(0, 1000), () => res.destroy());
						return;
					}
					// The same server, as the service itself (the credential's origin is 127.0.0.1:port).
					if (req.url?.startsWith('/auth/v1/token')) {
						res
							.writeHead(200, { 'content-type': 'application/json' })
							.end('{"access_token":"fake-token"}');
						return;
					}
					if (req.url?.startsWith('/storage/')) {
						const to = req.url.endsWith('ftp.zip')
							? 'ftp://example.com/site.zip'
							: `${origin.replace('127.0.0.1', 'localhost')}/exports/site%20copy.zip`;
						res.writeHead(302, { location: to }).end();
						return;
					}
					if (req.url !== '/exports/site%20copy.zip') {
						res
							.writeHead(404, { 'content-type': 'application/json' })
							.end('{"message":"Object not found"}');
						return;
					}
					res
						.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length })
						.end(zip);
				});
				await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
				// 127.0.0.1 like the emulator, but another port: another origin.
				origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			});
			afterEach(async () => {
				server.closeAllConnections();
				await new Promise((resolve) => server.close(resolve));
			});

			it('gets neither the API key nor the token', async () => {
				const [item] = await run(byLink(`${origin}/exports/site%20copy.zip`));
				expect(seen).toHaveLength(1);
				expect(seen[0].headers.apikey).toBeUndefined();
				expect(seen[0].headers.authorization).toBeUndefined();
				expect(item.json.fileName).toBe('site copy.zip');
				expect((await binaryData().getAsBuffer(item.binary!.data)).equals(zip)).toBe(true);
			});

			it('follows a redirect from the service to another host without the key or the token', async () => {
				const service = new NodeHarness({
					baseUrl: origin,
					apiKey: 'fake-api-key',
					email: 'owner@example.com',
					password: 'secret',
				});
				const parameters = {
					resource: 'download',
					...byLink(`${origin}/storage/v1/object/public/exports/moved.zip`),
				};
				const [[item]] = await service.execute(new WebsiteExport(), { parameters });
				const archive = seen.filter((request) => !request.path.startsWith('/auth/'));
				expect(
					archive.map((request) => [request.headers.host?.split(':')[0], request.path]),
				).toEqual([
					['127.0.0.1', '/storage/v1/object/public/exports/moved.zip'],
					['localhost', '/exports/site%20copy.zip'],
				]);
				expect(archive[0].headers).toMatchObject({
					apikey: 'fake-api-key',
					authorization: 'Bearer fake-token',
				});
				expect(archive[1].headers.apikey).toBeUndefined();
				expect(archive[1].headers.authorization).toBeUndefined();
				expect((await binaryData().getAsBuffer(item.binary!.data)).equals(zip)).toBe(true);

				const error = await service
					.execute(new WebsiteExport(), {
						parameters: {
							...parameters,
							downloadLink: `${origin}/storage/v1/object/public/exports/ftp.zip`,
						},
					})
					.catch((e: Error) => e);
				expect((error as Error).message).toBe(
					'The archive link redirects too often, or to something that is not an http(s) address',
				);
			});

			it('fails clearly when the connection drops halfway, keeping no partial file', async () => {
				const storage = Container.get(BinaryDataConfig).localStoragePath;
				const storedFiles = () =>
					existsSync(storage)
						? readdirSync(storage, { recursive: true, withFileTypes: true }).filter((entry) =>
								entry.isFile(),
							).length
						: 0;
				const before = storedFiles();
				const error = await failure(byLink(`${origin}/exports/cut.zip`));
				expect(storedFiles()).toBe(before);
				expect(error.message).toBe('The archive download was interrupted (aborted)');
				expect(error.description).toMatch(/Run the node again while the link is valid/);
			});

			it('reports a 404 as a link that no longer works', async () => {
				const error = await failure(byLink(`${origin}/exports/gone.zip`));
				expect(error.message).toBe(
					'The download link no longer works: the storage answered "Object not found"',
				);
				expect(error.httpCode).toBe('404');
			});
		});

		it('streams a 256 MiB archive to binary data without holding it in memory', async () => {
			emu().settings.archiveBytes = 256 * MiB;
			const [download] = await finishedDownloads(1);
			// RSS is what the brief measures; Buffer memory (arrayBuffers) is measured too, as RSS can
			// hide an allocation that reuses pages an earlier test freed in this worker.
			const usage = () => {
				const { rss, arrayBuffers } = process.memoryUsage();
				return { rss, arrayBuffers };
			};
			const baseline = usage();
			const peak = { ...baseline };
			const sample = () => {
				const now = usage();
				peak.rss = Math.max(peak.rss, now.rss);
				peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
			};
			const sampler = setInterval(sample, 20);
			let output: INodeExecutionData[];
			try {
				output = await run(byId(download.id));
			} finally {
				clearInterval(sampler);
			}
			sample();
			const rssMiB = (peak.rss - baseline.rss) / MiB;
			const buffersMiB = (peak.arrayBuffers - baseline.arrayBuffers) / MiB;
			console.log(
				`downloadArchive of a ${emu().settings.archiveBytes / MiB} MiB archive: peak RSS growth ${rssMiB.toFixed(1)} MiB, peak Buffer memory growth ${buffersMiB.toFixed(1)} MiB`,
			);
			expect(rssMiB).toBeLessThan(96);
			expect(buffersMiB).toBeLessThan(96);

			const [archive] = archiveRequests();
			expect(archive.responseBytes).toBeGreaterThan(256 * MiB);
			const binary = output[0].binary!.data;
			expect(binary.bytes).toBe(archive.responseBytes);
			expect(output[0].json.fileSize).toBe(archive.responseBytes);
			let stored = 0;
			for await (const chunk of await binaryData().getAsStream(binary.id!))
				stored += (chunk as Buffer).length;
			expect(stored).toBe(archive.responseBytes);
		});
	});
});
