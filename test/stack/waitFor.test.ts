/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// A probe of a file another process is writing (a pid, a port, a log) never takes what it caught
// half-written for a value: waitFor resolves to any answer but undefined or false, so Number('')
// (0) once stood for a pid (issue 41); readWhole and positiveInt (stack/n8n/process.ts) answer
// undefined until the value is whole.
import {
	appendFileSync,
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readLogFile } from '../../stack/n8n/logs';
import { positiveInt, readWhole, waitFor, wholeLines, writeWhole } from '../../stack/n8n/process';

const folder = () => mkdtempSync(join(tmpdir(), 'wait-for-'));
const quick = { timeoutMs: 5000, intervalMs: 1, failure: () => new Error('no value') };

/**
 * A writer that takes one more step each time it is called, as `echo 12345 > file` would be seen
 * by a reader that comes at the worst moments: no file, the file created empty, part of the pid.
 */
function slowWriter(file: string) {
	const steps = [
		() => undefined,
		() => writeFileSync(file, ''),
		() => appendFileSync(file, '12'),
		() => appendFileSync(file, '345\n'),
	];
	let next = 0;
	return () => steps[Math.min(next++, steps.length - 1)]();
}

it('a pid probe of a file being written answers undefined, not 0, 12 or NaN, until the pid is whole', async () => {
	const file = join(folder(), 'pid');
	const writeStep = slowWriter(file);
	const seen: unknown[] = [];
	const pid = await waitFor(() => {
		writeStep();
		const answer = readWhole(file, positiveInt);
		seen.push(answer);
		return answer;
	}, quick);
	expect(pid).toBe(12345);
	expect(seen).toEqual([undefined, undefined, undefined, 12345]);
});

it("the probe issue 41 replaced resolves to pid 0 on the file's first step", async () => {
	const file = join(folder(), 'pid');
	const writeStep = slowWriter(file);
	writeStep();
	const old = () => {
		writeStep();
		return existsSync(file) && Number(readFileSync(file, 'utf8').trim());
	};
	expect(await waitFor(old, quick)).toBe(0);
});

it('positiveInt takes a positive whole number alone, and nothing else', () => {
	expect(positiveInt('4242\n')).toBe(4242);
	expect(positiveInt(' 7 ')).toBe(7);
	for (const text of ['', '\n', '0\n', '-3', '1.5', '12abc', 'NaN', '1e3', '99999999999999999999'])
		expect(positiveInt(text)).toBeUndefined();
});

it('wholeLines keeps the lines ended by a newline, and readWhole a missing or unended file as undefined', () => {
	expect(wholeLines('')).toBe('');
	expect(wholeLines('12')).toBe('');
	expect(wholeLines('a\nb')).toBe('a\n');
	expect(wholeLines('a\nb\n')).toBe('a\nb\n');
	const dir = folder();
	const parse = jest.fn((text: string) => text);
	expect(readWhole(join(dir, 'missing'), parse)).toBeUndefined();
	writeFileSync(join(dir, 'unended'), '{"level":"info"');
	expect(readWhole(join(dir, 'unended'), parse)).toBeUndefined();
	expect(parse).not.toHaveBeenCalled();
});

it("a log read while n8n writes a line has the whole lines only, not the cut line as 'raw'", () => {
	const file = join(folder(), 'n8n.log');
	writeFileSync(file, '{"level":"info","message":"Worker started execution 123"}\n');
	appendFileSync(file, '{"level":"info","message":"Worker started execution 4');
	expect(readLogFile(file)).toEqual([{ level: 'info', message: 'Worker started execution 123' }]);
	appendFileSync(file, '56"}\n');
	expect(readLogFile(file).map((line) => line.message)).toEqual([
		'Worker started execution 123',
		'Worker started execution 456',
	]);
	expect(readLogFile(join(folder(), 'none.log'))).toEqual([]);
});

it('writeWhole replaces a file in one step and leaves nothing beside it', () => {
	const dir = folder();
	const file = join(dir, 'state.json');
	writeWhole(file, '{"a":1}');
	writeWhole(file, '{"a":2}');
	expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ a: 2 });
	expect(readdirSync(dir)).toEqual(['state.json']);
});
