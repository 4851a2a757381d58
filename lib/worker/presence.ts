import { hostname } from 'node:os';
import { quitOrDisconnect, type RedisClient } from '../engine/connection.js';
import { readClock, type EngineContext } from '../engine/context.js';
import { removePresence, writePresence, type WorkerPresence } from '../engine/presence.js';
import { formatTime } from '../task/time.js';

/** What a worker's presence says besides what changes: its running tasks and the heartbeat. */
export type PresenceFacts = Pick<WorkerPresence, 'concurrency' | 'handlers' | 'ttl'>;

/**
 * Heartbeat keeps a running Worker's presence in Redis (engine.workers()):
 * written when the worker starts, renewed every interval with the number of
 * tasks it runs, deleted when it stops. A worker that dies without stopping
 * vanishes when its presence key's TTL runs out.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private client: RedisClient | undefined;
  private started = '';
  private beating: Promise<void> | undefined;

  constructor(
    private readonly context: EngineContext,
    private readonly facts: PresenceFacts,
    private readonly intervalMs: number,
    private readonly running: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * start writes the first presence and starts the heartbeat. It does not
   * wait for Redis: presence is for observers, and a worker whose Redis is
   * slow to take writes (paused, failing over) starts taking work all the same.
   * Heartbeats go on a connection of their own, so they never queue with the
   * worker's claims and completions (nor the other way round).
   */
  start(): void {
    this.started = formatTime(readClock(this.context.clock));
    this.client = this.context.connection.client.duplicate();
    this.client.on('error', () => {}); // failures reach onError through the commands
    this.beatNow();
    this.timer = setInterval(() => this.beatNow(), this.intervalMs);
    this.timer.unref();
  }

  /** beatNow renews the presence, unless the last renewal is still under way. */
  private beatNow(): void {
    this.beating ??= this.beat()
      .catch(this.onError)
      .finally(() => (this.beating = undefined));
  }

  /** halt stops the heartbeat and drops its connection (also under a stop()), leaving the presence to run out. */
  halt(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.client?.disconnect();
    this.client = undefined;
  }

  /** stop stops the heartbeat and deletes the presence. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    // kept until the end: halt() drops it when Redis does not answer
    const client = this.client;
    if (client === undefined) return;
    try {
      await removePresence(this.context, client, this.context.options.worker);
    } finally {
      this.client = undefined;
      await quitOrDisconnect(client);
    }
  }

  private beat(): Promise<void> {
    if (this.client === undefined) return Promise.resolve();
    return writePresence(this.context, this.client, {
      worker: this.context.options.worker,
      host: hostname(),
      pid: process.pid,
      started: this.started,
      running: this.running(),
      ...this.facts,
    });
  }
}
