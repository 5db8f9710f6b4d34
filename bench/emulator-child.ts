/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
/**
 * The emulator in a process of its own, for timing and memory figures: on a separate core it
 * answers while the node works, as a real service does, and neither its CPU time nor its
 * memory counts against the node. Options come as JSON in argv[2]; the parent drives it
 * through the HTTP control API (/__emulator/*) and stops it by disconnecting.
 */
import { startEmulator, type EmulatorOptions } from '../stack/service';

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as EmulatorOptions;
	const emulator = await startEmulator({ ...options, port: 0 });
	process.on('disconnect', () => {
		void emulator.close().finally(() => process.exit(0));
	});
	process.send?.({
		baseUrl: emulator.baseUrl,
		apiKey: emulator.apiKey,
		demoUser: emulator.demoUser,
	});
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
