/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// `npm run emulator -- [--port 54321] [--job-ms 3000] [--token-lifetime 3600] [--max-rows 1000] [--latency-ms 0]`;
// started by launch.ts, it reports how to reach it over IPC instead and stops when its parent goes.
import { parseArgs as parseCommandLine } from 'node:util';

import { FREE_USER } from './accounts';
import { serviceAccess } from './control';
import { type Emulator, type EmulatorOptions, startEmulator } from './index';

const FLAGS: Record<string, keyof EmulatorOptions> = {
	port: 'port',
	'job-ms': 'jobDurationMs',
	'token-lifetime': 'tokenLifetimeSeconds',
	'max-rows': 'maxRows',
	'latency-ms': 'latencyMs',
};

/** The options (node:util's parseArgs), each a non-negative integer. */
export function parseArgs(argv: readonly string[]): EmulatorOptions {
	const options: Record<string, number> = { port: 54321 };
	const known = `known: ${Object.keys(FLAGS)
		.map((flag) => `--${flag}`)
		.join(', ')}`;
	let values: Record<string, string | undefined>;
	try {
		const spec = Object.fromEntries(
			Object.keys(FLAGS).map((f) => [f, { type: 'string' as const }]),
		);
		({ values } = parseCommandLine({ args: [...argv], options: spec }));
	} catch (error) {
		throw new Error(`${(error as Error).message} (${known})`, { cause: error });
	}
	for (const [flag, text] of Object.entries(values)) {
		const value = Number(text);
		if (!Number.isInteger(value) || value < 0 || !text)
			throw new Error(`--${flag} needs a non-negative integer`);
		options[FLAGS[flag]] = value;
	}
	return options as EmulatorOptions;
}

/** Starts the emulator, prints how to reach it, and stops it on SIGINT/SIGTERM. */
async function main(argv: readonly string[]): Promise<void> {
	const emulator = await startEmulator(parseArgs(argv));
	let stopping = false;
	const stop = (why: string) => {
		if (stopping) return;
		stopping = true;
		if (!process.send) console.log(`\n${why}: stopping the emulator`);
		emulator.close().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGTERM', () => stop('SIGTERM'));
	if (process.send) {
		// launch.ts's child: a terminal's Ctrl-C is the parent's, which stops it by disconnecting.
		process.on('SIGINT', () => {});
		process.on('disconnect', () => stop('disconnected'));
		process.send(serviceAccess(emulator.baseUrl, emulator.apiKey));
		return;
	}
	process.on('SIGINT', () => stop('SIGINT'));
	console.log(banner(emulator));
}

function banner(emulator: Emulator): string {
	return [
		'Website Export emulator running',
		`  base URL     ${emulator.baseUrl}`,
		`  API key      ${emulator.apiKey}`,
		`  demo login   ${emulator.demoUser.email} / ${emulator.demoUser.password} (Business plan)`,
		`  free login   ${FREE_USER.email} / ${FREE_USER.password} (Free plan: /rest/v1 refused)`,
		`  control API  ${emulator.baseUrl}/__emulator/ (health, reset, clock, rows/:table, settings, faults, log, users)`,
		'Ctrl+C to stop.',
	].join('\n');
}

if (require.main === module) {
	main(process.argv.slice(2)).catch((error: unknown) => {
		console.error((error as Error).message);
		process.exit(1);
	});
}
