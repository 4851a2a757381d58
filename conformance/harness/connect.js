// For the worker processes the conformance tests start: the harness's Redis
// as one command-line argument (childTarget() of redis.ts), either a URL or
// `cluster:<host:port>,<host:port>,...` in cluster mode.
import { Cluster, Redis } from 'ioredis';

function clusterNodes(target) {
  if (!target.startsWith('cluster:')) return undefined;
  return target
    .slice('cluster:'.length)
    .split(',')
    .map((node) => {
      const [host, port] = node.split(':');
      return { host, port: Number(port) };
    });
}

/** engineRedis is the engine's `redis` option for a target: the URL, or a Cluster. */
export function engineRedis(target) {
  const nodes = clusterNodes(target);
  return nodes === undefined ? target : new Cluster(nodes);
}

/** client is a client of the target (the caller closes it). */
export function client(target) {
  const nodes = clusterNodes(target);
  return nodes === undefined ? new Redis(target) : new Cluster(nodes);
}
