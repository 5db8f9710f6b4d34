// Why this exists: the emulators of one test file share databases and PostgREST processes (see
// stack/service/backends.ts); this drops them when the file is done, so no process outlives it.
import { drainBackends, enableBackendReuse } from '../../stack/service/backends';

enableBackendReuse();
afterAll(() => drainBackends());
