/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * A fresh process that runs Download → Download Archive once and reports its own peak RSS
 * growth: fresh, so that what earlier figures left on the heap does not count, and without
 * the emulator, which runs in a process of its own. Input (argv[2], JSON): the service, the
 * download's ID and the archive size; output: one IPC message.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import './env';

import { harnessFor, runNode, type Service } from './nodes';
import { collectGarbage, timed } from './stats';

export interface ArchiveResult {
	baselineBytes: number;
	peakBytes: number;
	fileSize: number;
	seconds: number;
	samples: number;
}

async function settings(service: Service, archiveBytes: number): Promise<void> {
	const response = await fetch(`${service.baseUrl}/__emulator/settings`, {
		method: 'PATCH',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ archiveBytes }),
	});
	if (!response.ok) throw new Error(`emulator settings: ${response.status}`);
}

async function main(): Promise<void> {
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

	// Warm-up with a small archive: the login, every module and code path loaded before measuring.
	await settings(service, 64 * 1024);
	await runNode(harness, parameters);
	await settings(service, archiveBytes);
	collectGarbage();
	await sleep(100);
	collectGarbage();

	const baselineBytes = process.memoryUsage.rss();
	let peakBytes = baselineBytes;
	let samples = 0;
	const sampler = setInterval(() => {
		peakBytes = Math.max(peakBytes, process.memoryUsage.rss());
		samples++;
	}, 10);
	let run;
	try {
		run = await timed(() => runNode(harness, parameters));
	} finally {
		clearInterval(sampler);
	}
	peakBytes = Math.max(peakBytes, process.memoryUsage.rss());
	const [item] = run.value;
	const fileSize = Number(item?.json.fileSize);
	if (!(fileSize > archiveBytes))
		throw new Error(
			`the archive stored has ${fileSize} bytes, less than its ${archiveBytes}-byte payload`,
		);
	const result: ArchiveResult = {
		baselineBytes,
		peakBytes,
		fileSize,
		seconds: run.seconds,
		samples,
	};
	// Exit once the message is out: n8n's keep-alive sockets would hold the process open.
	process.send?.(result, () => process.exit(0));
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
