#!/usr/bin/env node
/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * `npm start`: a local n8n editor with this node pack, a ready credential and the example
 * workflows, talking to the Website Export emulator instead of the paid service.
 *
 *   npm start                 http://localhost:5678 (n8n) + http://127.0.0.1:54321 (emulator)
 *   npm start -- --reimport   save the example workflows and the credential again (replaces edits)
 *   npm start -- --fresh      delete the folder first: new database, owner, examples
 *   npm start -- --queue      queue mode: Postgres, Redis, n8n main + 2 workers (watch executions spread)
 *   npm start -- --port 5680 --emulator-port 54322 --folder /tmp/other   beside another n8n
 *
 * The stack itself is stack/local-stack.ts; this command prints its banner and stops it on Ctrl-C,
 * a closed terminal or a SIGTERM (npm passes SIGINT and SIGTERM on to it; package.json's `exec`
 * makes it the process npm waits for, and a closed terminal hangs its whole foreground group up).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { parseArgs as parseCommandLine } from 'node:util';

import { StartError } from './demo-data';
import {
	DEFAULTS,
	emulatorLog,
	rel,
	seconds,
	startStack,
	stopStack,
	type Stack,
	type StackParts,
} from './local-stack';

/** The flags (node:util's parseArgs). */
function parseArgs(argv: string[]) {
	const flag = { type: 'boolean', default: false } as const;
	const value = { type: 'string' } as const;
	const options = {
		...{ fresh: flag, reimport: flag, queue: flag, help: { ...flag, short: 'h' } },
		...{ port: value, 'emulator-port': value, folder: value },
	} as const;
	try {
		const { values } = parseCommandLine({ args: argv, options });
		const port = (text: string | undefined, fallback: number) => {
			if (text === undefined) return fallback;
			if (/^\d+$/.test(text) && Number(text) < 65536) return Number(text);
			throw new StartError(`Not a port number: ${text}`);
		};
		return {
			...values,
			n8nPort: port(values.port, DEFAULTS.n8nPort),
			emulatorPort: port(values['emulator-port'], DEFAULTS.emulatorPort),
			userFolder: values.folder ?? DEFAULTS.userFolder,
		};
	} catch (error) {
		if (error instanceof StartError) throw error;
		throw new StartError(`${(error as Error).message} (npm start -- --help lists the options)`);
	}
}

/** The usage lines at the top of this file. */
function printHelp() {
	const lines = fs.readFileSync(__filename, 'utf8').split('\n').slice(3, 12);
	console.log(lines.map((l) => l.replace(/^ \* ?/, '')).join('\n'));
}

/** Ctrl-C, SIGTERM, SIGHUP stop the stack; a second press a moment later forces the stop. */
function stopOnSignals(
	shutdown: (reason: string, code: number) => Promise<void>,
	stopping: () => boolean,
) {
	let firstSignalAt = 0;
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]) {
		process.on(sig, () => {
			// `npm start` forwards the terminal's Ctrl-C, so one press can arrive twice: only a
			// second press a moment later forces the stop.
			if (stopping() && Date.now() - firstSignalAt > 1000) {
				console.log('Forced stop.');
				process.exit(130); // the exit handlers SIGKILL what is left
			}
			if (!stopping()) firstSignalAt = Date.now();
			shutdown(sig, 0);
		});
	}
}

/** If either process dies on its own, say so and stop the other one. */
function stopWhenEitherDies(
	stack: Stack,
	shutdown: (reason: string, code: number) => Promise<void>,
) {
	stack.emulator.exited.then(() =>
		shutdown(`The emulator stopped unexpectedly (see ${rel(emulatorLog(stack.userFolder))})`, 1),
	);
	stack.n8n.exited.then(({ code, signal }) =>
		shutdown(
			`n8n stopped unexpectedly (code ${code}, signal ${signal}; see ${rel(stack.n8n.logFile)})`,
			1,
		),
	);
}

async function main(argv: string[]) {
	const flags = parseArgs(argv);
	if (flags.help) return printHelp();
	const started = Date.now();
	let stack: Stack;
	const parts: StackParts = {};
	let stopping: Promise<void> | null = null;

	const shutdown = (reason: string, code: number) => {
		if (stopping) return stopping;
		const t = Date.now();
		console.log(`\n${reason}: stopping n8n and the emulator ...`);
		stopping = stopStack(parts).then(
			() => {
				console.log(`Stopped (${seconds(Date.now() - t)}).`);
				process.exit(code);
			},
			(e) => {
				console.error(e);
				process.exit(1);
			},
		);
		return stopping;
	};
	stopOnSignals(shutdown, () => stopping !== null);
	// A closed terminal fails every later write (EIO): the stop goes on without it.
	for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

	const { userFolder, n8nPort, emulatorPort } = flags;
	if (flags.fresh && fs.existsSync(userFolder)) {
		console.log(`--fresh: deleting ${rel(userFolder)}`);
		await fsp.rm(userFolder, { recursive: true, force: true });
	}
	try {
		stack = await startStack({
			...{ userFolder, n8nPort, emulatorPort },
			reimport: flags.reimport,
			queue: flags.queue,
			parts,
		});
	} catch (e) {
		if (stopping) return; // interrupted while starting: shutdown() exits
		console.error(`\nnpm start failed: ${e instanceof StartError ? e.message : e.stack || e}`);
		process.exit(1);
	}
	if (stopping) return;
	console.log(`Ready in ${seconds(Date.now() - started)}.\n`);
	console.log(stack.banner());
	stopWhenEitherDies(stack, shutdown);
}

if (require.main === module) {
	main(process.argv.slice(2)).catch((e) => {
		console.error(e instanceof StartError ? e.message : e.stack || e);
		process.exit(1);
	});
}
