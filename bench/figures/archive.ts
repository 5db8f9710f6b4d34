/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * Memory of Download Archive: the node in a fresh worker process, the emulator in another, so
 * that only the node's own memory is measured.
 */
import { join } from 'path';

import type { ArchiveResult } from '../archive-worker';
import { RUN_TYPESCRIPT, startServiceProcess } from '../../stack/service/launch';
import { mib, seconds } from '../stats';
import { judged, type Row } from '../table';
import { loadExeca } from '../../stack/execa';

const LIMIT = 64 * 1024 * 1024;

export async function archiveMemory(archiveBytes: number): Promise<Row> {
	const emulator = await startServiceProcess();
	try {
		const [job] = await emulator.insert('jobs', [
			{ url: 'https://example.com', email: 'bench@example.com', status: 'finished' },
		]);
		const [download] = await emulator.insert('downloads', [{ job_id: job.id }]);
		const service = {
			baseUrl: emulator.baseUrl,
			apiKey: emulator.apiKey,
			demoUser: emulator.demoUser,
		};
		// execa is an ES module: imported (stack/service/launch.ts says why).
		const { execaNode } = await loadExeca();
		const worker = execaNode(
			join(__dirname, '..', 'archive-worker.ts'),
			[JSON.stringify({ service, downloadId: download.id, archiveBytes })],
			{
				nodeOptions: ['--expose-gc', ...RUN_TYPESCRIPT],
				ipc: true,
				stdout: 'inherit',
				stderr: 'inherit',
			},
		);
		const result = (await worker.getOneMessage()) as unknown as ArchiveResult;
		await worker;
		const growth = result.peakBytes - result.baselineBytes;
		const size = archiveBytes >= 1024 ** 3 ? `${archiveBytes / 1024 ** 3} GiB` : mib(archiveBytes);
		return judged(
			{
				figure: `downloadArchive of a ${size} archive: peak RSS growth of the node's process`,
				measured: `${mib(growth)} (${seconds(result.seconds)}, ${result.samples} samples)`,
				target: '≤ 64 MiB',
			},
			growth <= LIMIT,
			'the archive is buffered somewhere on its way to the binary data store',
		);
	} finally {
		await emulator.stop();
	}
}
