import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisClient } from '../../lib/engine/connection.js';
import { monitorNode } from './monitor.js';

/**
 * The harness's Redis, in one of three modes the global setup chose:
 *
 *   single   one redis-server (default; REDIS_URL / REDIS_PORT name another)
 *   cluster  a local 3-primary Redis Cluster (REDIS_CLUSTER=1): engines get an
 *            ioredis Cluster, REDIS_CLUSTER_NODES lists the nodes
 *   acl      one redis-server where engines log in as a user holding only the
 *            engine's ACL rule set (REDIS_ACL=1); REDIS_ADMIN_URL is the
 *            unrestricted login the harness inspects and cleans up with
 *
 * Tests reach Redis through this module: `engineRedis()` for what an engine
 * is given, `adminClient()` for a client that inspects or prepares keys.
 */
/** clusterNodes lists the cluster's nodes in cluster mode. */
export function clusterNodes(): { host: string; port: number }[] | undefined {
  const nodes = nonEmpty(process.env['REDIS_CLUSTER_NODES']);
  if (nodes === undefined) return undefined;
  return nodes.split(',').map((node) => {
    const [host = '127.0.0.1', port = '6379'] = node.split(':');
    return { host, port: Number(port) };
  });
}

/** redisUrl is the URL an engine connects with (single and acl modes). */
export function redisUrl(): string {
  const url = nonEmpty(process.env['REDIS_URL']);
  if (url === undefined) {
    throw new Error(
      clusterNodes() === undefined
        ? 'REDIS_URL is not set: run conformance tests through jest (global setup)'
        : 'REDIS_URL is not set in cluster mode: use engineRedis() / adminClient() of conformance/harness/redis.ts',
    );
  }
  return url;
}

/** Clients this module opened for engines, closed after each test file. */
const opened = new Set<RedisClient>();

/**
 * engineRedis is the `redis` option for an engine: the URL (the engine opens
 * and closes its own connection), or in cluster mode a new ioredis Cluster
 * the harness closes after the test file. `options` (a connection name, say)
 * apply to every connection.
 */
export function engineRedis(options?: RedisOptions): string | RedisOptions | Cluster {
  const nodes = clusterNodes();
  if (nodes === undefined) {
    if (options === undefined) return redisUrl();
    const url = new URL(redisUrl());
    return {
      host: url.hostname,
      port: Number(url.port || 6379),
      ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
      ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
      ...options,
    };
  }
  const cluster = new Cluster(nodes, options === undefined ? {} : { redisOptions: options });
  cluster.on('error', () => {}); // failures reach the test through the command
  opened.add(cluster);
  return cluster;
}

/** childTarget is the harness's Redis as one argument for a worker process (harness/connect.js reads it). */
export function childTarget(): string {
  const nodes = clusterNodes();
  if (nodes === undefined) return redisUrl();
  return `cluster:${nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;
}

/** engineClient is a client for an engine, logged in as engines are (the caller closes it). */
export function engineClient(): RedisClient {
  const nodes = clusterNodes();
  return nodes === undefined ? new Redis(redisUrl()) : new Cluster(nodes);
}

/** adminClient is an unrestricted client of the harness's Redis (a Cluster in cluster mode); the caller closes it. */
export function adminClient(): RedisClient {
  const nodes = clusterNodes();
  if (nodes !== undefined) return new Cluster(nodes);
  return new Redis(nonEmpty(process.env['REDIS_ADMIN_URL']) ?? redisUrl());
}

/** adminUrl is the unrestricted URL of the harness's server (single and acl modes). */
export function adminUrl(): string {
  return nonEmpty(process.env['REDIS_ADMIN_URL']) ?? redisUrl();
}

/**
 * subscribeQueue listens on one of a queue's channels the way the engine
 * publishes on it: SSUBSCRIBE through a Cluster with sharded subscribers in
 * cluster mode, SUBSCRIBE otherwise, with the channels in `also` (in the
 * same command; only `channel`'s messages are passed on). It resolves once
 * subscribed.
 */
export async function subscribeQueue(
  channel: string,
  onMessage: (message: string) => void,
  also: string[] = [],
): Promise<{ stop(): Promise<void> }> {
  const nodes = clusterNodes();
  if (nodes === undefined) {
    const subscriber = new Redis(adminUrl());
    subscriber.on('message', (from: string, message: string) => {
      if (from === channel) onMessage(message);
    });
    await subscriber.subscribe(channel, ...also);
    return {
      stop: async () => {
        await subscriber.quit();
      },
    };
  }
  const subscriber = new Cluster(nodes, { shardedSubscribers: true });
  subscriber.on('smessage', (from: string, message: string) => {
    if (from === channel) onMessage(message);
  });
  await subscriber.ssubscribe(channel, ...also);
  return {
    stop: async () => {
      await subscriber.quit();
    },
  };
}

/** publishQueue publishes on a queue's channel as the engine does (SPUBLISH in cluster mode). */
export async function publishQueue(
  redis: RedisClient,
  channel: string,
  message: string,
): Promise<void> {
  if (redis instanceof Cluster) await redis.spublish(channel, message);
  else await redis.publish(channel, message);
}

/** closeEngineClients closes the clients engineRedis opened (after-env.ts, after each file). */
export async function closeEngineClients(): Promise<void> {
  const clients = [...opened];
  opened.clear();
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
}

/** primaries are the clients to ask for something of every node: each primary of a cluster. */
export function primaries(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/**
 * scanKeys lists the keys matching a prefix: on a cluster, on every primary
 * (a queue's keys are all on one of them).
 */
export async function scanKeys(redis: RedisClient, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[?*[\]\\]/g, '\\$&')}:*`;
  const keys: string[] = [];
  for (const node of primaries(redis)) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * monitorQueue runs MONITOR where a queue's commands go (every primary of a
 * cluster) and calls `onCommand` with each command's arguments; stop() ends
 * it once every command sent before it has been handed on.
 */
export async function monitorQueue(
  redis: RedisClient,
  onCommand: (args: string[]) => void,
): Promise<{ stop(): Promise<void> }> {
  const nodes = primaries(redis);
  const monitors = await Promise.all(
    nodes.map(({ options }) =>
      monitorNode(
        {
          host: options.host ?? '127.0.0.1',
          port: options.port ?? 6379,
          username: options.username || undefined, // ioredis keeps null or '' for none
          password: options.password || undefined,
        },
        onCommand,
      ),
    ),
  );
  return {
    stop: async () => {
      await Promise.all(
        monitors.map((monitor, index) =>
          monitor.stop((marker) => (nodes[index] as Redis).echo(marker)),
        ),
      );
    },
  };
}

/** channelSubscribers counts the connections subscribed to a queue's channel (sharded ones on a cluster). */
export async function channelSubscribers(redis: RedisClient, channel: string): Promise<number> {
  let count = 0;
  for (const node of primaries(redis)) {
    const subcommand = redis instanceof Cluster ? 'SHARDNUMSUB' : 'NUMSUB';
    const reply = (await node.call('PUBSUB', subcommand, channel)) as [string, number];
    count += Number(reply[1]);
  }
  return count;
}
