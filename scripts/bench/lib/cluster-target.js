// A Redis to connect to, as one string a worker process takes on its command
// line: a redis:// URL, or `cluster:<host:port>,<host:port>,...` for a Redis
// Cluster (the nodes to start from).
import { Cluster } from 'ioredis';

/** clusterTarget names a cluster by its nodes (`{ host, port }`, as startRedisCluster lists them). */
export const clusterTarget = (nodes) =>
  `cluster:${nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;

/**
 * engineRedis is an engine's `redis` option for a target: the URL itself (the
 * engine opens and closes its connection), or a new Cluster, which the engine
 * leaves open: `release` closes it after the engine.
 */
export function engineRedis(target) {
  if (!target.startsWith('cluster:')) return { redis: target, release: async () => {} };
  const nodes = target
    .slice('cluster:'.length)
    .split(',')
    .map((node) => {
      const [host, port] = node.split(':');
      return { host, port: Number(port) };
    });
  const cluster = new Cluster(nodes);
  cluster.on('error', (error) => console.error(error));
  return {
    redis: cluster,
    async release() {
      await cluster.quit();
    },
  };
}
