// Per-file hooks for conformance tests.
import { jest } from '@jest/globals';

// Real Redis and real child processes on a loaded 2-core machine: a generous
// default. (`testTimeout` in a Jest project entry is ignored; this is not.)
jest.setTimeout(30_000);
