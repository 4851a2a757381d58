import { Command } from 'ioredis';
import { ReplicaTimeoutError } from '../errors.js';
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
 * The WAIT each engine will send next, joined by every write whose reply came
 * before it goes out: one WAIT covers every write its connection made before
 * it, and Redis blocks the connection while a WAIT waits, so one per write
 * would let the connection make one write per replica round trip.
 */
const nextWaits = new WeakMap<EngineContext, Promise<number>>();

/** replicaWait resolves with how many replicas took every write the connection made so far. */
function replicaWait(context: EngineContext): Promise<number> {
  let next = nextWaits.get(context);
  if (next === undefined) {
    // the next turn of the event loop: the replies that came in the same read join it
    next = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      nextWaits.delete(context); // a reply that comes from now on needs a WAIT after it
      const { client } = context.connection;
      const wait = new ReplicaWait(passedKey(context.keys), context.options.durabilityTimeout);
      return Number(await client.sendCommand(wait));
    });
    nextWaits.set(context, next);
  }
  return next;
}

/**
 * durable resolves with the script's reply once the write is as durable as
 * the engine's `durability` asks: at once for 'primary' (no Redis call), and
 * for 'replica', for a script that may write, once a WAIT sent after its
 * reply saw a replica take every write of the connection so far;
 * ReplicaTimeoutError when none did within durabilityTimeout. A script that
 * failed is not waited for: its error says what happened (a script that
 * errors wrote nothing).
 */
export function durable(
  context: EngineContext,
  script: LoadedScript,
  call: Promise<unknown>,
): Promise<unknown> {
  if (context.options.durability === 'primary' || !script.writes) return call;
  return call.then(async (reply) => {
    if ((await replicaWait(context)) < 1) {
      throw new ReplicaTimeoutError(
        `${script.name}: no replica took the write within ${context.options.durabilityTimeout} ms (durability 'replica'); it is on the primary and may not survive a failover`,
      );
    }
    return reply;
  });
}
