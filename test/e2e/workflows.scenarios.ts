/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: every operation inside a real n8n (`n8n execute` of the example and test workflows), each
// workflow a scenario on a reset service: its output items, the service's rows, the stored archive.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import * as n8n from '../../stack/n8n/lib';
import { insertFinishedDownloads } from './trigger-runs';
import {
	CREDENTIAL_TYPE,
	DAY_MS,
	NODE_TYPE,
	PACKAGE,
	TOOL_TYPE,
	TRIGGER_TYPE,
	WRONG_PASSWORD,
	assertDownload,
	assertPaired,
	binaryFile,
	bytesOf,
	execute,
	fileServer,
	inspectZip,
	jsonOf,
	ms,
	outputOf,
	report,
	resetService,
	runOk,
	service,
	workflowFile,
	type Json,
	type RunResult,
	credentialsFor,
	env,
	n8nDir,
} from './suite';

// Registered by editor-n8n.test.ts, inside its describe block, on its n8n.
test('package loaded by n8n (the node types its editor is served)', async () => {
	const loaded = await (await fileServer()).nodeTypes();
	assert.deepEqual(loaded.failedPackages, [], 'n8n failed to load a package');
	const ours = (loaded.byPackage[PACKAGE] || []).sort();
	assert.deepEqual(ours, [NODE_TYPE, TOOL_TYPE, TRIGGER_TYPE], `node types of ${PACKAGE}`);
	const node: Json = loaded.descriptions.find((d: Json) => d.name === NODE_TYPE);
	// n8n adds its own "Custom API Call" entry (__CUSTOM_API_CALL__) to every operation list.
	const ops = Object.fromEntries(
		['option', 'job', 'download'].map((resource) => [
			resource,
			node.properties
				.find((p: Json) => p.name === 'operation' && p.displayOptions.show.resource[0] === resource)
				.options.map((o: Json) => o.value)
				.filter((value: string) => value !== '__CUSTOM_API_CALL__'),
		]),
	);
	const crud = ['create', 'delete', 'get', 'getAll', 'update'];
	assert.deepEqual(ops, {
		option: crud,
		job: crud,
		download: ['downloadArchive', 'get', 'getAll'],
	});
	assert.deepEqual(
		node.credentials.map((c: Json) => c.name),
		[CREDENTIAL_TYPE],
	);
	report(
		`${ours.join(', ')} (the tool variant n8n derives for AI agents); no failed packages; ${Object.values(ops).flat().length} operations; credential ${CREDENTIAL_TYPE}`,
	);
});

describe('job-export-and-download', () => {
	let r: RunResult;
	let archiveBytes: number;
	beforeAll(async () => {
		await resetService();
		archiveBytes = (await service.settings()).archiveBytes;
		r = await runOk('job-export-and-download');
	});
	const exported = () => outputOf(r, 'Export Website')[0].json;
	const archive = () => outputOf(r, 'Download Archive');

	test('job.create + Wait for Completion', async () => {
		const items = outputOf(r, 'Export Website');
		assert.equal(items.length, 1, 'items');
		assertPaired(items, 'Export Website');
		const job = items[0].json;
		assert.equal(job.status, 'finished', 'status after waiting');
		assert.equal(job.url, 'https://example.com');
		assert.equal(job.email, 'you@example.com');
		assert.ok(job.files > 0, `files ${job.files}`);
		assert.equal(job.option.mode, 'offline', 'option.mode');
		assert.equal(job.option.job_id, job.id, 'option.job_id');
		assertDownload(job.download, { what: 'job.download' });
		assert.equal(job.download.job_id, job.id, 'download.job_id');
		const stored = (await service.rows('options')).find((o) => o.id === job.option.id);
		assert.equal(stored?.job_id, job.id, 'the option is stored with the job id');
		report(
			`job #${job.id} finished (files ${job.files}), option #${job.option.id} offline for it, download #${job.download.id} expires_at ${job.download.expires_at} = created_at + 24 h`,
		);
	});

	test('download.downloadArchive by ID', () => {
		const items = archive();
		assert.equal(items.length, 1, 'items');
		assertPaired(items, 'Download Archive');
		const { json, binary } = { json: items[0].json, binary: items[0].binary?.data };
		assert.ok(binary, 'binary property "data"');
		assert.equal(json.id, exported().download.id, 'the download of the job');
		assert.equal(binary.mimeType, 'application/zip', 'mimeType');
		assert.equal(binary.fileExtension, 'zip', 'fileExtension');
		assert.equal(binary.fileName, json.download_link.split('/').pop(), 'fileName');
		assert.equal(json.fileName, binary.fileName, 'json.fileName');
		assert.equal(json.fileSize, bytesOf(binary), 'json.fileSize = binary bytes');
		assert.ok(bytesOf(binary) > archiveBytes, `bytes ${bytesOf(binary)} > ${archiveBytes}`);
		assert.match(String(binary.id), /^filesystem(-v2)?:/, `filesystem mode (${binary.id})`);
		report(`${binary.mimeType}, ${binary.fileName}, ${bytesOf(binary)} bytes (${binary.fileSize})`);
	});

	test('archive stored by n8n is a valid ZIP', () => {
		const binary = archive()[0].binary?.data;
		const file = binaryFile(binary.id);
		const buf = fs.readFileSync(file);
		assert.equal(buf.length, bytesOf(binary), `size of ${file}`);
		const { entries } = inspectZip(buf);
		assert.deepEqual(
			entries.map((e) => e.name),
			['index.html', 'payload.bin'],
			'entries',
		);
		assert.equal(entries[1].size, archiveBytes, 'payload.bin size');
		report(
			`${path.relative(n8nDir, file)}: ${buf.length} bytes, ${entries.map((e) => `${e.name} (${e.size} B, CRC-32 ok)`).join(', ')}`,
		);
	});
});

describe('download-list-valid', () => {
	let r: RunResult;
	let expected: number[];
	let expiredId: number;
	beforeAll(async () => {
		expiredId = (await resetService()).expired.id;
		// Two more valid links, newer than the seeded one.
		let files = 0;
		for (const ageMs of [30 * 60_000, 10 * 60_000])
			await insertFinishedDownloads(service, [`list-valid-${ageMs}`], {
				email: 'list@e2e.example.com',
				nextFiles: () => ++files,
				ageMs,
				jobMs: 2000,
			});
		const now = await service.now();
		expected = (await service.rows('downloads'))
			.filter((d) => ms(d.created_at) > now - DAY_MS)
			.sort((a, b) => ms(b.created_at) - ms(a.created_at) || b.id - a.id)
			.map((d) => d.id);
		r = await runOk('download-list-valid');
	});
	const listed = () => jsonOf(outputOf(r, 'Get Valid Download Links'));

	test('download.getAll, Only Valid Links', () => {
		const items = outputOf(r, 'Get Valid Download Links');
		assert.deepEqual(
			listed().map((d) => d.id),
			expected,
			'the valid downloads, newest first',
		);
		assert.ok(!expected.includes(expiredId), 'the expired download is left out');
		for (const d of listed()) assertDownload(d, { what: 'listed download' });
		items.forEach((i) => assert.deepEqual(i.pairedItem, { item: 0 }, 'pairedItem'));
		report(
			`${expected.length} items: ${expected.map((id) => `#${id}`).join(', ')} (newest first); expired #${expiredId} left out`,
		);
	});

	test('download.downloadArchive by Link', () => {
		const items = outputOf(r, 'Download Each Archive');
		assert.equal(items.length, listed().length, 'one archive per listed download');
		assertPaired(items, 'Download Each Archive');
		items.forEach((item, i) => {
			const b = item.binary?.data;
			assert.ok(b, `item ${i}: binary "data"`);
			assert.equal(item.json.download_link, listed()[i].download_link, `item ${i}: link`);
			assert.equal(b.mimeType, 'application/zip', `item ${i}: mimeType`);
			assert.equal(b.fileName, listed()[i].download_link.split('/').pop(), `item ${i}: fileName`);
			assert.equal(item.json.fileSize, bytesOf(b), `item ${i}: fileSize`);
			inspectZip(fs.readFileSync(binaryFile(b.id)));
		});
		report(
			`${items.length} items in input order, each a valid ZIP (${items.map((i) => `${bytesOf(i.binary.data)} B`).join(', ')})`,
		);
	});
});

describe('option-manage', () => {
	let r: RunResult;
	let seeded: Json;
	beforeAll(async () => {
		seeded = (await resetService()).option;
		r = await runOk('option-manage');
	});
	const created = () => outputOf(r, 'Create Option')[0].json;

	test('option.create', () => {
		const items = outputOf(r, 'Create Option');
		assert.equal(items.length, 1, 'items');
		assertPaired(items, 'Create Option');
		assert.ok(Number.isInteger(created().id), 'id');
		assert.deepEqual(
			[created().mode, created().relative_path, created().job_id],
			['relative', '/docs/', null],
		);
		report(`option #${created().id} mode relative, relative_path /docs/, job_id null`);
	});

	test('option.get', () => {
		assert.deepEqual(jsonOf(outputOf(r, 'Get Option')), [created()], 'the created option');
	});

	test('option.update', () => {
		const items = jsonOf(outputOf(r, 'Update Option'));
		assert.deepEqual(items, [
			{ ...created(), mode: 'absolute', replace_url: 'https://mirror.example.com' },
		]);
	});

	test('option.delete', async () => {
		const items = jsonOf(outputOf(r, 'Delete Option'));
		assert.deepEqual(
			items.map((x) => [x.deleted, x.id]),
			[[true, created().id]],
		);
		const left = (await service.rows('options')).map((o) => o.id);
		assert.ok(!left.includes(created().id), 'the option is gone from the service');
	});

	test('option.getAll, filter Mode', async () => {
		const items = jsonOf(outputOf(r, 'List Absolute Options'));
		const expected = (await service.rows('options')).filter((o) => o.mode === 'absolute');
		assert.deepEqual(
			items.map((o) => o.id),
			expected.map((o) => o.id),
			'every absolute option, in id order',
		);
		assert.ok(
			items.some((o) => o.id === seeded.id),
			'the seeded one listed',
		);
		assert.ok(!items.some((o) => o.id === created().id), 'the deleted one not listed');
		report(`${items.length} item(s), all mode absolute; deleted #${created().id} not listed`);
	});
});

describe('job-manage', () => {
	let r: RunResult;
	beforeAll(async () => {
		await resetService();
		r = await runOk('job-manage');
	});
	const job = () => jsonOf(outputOf(r, 'Create Job'))[0];

	test('job.create without waiting', () => {
		const items = jsonOf(outputOf(r, 'Create Job'));
		assert.equal(items.length, 1, 'items');
		assert.equal(job().status, 'queued', 'status');
		assert.equal(job().url, 'https://job-manage.e2e.example.com/');
		assert.ok(!('download' in job()), 'no download without waiting');
	});

	test('job.get', () => {
		const items = jsonOf(outputOf(r, 'Get Job'));
		assert.equal(items.length, 1, 'items');
		assert.deepEqual([items[0].id, items[0].email], [job().id, job().email]);
		assert.ok(['queued', 'running', 'finished'].includes(items[0].status), items[0].status);
	});

	test('job.update', () => {
		const items = jsonOf(outputOf(r, 'Update Job'));
		assert.equal(items.length, 1, 'items');
		assert.equal(items[0].id, job().id);
		assert.equal(items[0].email, 'job-manage-updated@e2e.example.com');
		assert.equal(items[0].url, 'https://job-manage.e2e.example.com/updated');
	});

	test('job.getAll, filter Email', () => {
		const items = jsonOf(outputOf(r, 'Get Many Jobs'));
		assert.deepEqual(
			items.map((j) => j.id),
			[job().id],
			'exactly the updated job',
		);
	});

	test('job.delete, Select By URL', async () => {
		assert.deepEqual(
			jsonOf(outputOf(r, 'Delete Job')).map((x) => [x.deleted, x.id]),
			[[true, job().id]],
		);
		const rows = await service.rows('jobs');
		assert.ok(!rows.some((j) => j.id === job().id), 'the job is gone from the service');
	});
});

describe('download-get and continue-on-fail', () => {
	let seeds: Awaited<ReturnType<typeof resetService>>;
	beforeAll(async () => {
		seeds = await resetService();
	});

	test('download.get by ID and Select By Job ID', async () => {
		const r = await runOk('download-get');
		const [valid] = jsonOf(outputOf(r, 'Get Valid Download'));
		assert.deepEqual([valid.id, valid.job_id], [seeds.valid.id, seeds.valid.job_id]);
		assertDownload(valid);
		const expired = jsonOf(outputOf(r, 'Get Expired Download'));
		assert.deepEqual(
			expired.map((d) => d.id),
			[seeds.expired.id],
		);
		assertDownload(expired[0], { expired: true });
		report(
			`#${valid.id} is_expired false; #${expired[0].id} of job #${seeds.expired.job_id} is_expired true`,
		);
	});

	test('On Error: Continue, download.get of 3 items and an expired archive', async () => {
		const r = await runOk('continue-on-fail');
		const items = outputOf(r, 'Get Downloads');
		assert.equal(items.length, 3, 'one output item per input item');
		assertPaired(items, 'Get Downloads');
		const [good, invalid, missing] = jsonOf(items);
		assert.equal(good.id, seeds.valid.id, 'item 0 is the download');
		assert.equal(invalid.error, 'Invalid input: Download ID must be a whole number greater than 0');
		assert.match(String(invalid.details), /\[item 1\]/, 'item 1 details name the item');
		assert.equal(missing.error, 'No download with ID 999999 was found', 'item 2 error');
		const archive = outputOf(r, 'Download Expired Archive');
		assert.equal(archive.length, 1, 'items');
		assert.ok(!archive[0].binary, 'no binary data');
		const { error, details } = archive[0].json;
		assert.match(
			error,
			/^The download link of download 900 expired on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
		);
		assert.match(String(details), /24 hours/);
		report(`"${invalid.error}"; "${missing.error}"; "${error}"`);
	});
});

test('a wrong password gives a readable reason (bad-credential)', async () => {
	await resetService();
	const r = await execute(workflowFile('bad-credential').id);
	assert.equal(r.ok, false, 'the run must fail');
	assert.equal(r.status, 'error', 'run status');
	const message = String(r.error?.message);
	assert.match(message, /^Login failed \(Invalid login credentials\)/);
	assert.match(message, /check the email and password/, 'says what to fix');
	assert.equal(r.lastNode, 'List Jobs', 'failing node');
	assert.ok(!r.output.includes(WRONG_PASSWORD), 'the password in the run or the log');
	const description = String(r.error?.description || '');
	assert.match(description, /credential/, `description: "${description}"`);
	report(`"${message}" (${description}); the password appears nowhere in the run or n8n's log`);
});

const runs = ['download-get', 'option-manage'];

test('one token request for several n8n processes (token caching)', async () => {
	// `n8n execute` processes beside the file's n8n, on its folder (sqlite in WAL mode), after its
	// credential was saved again (which drops the token it stored): the first run logs in, the
	// others reuse the token it stored; then the wrong password's run on the file's n8n.
	const server = await fileServer();
	await server.updateCredential(credentialsFor(service)[0]);
	await resetService();
	for (const name of runs) {
		const r = await n8n.executeWorkflow(workflowFile(name).id, { env });
		assert.ok(r.ok, `${name}: ${r.status}: ${r.error?.message}`);
	}
	await execute(workflowFile('bad-credential').id);
	const log = await service.log();
	const tokens = log.filter((e) => e.kind === 'token');
	const granted = tokens.filter((e) => e.status === 200);
	const refused = tokens.filter((e) => e.status !== 200);
	assert.equal(granted.length, 1, `token requests answered 200: ${granted.length}`);
	assert.equal(granted[0].seq, log[0].seq, 'the token request comes first');
	assert.ok(
		refused.length >= 1 && refused.every((e) => e.status === 400),
		`refused token requests (wrong password): ${refused.map((e) => e.status)}`,
	);
	const rest = log.filter((e) => e.kind === 'rest').length;
	report(
		`1 token request (200) for ${runs.length} runs in separate \`n8n execute\` processes (${rest} REST requests); the wrong-password run: ${refused.length} refused (400)`,
	);
});
