import { longestTimerMs, type Clock } from '../clock.js';
import {
  isClusterClient,
  quitOrDisconnect,
  type Connection,
  type RedisClient,
} from '../engine/connection.js';

/** How often a cluster subscriber re-reads the slot map, in ms. */
const slotsRefreshMs = 1_000;

/**
 * WakeUp tells idle slots of a worker that there may be work. A slot that
 * finds no work parks in the queue (the search that found nothing parked it,
 * atomically); when a task it may take becomes claimable, the script that
 * made it so names the slot on the queue's signal channel, so one task wakes
 * one slot of one worker, not every idle slot everywhere. Broadcast tasks and
 * due times wake one slot of every worker. A generation counter per slot
 * makes wake-ups impossible to miss: a slot remembers its generation before
 * it searches and waits only while no newer one exists.
 */
export class WakeUp {
  private readonly generations: number[];
  private readonly waiters: (Set<() => void> | undefined)[];
  private readonly pauses = new Set<() => void>();
  private dueTimer: NodeJS.Timeout | undefined;
  private dueAtMs: number | undefined;
  private subscriber: RedisClient | undefined;
  /** re-reads a cluster subscriber's slot map (see start) */
  private slotsTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** called with the engine-time instant of a template tick announced on the channel */
  onTick: ((tickMs: number) => void) | undefined;
  /** called with each message of the control channel (cancel: which task to stop) */
  onControl: ((message: string) => void) | undefined;

  constructor(
    private readonly connection: Pick<Connection, 'client' | 'sharded'>,
    private readonly channel: string,
    private readonly worker: string,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
    /** engine ms per real ms */
    private readonly timeScale = 1,
    slots = 1,
    /** the queue's control channel, subscribed with the signal channel on the same connection */
    private readonly controlChannel?: string,
  ) {
    this.generations = Array.from({ length: slots }, () => 0);
    this.waiters = Array.from({ length: slots }, () => undefined);
  }

  /** generation of a slot: it changes with every wake-up of that slot. */
  generation(slot: number): number {
    return this.generations[slot] ?? 0;
  }

  async start(): Promise<void> {
    const { client, sharded } = this.connection;
    // On a cluster: a Cluster of its own with one sharded subscriber per
    // primary. When the queue's slot moves to another node (a failover,
    // resharding), the node that lost it ends the subscription
    // (SUNSUBSCRIBE); ioredis reports that as an error of the subscriber's
    // node, and a fresh slot map makes it subscribe on the new owner. The
    // map is also read again every second, in case that report never comes:
    // by a timer of our own that stop() clears. ioredis's
    // `slotsRefreshInterval` (turned off here, also when the engine's client
    // has it) re-arms its timer when quit() falls during one of its
    // refreshes, and the process never exits (ioredis 5.11).
    const subscriber: RedisClient = isClusterClient(client)
      ? client.duplicate([], { shardedSubscribers: true, slotsRefreshInterval: 0 })
      : client.duplicate();
    if (isClusterClient(subscriber)) {
      subscriber.on('nodeError', () => subscriber.refreshSlotsCache());
      this.slotsTimer = setInterval(() => subscriber.refreshSlotsCache(), slotsRefreshMs);
      this.slotsTimer.unref();
    }
    subscriber.on('error', this.onError);
    // Messages sent while the subscription was down are lost: after every
    // (re)connection, and on a cluster after the subscribers were set up
    // anew, search once.
    subscriber.on('ready', () => this.notify());
    if (sharded) subscriber.on('subscribersReady', () => this.notify());
    subscriber.on(sharded ? 'smessage' : 'message', (channel: string, message: string) => {
      if (channel === this.channel) this.onMessage(message);
      else if (channel === this.controlChannel) this.onControl?.(message);
    });
    this.subscriber = subscriber;
    const channels =
      this.controlChannel === undefined ? [this.channel] : [this.channel, this.controlChannel];
    if (sharded) await subscriber.ssubscribe(...channels);
    else await subscriber.subscribe(...channels);
  }

  /** notify wakes every slot. */
  notify(): void {
    for (let slot = 0; slot < this.generations.length; slot++) this.wakeSlot(slot);
  }

  /** wakeSlot wakes one slot. */
  wakeSlot(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.generations.length) return;
    this.generations[slot] = (this.generations[slot] ?? 0) + 1;
    const waiters = this.waiters[slot];
    if (waiters === undefined) return;
    this.waiters[slot] = undefined;
    for (const resolve of waiters) resolve();
  }

  /** wakeOne wakes the first waiting slot (or, when none waits, the first slot). */
  wakeOne(): void {
    const waiting = this.waiters.findIndex((waiters) => waiters !== undefined);
    this.wakeSlot(Math.max(0, waiting));
  }

  /** wakeAt wakes a slot when the engine clock reaches dueMs (the earliest such instant wins). */
  wakeAt(dueMs: number): void {
    if (this.closed || (this.dueAtMs !== undefined && this.dueAtMs <= dueMs)) return;
    clearTimeout(this.dueTimer);
    this.dueAtMs = dueMs;
    const delay = Math.max(0, (dueMs - this.clock().getTime()) / this.timeScale);
    // Timers fire a little early or late; one more millisecond never hurts a due check.
    this.dueTimer = setTimeout(
      () => {
        this.dueAtMs = undefined;
        this.wakeOne();
      },
      Math.min(delay + 1, longestTimerMs),
    );
    this.dueTimer.unref();
  }

  /** wait resolves when the slot has a generation newer than `since`, or after timeoutMs. */
  wait(slot: number, since: number, timeoutMs: number): Promise<void> {
    if (this.generation(slot) !== since || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const waiters = (this.waiters[slot] ??= new Set());
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
    clearInterval(this.slotsTimer);
    this.notify();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined) await quitOrDisconnect(subscriber);
  }

  private onMessage(message: string): void {
    let parsed: { s?: unknown; a?: unknown; d?: unknown; t?: unknown };
    try {
      parsed = JSON.parse(message) as { s?: unknown; a?: unknown; d?: unknown; t?: unknown };
    } catch {
      return;
    }
    // the slots a script woke: `<worker>\0<slot>` each
    if (Array.isArray(parsed.s)) {
      const mine = `${this.worker}\0`;
      for (const slotKey of parsed.s) {
        if (typeof slotKey === 'string' && slotKey.startsWith(mine)) {
          this.wakeSlot(Number(slotKey.slice(mine.length)));
        }
      }
    }
    if (parsed.a !== undefined) this.wakeOne(); // a broadcast task: every worker may take it
    if (typeof parsed.d === 'number') this.wakeAt(parsed.d);
    if (typeof parsed.t === 'number') this.onTick?.(parsed.t);
  }
}
