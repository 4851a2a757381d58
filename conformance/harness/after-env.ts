// Per-file hooks for conformance tests.
import { afterAll, jest } from '@jest/globals';
import { closeEngineClients } from './redis.js';

// Real Redis and real child processes on a loaded 2-core machine: a generous
// default. (`testTimeout` in a Jest project entry is ignored; this is not.)
jest.setTimeout(30_000);

// The Cluster clients the harness gave engines (cluster mode) close with the file.
afterAll(closeEngineClients);
