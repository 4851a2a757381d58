import type { Clock } from '../clock.js';
import { quitOrDisconnect, type RedisClient } from '../engine/connection.js';

/**
 * WakeUp tells idle slots of a worker that there may be work: the queue's
 * scripts publish on its signal channel whenever a task becomes claimable, and
 * announce the due time of work that becomes claimable later, which WakeUp
 * turns into a timer. A generation counter makes wake-ups impossible to miss:
 * a slot remembers the generation before it searches and waits only while no
 * newer one exists.
 */
export class WakeUp {
  private generationCount = 0;
  private readonly waiters = new Set<() => void>();
  private readonly pauses = new Set<() => void>();
  private dueTimer: NodeJS.Timeout | undefined;
  private dueAtMs: number | undefined;
  private subscriber: RedisClient | undefined;
  private closed = false;
  /** called with the engine-time instant of a template tick announced on the channel */
  onTick: ((tickMs: number) => void) | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly channel: string,
    private readonly worker: string,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
    /** engine ms per real ms */
    private readonly timeScale = 1,
  ) {}

  get generation(): number {
    return this.generationCount;
  }

  async start(): Promise<void> {
    const subscriber = this.client.duplicate();
    subscriber.on('error', this.onError);
    // Messages sent while the subscription was down are lost: after every
    // (re)connection, search once.
    subscriber.on('ready', () => this.notify());
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.onMessage(message);
    });
    this.subscriber = subscriber;
    await subscriber.subscribe(this.channel);
  }

  /** notify wakes every waiting slot. */
  notify(): void {
    this.generationCount++;
    for (const resolve of this.waiters) resolve();
    this.waiters.clear();
  }

  /** wakeAt wakes the slots when the engine clock reaches dueMs (the earliest such instant wins). */
  wakeAt(dueMs: number): void {
    if (this.closed || (this.dueAtMs !== undefined && this.dueAtMs <= dueMs)) return;
    clearTimeout(this.dueTimer);
    this.dueAtMs = dueMs;
    const delay = Math.max(0, (dueMs - this.clock().getTime()) / this.timeScale);
    // Timers fire a little early or late; one more millisecond never hurts a due check.
    this.dueTimer = setTimeout(
      () => {
        this.dueAtMs = undefined;
        this.notify();
      },
      Math.min(delay + 1, 2 ** 31 - 1),
    );
    this.dueTimer.unref();
  }

  /** wait resolves when a generation newer than `since` exists, or after timeoutMs. */
  wait(since: number, timeoutMs: number): Promise<void> {
    if (this.generationCount !== since || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const waiters = this.waiters;
      function done(): void {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      }
      waiters.add(done);
    });
  }

  /** pause resolves after ms (a back-off), or at once when the worker stops. */
  pause(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const pauses = this.pauses;
      function done(): void {
        clearTimeout(timer);
        pauses.delete(done);
        resolve();
      }
      pauses.add(done);
    });
  }

  async stop(): Promise<void> {
    this.closed = true;
    for (const resolve of this.pauses) resolve();
    clearTimeout(this.dueTimer);
    this.notify();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined) await quitOrDisconnect(subscriber);
  }

  private onMessage(message: string): void {
    let parsed: { w?: unknown; d?: unknown; t?: unknown };
    try {
      parsed = JSON.parse(message) as { w?: unknown; d?: unknown; t?: unknown };
    } catch {
      return;
    }
    // cjson writes an empty list as {}
    const targets = Array.isArray(parsed.w) ? parsed.w : [];
    if (targets.includes('') || targets.includes(this.worker)) this.notify();
    if (typeof parsed.d === 'number') this.wakeAt(parsed.d);
    if (typeof parsed.t === 'number') this.onTick?.(parsed.t);
  }
}
