// For conformance/redis/redis-server.spec.ts: starts an embedded redis-server,
// prints its pid, and waits to be killed.
import { startRedisServer } from '../../dist/testing/index.js';

const server = await startRedisServer({ env: {} });
process.stdout.write(`${server.pid}\n`);
setInterval(() => {}, 1_000);
