import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server.js';

const run = promisify(execFile);

/** RedisCluster is a local Redis Cluster this module started: its nodes and how to stop them. */
export interface RedisCluster {
  /** Every node, primaries first, as `{ host, port }` (what ioredis `Cluster` takes). */
  readonly nodes: { host: string; port: number }[];
  /** The servers, in the order of `nodes`. */
  readonly servers: readonly RedisServer[];
  /** Stops every node this module started, by pid. */
  stop(): Promise<void>;
}

export interface StartRedisClusterOptions {
  /** How many primaries share the 16,384 slots; default 3 (the least `redis-cli --cluster create` takes). */
  primaries?: number;
  /** Replicas per primary; default 0. */
  replicas?: number;
  /**
   * `cluster-node-timeout` in ms: how long a node may be unreachable before a
   * replica takes over; default 5 000 (Redis's own default is 15 000). Much
   * shorter, and a busy machine sees failovers nobody asked for.
   */
  nodeTimeoutMs?: number;
  /** More configuration for every node, as for startRedisServer. */
  config?: Readonly<Record<string, string>>;
  /** How long to wait for `cluster_state:ok` everywhere, in ms; default 30 000. */
  readyTimeoutMs?: number;
}

/**
 * startRedisCluster starts a local Redis Cluster without docker: one
 * `redis-server --cluster-enabled yes` per node on free loopback ports (each in
 * a temporary directory of its own, with its own cluster config file), joined by
 * `redis-cli --cluster create … --cluster-yes`, and waits until every node says
 * `cluster_state:ok`, knows every other node, and every replica has synced with
 * its primary. Each node has the watchdog of startRedisServer, so an
 * interrupted run leaves nothing behind.
 */
export async function startRedisCluster(
  options: StartRedisClusterOptions = {},
): Promise<RedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicas = options.replicas ?? 0;
  const count = primaries * (1 + replicas);
  const config = {
    'cluster-enabled': 'yes',
    'cluster-config-file': 'nodes.conf',
    'cluster-node-timeout': String(options.nodeTimeoutMs ?? 5_000),
    ...options.config,
  };
  const servers: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let index = 0; index < count; index++) {
      servers.push(await startRedisServer({ env: {}, config }));
    }
    const addresses = servers.map((server) => `${server.host}:${server.port}`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    await waitForCluster(servers, replicas, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes: servers.map(({ host, port }) => ({ host, port })),
    servers,
    stop,
  };
}

/** waitForCluster polls every node until the cluster is whole, or throws after timeoutMs. */
async function waitForCluster(
  servers: readonly RedisServer[],
  replicas: number,
  timeoutMs: number,
): Promise<void> {
  const clients = servers.map((server) => new Redis(server.url, { lazyConnect: true }));
  const deadline = performance.now() + timeoutMs;
  let last = '';
  try {
    for (;;) {
      const states = await Promise.all(
        clients.map((client) => nodeState(client, servers.length, replicas)),
      );
      const waiting = states.filter((state) => state !== 'ok');
      if (waiting.length === 0) return;
      last = waiting.join('; ');
      if (performance.now() > deadline) {
        throw new Error(`Redis Cluster not ready within ${timeoutMs} ms: ${last}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    for (const client of clients) client.disconnect();
  }
}

/**
 * nodeState says 'ok' when a node sees the whole cluster, knows the replicas
 * of every slot range (gossip spreads them a little after the slots), and, as
 * a replica, has synced.
 */
async function nodeState(client: Redis, nodes: number, replicas: number): Promise<string> {
  const info = fields(String(await client.call('CLUSTER', 'INFO')));
  const port = client.options.port;
  if (info.get('cluster_state') !== 'ok') return `${port}: ${info.get('cluster_state')}`;
  if (info.get('cluster_known_nodes') !== String(nodes)) {
    return `${port}: knows ${info.get('cluster_known_nodes')} of ${nodes} nodes`;
  }
  const ranges = (await client.call('CLUSTER', 'SLOTS')) as unknown[][];
  if (ranges.some((range) => range.length < 3 + replicas)) {
    return `${port}: does not list every replica yet`;
  }
  const replication = fields(await client.info('replication'));
  if (replication.get('role') === 'slave' && replication.get('master_link_status') !== 'up') {
    return `${port}: replica not synced`;
  }
  return 'ok';
}

function fields(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) map.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return map;
}
