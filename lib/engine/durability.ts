import { Command, type Redis } from 'ioredis';
import { ReplicaTimeoutError } from '../errors.js';
import { isClusterClient, type RedisClient } from './connection.js';
import type { EngineContext } from './context.js';
import { passedKey, type LoadedScript } from './lua/loader.js';

/**
 * ReplicaWait is `WAIT 1 <timeout>` routed, on a Cluster, to the node of the
 * queue's slot: the node and connection that just ran the script, whose
 * writes WAIT counts (WAIT has no key, so ioredis would pick any node).
 */
class ReplicaWait extends Command {
  constructor(
    /** A key of the queue: ioredis routes the command by its slot (getSlot reads getKeys). */
    private readonly queueKey: string,
    timeoutMs: number,
  ) {
    super('wait', ['1', String(timeoutMs)], { replyEncoding: 'utf8' });
  }

  override getKeys(): string[] {
    return [this.queueKey];
  }
}

/**
 * WriteConnectionLostError: a connection of the client closed between a
 * write and the WAIT that confirms it. WAIT counts only the writes of its own
 * connection: on a new one (after a reconnect, or a failover that pointed the
 * client elsewhere) it answers at once, whatever became of the write. The
 * write may be lost; runRequest sends an idempotent request again, as for any
 * connection that failed under a command.
 */
export class WriteConnectionLostError extends Error {
  constructor(script: string) {
    super(
      `${script}: the connection closed before a replica confirmed the write (durability 'replica'); it may be lost`,
    );
    this.name = 'WriteConnectionLostError';
  }
}

/** How many times a connection of each client closed so far. */
const closes = new WeakMap<RedisClient, { count: number }>();

/**
 * closesOf counts the closes of the client's connections: of a Redis, its
 * one connection; of a Cluster, every node's (a close of any of them counts).
 */
function closesOf(client: RedisClient): { count: number } {
  let counter = closes.get(client);
  if (counter === undefined) {
    const counted = { count: 0 };
    closes.set(client, (counter = counted));
    const count = () => counted.count++;
    if (isClusterClient(client)) {
      for (const node of client.nodes()) node.on('close', count);
      client.on('+node', (node: Redis) => node.on('close', count));
    } else {
      client.on('close', count);
    }
  }
  return counter;
}

/**
 * The WAIT each engine will send next, joined by every write whose reply came
 * before it goes out: one WAIT covers every write its connection made before
 * it, and Redis blocks the connection while a WAIT waits, so one per write
 * would let the connection make one write per replica round trip.
 */
const nextWaits = new WeakMap<EngineContext, Promise<{ replicas: number; closes: number }>>();

/** replicaWait: how many replicas took every write the connection made so far, and the closes counted by then. */
function replicaWait(context: EngineContext): Promise<{ replicas: number; closes: number }> {
  let next = nextWaits.get(context);
  if (next === undefined) {
    // the next turn of the event loop: the replies that came in the same read join it
    next = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      nextWaits.delete(context); // a reply that comes from now on needs a WAIT after it
      const { client } = context.connection;
      const wait = new ReplicaWait(passedKey(context.keys), context.options.durabilityTimeout);
      const replicas = Number(await client.sendCommand(wait));
      return { replicas, closes: closesOf(client).count };
    });
    nextWaits.set(context, next);
  }
  return next;
}

/**
 * durable sends a script with `send` and resolves with its reply once the
 * write is as durable as the engine's `durability` asks: at once for
 * 'primary' (no Redis call), and for 'replica', for a script that may write,
 * once a WAIT sent after its reply, on the connection that carried it, saw a
 * replica take every write of that connection so far. Rejects with
 * ReplicaTimeoutError when no replica did within durabilityTimeout, and with
 * WriteConnectionLostError when a connection closed between the call and
 * the WAIT's answer. A script that failed is not waited for: its error says
 * what happened (a script that errors wrote nothing).
 */
export function durable(
  context: EngineContext,
  script: LoadedScript,
  send: () => Promise<unknown>,
): Promise<unknown> {
  if (context.options.durability === 'primary' || !script.writes) return send();
  const closesBefore = closesOf(context.connection.client).count;
  return send().then(async (reply) => {
    const { replicas, closes: closesAfter } = await replicaWait(context);
    if (closesAfter !== closesBefore) throw new WriteConnectionLostError(script.name);
    if (replicas < 1) {
      throw new ReplicaTimeoutError(
        `${script.name}: no replica took the write within ${context.options.durabilityTimeout} ms (durability 'replica'); it is on the primary and may not survive a failover`,
      );
    }
    return reply;
  });
}
