import { WebsiteExportClient, type ClientOptions } from '../nodes/shared/transport';
import { startEmulator, type Emulator, type EmulatorOptions } from '../stack/service';
import { NodeHarness, probeNode } from './harness';

export { probeNode } from './harness';

export interface Service {
	emulator: Emulator;
	harness: NodeHarness;
}

/** An emulator on a free port and a harness logged in as its demo Business-plan account. */
export async function startService(options: EmulatorOptions = {}): Promise<Service> {
	const emulator = await startEmulator({ port: 0, ...options });
	const harness = new NodeHarness({
		baseUrl: emulator.baseUrl,
		apiKey: emulator.apiKey,
		...emulator.demoUser,
	});
	return { emulator, harness };
}

/**
 * A fresh service for each test of the calling block, closed after it: its fields are read at test
 * time (`service.emulator`), so the block uses it as if it held one.
 */
export function serviceEachTest(options: EmulatorOptions = {}): Service {
	let current: Service | undefined;
	beforeEach(async () => {
		current = await startService(options);
	});
	afterEach(async () => {
		await current?.emulator.close();
		current = undefined;
	});
	const started = () => {
		if (!current) throw new Error('The service starts in beforeEach: use it inside a test');
		return current;
	};
	return {
		get emulator() {
			return started().emulator;
		},
		get harness() {
			return started().harness;
		},
	};
}

/** Requests of the emulator's log by kind, since `since` (a log length taken earlier). */
export function requestsSince(emulator: Emulator, since = 0) {
	const entries = emulator.log.slice(since);
	return {
		token: entries.filter((e) => e.kind === 'token').length,
		rest: entries.filter((e) => e.kind === 'rest').length,
		entries,
	};
}

/** Runs `work` with a real client inside n8n's ExecuteContext and returns what it produced. */
export async function withClient<T>(
	service: Service,
	work: (client: WebsiteExportClient) => Promise<T>,
	options: ClientOptions = {},
): Promise<T> {
	let result: T | undefined;
	await service.harness.execute(
		probeNode(async function () {
			result = await work(await WebsiteExportClient.connect(this, options));
			return [[]];
		}),
		{ parameters: {} },
	);
	return result as T;
}
