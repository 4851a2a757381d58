// The Redis of a chaos run: a redis-server of its own (never REDIS_URL's),
// optionally with AOF in a data directory that survives its crashes, and a
// crash: SIGKILL, then a new server on the same port and directory.
import { startRedisServer } from '../../../dist/testing/index.js';
import { now } from './log.js';

export async function startRedis({ config = {}, dir }, log) {
  let server = await startRedisServer({ env: {}, config, dir });
  const { host, port } = server;
  return {
    url: server.url,
    host,
    port,
    /** crash kills the server with SIGKILL and starts it again on its port and data (AOF). */
    async crash() {
      process.kill(server.pid, 'SIGKILL');
      log.write({ t: 'redis-kill', at: now() });
      await server.stop(); // reaps the killed process
      server = await startRedisServer({ env: {}, config, dir, port });
      log.write({ t: 'redis-up', at: now() });
    },
    stop: () => server.stop(),
  };
}
