// Why this exists: the emulators of one test file share databases and PostgREST processes (see
// stack/service/backends.ts); when the file is done this closes every emulator it started (one whose
// start outlived a timed-out setup too, once it is up) and drops the backends, so no process
// outlives the file and keeps the worker from ending.
import { drainBackends, enableBackendReuse } from '../../stack/service/backends';
import { closeEmulators } from '../../stack/service/index';

enableBackendReuse();
afterAll(async () => {
	await closeEmulators();
	await drainBackends();
}, 180_000);
