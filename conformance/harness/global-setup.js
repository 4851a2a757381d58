// Starts the Redis of the conformance run and hands it to the test workers
// through the environment (conformance/harness/redis.ts reads it):
//
//   single   one redis-server (or REDIS_URL / REDIS_PORT): REDIS_URL
//   cluster  REDIS_CLUSTER=1: a local 3-primary Redis Cluster (or the nodes
//            REDIS_CLUSTER_NODES names): REDIS_CLUSTER_NODES, no REDIS_URL
//   acl      REDIS_ACL=1: one redis-server and a user holding only the
//            engine's ACL rules: REDIS_URL logs in as that user, REDIS_ADMIN_URL
//            as the default user
//
// Jest loads this file outside its module system, so it imports the built
// launchers; `npm test` builds before it runs Jest.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { harnessMode } from './modes.js';

const built = new URL('../../dist/testing/index.js', import.meta.url);

export default async function globalSetup() {
  if (!existsSync(built)) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it for you)');
  }
  const { startRedisServer, startRedisCluster } = await import(built.href);
  const mode = harnessMode();
  if (mode === 'cluster') {
    delete process.env.REDIS_URL;
    if (process.env.REDIS_CLUSTER_NODES) return;
    const cluster = await startRedisCluster({ primaries: 3 });
    globalThis.rescueRedisServer = cluster;
    process.env.REDIS_CLUSTER_NODES = cluster.nodes
      .map(({ host, port }) => `${host}:${port}`)
      .join(',');
    return;
  }
  const server = await startRedisServer();
  globalThis.rescueRedisServer = server;
  process.env.REDIS_URL = server.url;
  if (mode === 'acl') {
    const { Redis } = await import('ioredis');
    const { aclRules } = await import(new URL('../../dist/engine/acl.js', import.meta.url).href);
    const admin = new Redis(server.url);
    const user = `rescue-${randomUUID().slice(0, 8)}`;
    const password = randomUUID();
    try {
      // every queue (rescue.io:*), with the commands and channels the engine uses
      await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, ...aclRules());
    } finally {
      await admin.quit();
    }
    const url = new URL(server.url);
    process.env.REDIS_ADMIN_URL = url.toString();
    url.username = user;
    url.password = password;
    process.env.REDIS_URL = url.toString();
    process.env.REDIS_ACL_USER = user;
  }
}
