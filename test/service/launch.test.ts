/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// The service in a process of its own (launch.ts): it reports the port it took, is driven over
// its control API, and never outlives the process that started it.
import { join } from 'node:path';

import { isAlive as alive, positiveInt, waitFor, wholeLines } from '../../stack/n8n/process';
import { RUN_TYPESCRIPT, startServiceProcess } from '../../stack/service/launch';

async function gone(pid: number, withinMs: number): Promise<boolean> {
	return waitFor(() => !alive(pid), {
		timeoutMs: withinMs,
		intervalMs: 100,
		failure: () => new Error(`process ${pid} still alive after ${withinMs} ms`),
	}).catch(() => false);
}

it('starts on a port of its own, answers its control API, and stops', async () => {
	const service = await startServiceProcess({ jobMs: 500 });
	try {
		expect(service.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		const [job] = await service.insert('jobs', [
			{ url: 'https://a.example.com', email: 'a@example.com' },
		]);
		expect(await service.rows('jobs')).toEqual([expect.objectContaining({ id: job.id })]);
		const login = await fetch(`${service.baseUrl}/auth/v1/token?grant_type=password`, {
			method: 'POST',
			headers: { apikey: service.apiKey, 'content-type': 'application/json' },
			body: JSON.stringify(service.demoUser),
		});
		expect(login.status).toBe(200);
		expect((await service.log()).map((entry) => entry.kind)).toEqual(['token']);
	} finally {
		await service.stop();
	}
	expect(await gone(service.pid!, 5000)).toBe(true);
});

it('stops when the process that started it ends, even by SIGKILL', async () => {
	const { execa } = await import('execa');
	const launch = join(__dirname, '..', '..', 'stack', 'service', 'launch.ts');
	const script = `require(${JSON.stringify(launch)}).startServiceProcess().then((s) => { console.log(s.pid); setInterval(() => {}, 1000); })`;
	const parent = execa(process.execPath, [...RUN_TYPESCRIPT, '-e', script], { reject: false });
	// The pid once its line is whole: a first chunk of output may hold only part of it.
	let printed = '';
	parent.stdout.on('data', (chunk: Buffer) => (printed += String(chunk)));
	const pid = await waitFor(() => positiveInt(wholeLines(printed)), {
		timeoutMs: 20_000,
		intervalMs: 50,
		failure: () => new Error(`no pid printed: ${JSON.stringify(printed)}`),
	});
	expect(alive(pid)).toBe(true);
	parent.kill('SIGKILL');
	await parent;
	expect(await gone(pid, 10_000)).toBe(true);
});
