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
 * durable resolves with the script's reply once the write is as durable as
 * the engine's `durability` asks: at once for 'primary' (no Redis call), and
 * for 'replica', for a script that may write, once WAIT saw a replica take
 * every write of the connection so far; ReplicaTimeoutError when none did
 * within durabilityTimeout. A script that failed is not waited for: its
 * error says what happened (a script that errors wrote nothing).
 */
export function durable(
  context: EngineContext,
  script: LoadedScript,
  call: Promise<unknown>,
): Promise<unknown> {
  if (context.options.durability === 'primary' || !script.writes) return call;
  return call.then(async (reply) => {
    const { durabilityTimeout } = context.options;
    const replicas = Number(
      await context.connection.client.sendCommand(
        new ReplicaWait(passedKey(context.keys), durabilityTimeout),
      ),
    );
    if (replicas < 1) {
      throw new ReplicaTimeoutError(
        `${script.name}: no replica took the write within ${durabilityTimeout} ms (durability 'replica'); it is on the primary and may not survive a failover`,
      );
    }
    return reply;
  });
}
