import { randomUUID } from 'node:crypto';

/**
 * Requests makes an engine's writes idempotent. ioredis sends a command again
 * when the connection dropped before its reply came (and a proxy or a
 * failover can drop a reply): a create would then store a second task, a
 * search claim a second task nobody knows it owns. Every state-changing
 * script takes a request `<instance>:<slot>:<number>`: a script that changed
 * the queue keeps its answer under the engine instance's slot with the
 * request's number, and the same request again finds it and answers the same
 * without changing anything (include/request.lua).
 *
 * A slot is held while its request is under way, so a request can only be
 * sent again while its slot still holds its answer: an engine keeps as many
 * answers in Redis as it ever had writes under way at once. Expire drops the
 * answers nobody wrote for an hour.
 */
export class Requests {
  /** this engine object's id in Redis (one per Engine, not per worker id) */
  readonly instance = randomUUID();
  private number = 0;
  private readonly free: number[] = [];
  private slots = 0;

  /** take a request for a script call; give() its slot back once the call settled. */
  take(): { request: string; slot: number } {
    const slot = this.free.pop() ?? this.slots++;
    this.number++;
    return { request: `${this.instance}:${slot}:${this.number}`, slot };
  }

  give(slot: number): void {
    this.free.push(slot);
  }
}
