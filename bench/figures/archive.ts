/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * Memory of Download Archive: this file, run as a fresh worker process, runs Download → Download
 * Archive once and reports its own peak RSS growth (fresh, so that what earlier figures left on
 * the heap does not count), while the emulator runs in a process of its own: only the node's
 * own memory is measured.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import '../env';

import { loadExeca } from '../../stack/execa';
import { httpRequest } from '../../stack/n8n/http';
import { RUN_TYPESCRIPT } from '../../stack/service/launch';
import { harnessFor, runNode, type Service } from '../nodes';
import { childService } from '../services';
import { collectGarbage, mib, seconds, timed } from '../stats';
import { judged, type Row } from '../table';

const LIMIT = 64 * 1024 * 1024;

/** What the worker reports (one IPC message). */
interface ArchiveResult {
	/** The peak RSS while the archive downloads, over the RSS just before. */
	growthBytes: number;
	seconds: number;
	samples: number;
}

export async function archiveMemory(archiveBytes: number): Promise<Row> {
	const emulator = await childService();
	const [job] = await emulator.insert('jobs', [
		{ url: 'https://example.com', email: 'bench@example.com', status: 'finished' },
	]);
	const [download] = await emulator.insert('downloads', [{ job_id: job.id }]);
	await emulator.patchSettings({ archiveBytes: 64 * 1024 }); // the worker's warm-up
	const { baseUrl, apiKey, demoUser } = emulator;
	const input = { service: { baseUrl, apiKey, demoUser }, downloadId: download.id, archiveBytes };
	// execa is an ES module: imported (stack/service/launch.ts says why).
	const { execaNode } = await loadExeca();
	const worker = execaNode(__filename, [JSON.stringify(input)], {
		nodeOptions: ['--expose-gc', ...RUN_TYPESCRIPT],
		ipc: true,
		stdout: 'inherit',
		stderr: 'inherit',
	});
	const result = (await worker.getOneMessage()) as unknown as ArchiveResult;
	await worker;
	const size = archiveBytes >= 1024 ** 3 ? `${archiveBytes / 1024 ** 3} GiB` : mib(archiveBytes);
	return judged(
		{
			figure: `downloadArchive of a ${size} archive: peak RSS growth of the node's process`,
			measured: `${mib(result.growthBytes)} (${seconds(result.seconds)}, ${result.samples} samples)`,
			target: '≤ 64 MiB',
		},
		result.growthBytes <= LIMIT,
		'the archive is buffered somewhere on its way to the binary data store',
	);
}

/** The worker: input (argv[2], JSON) the service, the download's ID and the archive size. */
async function worker(): Promise<void> {
	const { service, downloadId, archiveBytes } = JSON.parse(process.argv[2]) as {
		service: Service;
		downloadId: number;
		archiveBytes: number;
	};
	const harness = harnessFor(service);
	const parameters = {
		resource: 'download',
		operation: 'downloadArchive',
		downloadBy: 'id',
		downloadId: String(downloadId),
		binaryPropertyName: 'data',
	};
	// Warm-up with a small archive (the parent's): the login, every module and code path loaded.
	await runNode(harness, parameters);
	const settings = await httpRequest('PATCH', `${service.baseUrl}/__emulator/settings`, {
		body: { archiveBytes },
	});
	if (settings.status !== 200) throw new Error(`emulator settings: ${settings.status}`);
	collectGarbage();
	await sleep(100);
	collectGarbage();

	const baselineBytes = process.memoryUsage.rss();
	let peakBytes = baselineBytes;
	let samples = 0;
	const sample = () => {
		peakBytes = Math.max(peakBytes, process.memoryUsage.rss());
		samples++;
	};
	const sampler = setInterval(sample, 10);
	const run = await timed(() => runNode(harness, parameters));
	clearInterval(sampler);
	sample();
	const fileSize = Number(run.value[0]?.json.fileSize);
	if (!(fileSize > archiveBytes))
		throw new Error(
			`the archive stored has ${fileSize} bytes, less than its ${archiveBytes}-byte payload`,
		);
	const growthBytes = peakBytes - baselineBytes;
	const result: ArchiveResult = { growthBytes, seconds: run.seconds, samples };
	// Exit once the message is out: n8n's keep-alive sockets would hold the process open.
	process.send?.(result, () => process.exit(0));
}

if (require.main === module)
	worker().catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
