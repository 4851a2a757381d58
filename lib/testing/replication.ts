import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { RedisServer } from './redis-server.js';

/**
 * replicate makes `replica` a replica of `primary` and resolves once the
 * replica reports its link up. The primary is told to start a full sync at
 * once: Redis otherwise waits `repl-diskless-sync-delay` (5 s by default) for
 * more replicas, which a loaded machine turns into a timeout.
 */
export async function replicate(
  replica: RedisServer,
  primary: RedisServer,
  timeoutMs = 30_000,
): Promise<void> {
  const source = new Redis(primary.url);
  const admin = new Redis(replica.url);
  try {
    await source.config('SET', 'repl-diskless-sync-delay', '0');
    await admin.call('REPLICAOF', primary.host, String(primary.port));
    const deadline = performance.now() + timeoutMs;
    while (!/master_link_status:up/.test(await admin.info('replication'))) {
      if (performance.now() > deadline) {
        throw new Error(
          `${replica.url} did not finish syncing with ${primary.url} in ${timeoutMs} ms`,
        );
      }
      await sleep(20);
    }
  } finally {
    source.disconnect();
    admin.disconnect();
  }
}
