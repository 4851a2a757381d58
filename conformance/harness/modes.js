// The conformance files that do not run in a harness mode, and why. Every
// other file runs in every mode (files that start redis-servers of their own
// run those as they always do).
//
//   npm run test:cluster   REDIS_CLUSTER=1: engines on a local 3-primary Redis Cluster
//   npm run test:acl       REDIS_ACL=1: engines log in as a user with only the engine's ACL rules

/** @type {Record<'cluster' | 'acl', Record<string, string>>} */
export const excluded = {
  cluster: {
    'redis/cluster-failover.spec.ts': 'starts a Redis Cluster of its own: runs in the default mode',
    'redis/worker-cluster-exit.spec.ts':
      'starts a Redis Cluster of its own: runs in the default mode',
    'redis/tls.spec.ts': 'starts a TLS redis-server of its own: runs in the default mode',
    'engine/engine-options.spec.ts':
      'connection options of one server: REDIS_URL and redis:// defaults, a logical database (SELECT is refused on a cluster), listen() of a URL',
    'redis/idempotent-writes.spec.ts':
      'a TCP proxy in front of one server drops replies; a Cluster client learns the real node addresses from CLUSTER SLOTS and goes around it',
    'observability/metrics-replay.spec.ts':
      'a TCP proxy in front of one server drops replies (as idempotent-writes.spec.ts)',
    'redis/redis-outage.spec.ts':
      'a TCP proxy in front of one server cuts the network (as idempotent-writes.spec.ts)',
    'redis/worker-stop-outage.spec.ts':
      'a TCP proxy in front of one server cuts the network (as idempotent-writes.spec.ts)',
  },
  acl: {
    'redis/cluster-failover.spec.ts': 'starts a Redis Cluster of its own: runs in the default mode',
    'redis/worker-cluster-exit.spec.ts':
      'starts a Redis Cluster of its own: runs in the default mode',
    'redis/tls.spec.ts': 'starts a TLS redis-server of its own: runs in the default mode',
  },
};

/** harnessMode is the mode the environment asks for. */
export function harnessMode(env = process.env) {
  if (env.REDIS_CLUSTER === '1') return 'cluster';
  if (env.REDIS_ACL === '1') return 'acl';
  return 'single';
}
