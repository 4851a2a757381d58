// Which Redis and queue a command talks to, and the engine it talks through:
// a client that gives up quickly (a CLI must never hang on an unreachable
// Redis) and a worker id that says who it is. The CLI never searches, so it
// never claims work; the worker id only names it.
import { hostname } from 'node:os';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { quitOrDisconnect } from '../engine/connection.js';
import { Engine } from '../engine/engine.js';
import { engineDefaults, resolveEngineOptions } from '../engine/options.js';
import type { Values } from './args.js';
import { messageOf, unreachable, usageError } from './exit.js';

/** How long connecting (up to Redis's first answer) may take before `rescue` gives up (exit 3), in ms. */
const connectTimeoutMs = 3_000;
/**
 * How long one command may wait for its reply (exit 3 after): a Redis that
 * accepts the connection but stops answering must not hang the CLI. Every
 * script the engine runs does a bounded step, far below this.
 */
const commandTimeoutMs = 30_000;

/** Target is the Redis URL (or a cluster's nodes) and the queue a command works on. */
export interface Target {
  readonly url: string;
  readonly queue: string;
  /** host:port, for messages (never the password); the first node of a cluster */
  readonly address: string;
  /** the nodes of a Redis Cluster (several URLs given, comma-separated), else undefined */
  readonly nodes: readonly URL[] | undefined;
}

/** resolveTarget: `--redis` > REDIS_URL > the default; `--queue` > 'default'. */
export function resolveTarget(values: Values, env: NodeJS.ProcessEnv): Target {
  const fromEnv = env['REDIS_URL'];
  const url =
    values.string('redis') ??
    (fromEnv !== undefined && fromEnv !== '' ? fromEnv : engineDefaults.redisUrl);
  // several URLs, comma-separated: the nodes of a Redis Cluster (any of them will do to start)
  const urls = url.split(',').map((part) => part.trim());
  const parsedUrls = urls.map((part) => {
    let parsed: URL;
    try {
      parsed = new URL(part);
    } catch {
      throw usageError(`--redis must be a redis:// or rediss:// URL; got ${JSON.stringify(part)}`);
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
      throw usageError(`--redis must be a redis:// or rediss:// URL; got ${JSON.stringify(part)}`);
    return parsed;
  });
  const [parsed = new URL(engineDefaults.redisUrl)] = parsedUrls;
  const queue = values.string('queue') ?? engineDefaults.queue;
  try {
    resolveEngineOptions({ queue }); // the engine's checks of a queue name, before connecting
  } catch (error) {
    throw usageError(messageOf(error).replace('Engine option "queue"', '--queue'));
  }
  return {
    url,
    queue,
    address: `${parsed.hostname || '127.0.0.1'}:${parsed.port || '6379'}`,
    nodes: parsedUrls.length > 1 ? parsedUrls : undefined,
  };
}

/** cliWorkerId names the CLI's engine: `rescue-cli-<host>-<pid>`. */
function cliWorkerId(): string {
  return `rescue-cli-${hostname()}-${process.pid}`;
}

/** CliEngine is an engine on the target and how to close it with its client. */
export interface CliEngine {
  readonly engine: Engine;
  close(): Promise<void>;
}

/**
 * openEngine connects (or fails with exit 3 within connectTimeoutMs) and
 * opens an engine on the client. The client does not reconnect and retries a
 * command once: a Redis that goes away mid-command fails the command, fast.
 */
export async function openEngine(target: Target): Promise<CliEngine> {
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    retryStrategy: () => null,
    // a socket that never connected never closes: don't hold the process 2 s for it
    disconnectTimeout: 200,
  };
  const client =
    target.nodes === undefined ? new Redis(target.url, options) : cluster(target.nodes, options);
  // failures reach us through the commands; ioredis would print them too without a
  // listener. The first one says why connecting failed (connect() only says "closed").
  let cause: unknown;
  client.on('error', (error) => {
    cause ??= error;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    // connectTimeout covers the TCP connection; this also covers a server
    // that accepts it and never answers (the ready check waits for a reply)
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${connectTimeoutMs} ms`)),
          connectTimeoutMs,
        );
      }),
    ]);
  } catch (error) {
    client.disconnect();
    throw unreachable(target.address, cause ?? error);
  } finally {
    clearTimeout(timer);
  }
  let engine: Engine;
  try {
    engine = new Engine({ redis: client, queue: target.queue, worker: cliWorkerId() });
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return {
    engine,
    async close() {
      await engine.close();
      await quitOrDisconnect(client);
    },
  };
}

/** cluster is a Cluster client on the nodes, with the same give-up-quickly options on every node. */
function cluster(nodes: readonly URL[], options: RedisOptions): Cluster {
  const [first] = nodes;
  return new Cluster(
    nodes.map((node) => ({ host: node.hostname || '127.0.0.1', port: Number(node.port || 6379) })),
    {
      lazyConnect: true,
      clusterRetryStrategy: () => null,
      redisOptions: {
        ...options,
        lazyConnect: false,
        ...(first?.username ? { username: decodeURIComponent(first.username) } : {}),
        ...(first?.password ? { password: decodeURIComponent(first.password) } : {}),
        ...(first?.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    },
  );
}
