import Redlock, { type Lock } from 'redlock';
import { systemClock } from '../clock.js';
import type { RedisClient } from '../engine/connection.js';

/**
 * BackgroundLoop runs one queue-wide chore (expire or ticker) every interval
 * on one worker of the fleet: each run takes, or extends, a Redlock lease on
 * the chore's lock key. The lease outlasts the interval a little and runs are
 * planned at a fixed rate, so the holder keeps it from run to run; when it
 * stops it releases the lease, and when it dies the lease runs out, so
 * another worker takes over at its next run.
 */
export class BackgroundLoop {
  private readonly redlock: Redlock;
  private lock: Lock | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private plannedAt: number | undefined;
  /** a run asked for (runIn) while another was under way */
  private requestedAt: number | undefined;
  private active = false;
  /** how long a lease lasts: an interval, and some slack for a late timer or a slow run */
  private readonly leaseMs: number;

  constructor(
    client: RedisClient,
    private readonly lockKey: string,
    private readonly intervalMs: number,
    private readonly chore: () => Promise<void>,
    private readonly onDone: () => void,
    private readonly onError: (error: unknown) => void,
    /** when the chore knows work comes sooner than the interval: ms from now */
    private readonly nextRunIn: () => Promise<number | undefined> = () =>
      Promise.resolve(undefined),
  ) {
    this.leaseMs = intervalMs + Math.min(intervalMs, 1_000);
    this.redlock = new Redlock([client], { retryCount: 0, driftFactor: 0.01 });
    this.redlock.on('error', () => {}); // a refused lease is normal here
  }

  start(): void {
    this.active = true;
    this.plan(0);
  }

  /** runIn brings the next run forward to delayMs from now, when it was planned later. */
  runIn(delayMs: number): void {
    if (!this.active) return;
    const at = performance.now() + delayMs;
    if (this.running !== undefined) {
      // a run is under way: it plans the next one when it ends, and heeds this
      if (this.requestedAt === undefined || at < this.requestedAt) this.requestedAt = at;
      return;
    }
    if (this.plannedAt !== undefined && this.plannedAt <= at) return;
    this.plan(delayMs);
  }

  async stop(): Promise<void> {
    this.active = false;
    clearTimeout(this.timer);
    await this.running;
    const lock = this.lock;
    this.lock = undefined;
    if (lock !== undefined) {
      try {
        await lock.release();
      } catch {
        // the lease ran out already
      }
    }
  }

  private plan(delayMs: number): void {
    clearTimeout(this.timer);
    if (!this.active) return;
    this.plannedAt = performance.now() + delayMs;
    this.timer = setTimeout(() => {
      this.plannedAt = undefined;
      this.running = this.tick().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    // a fixed rate: the next run is due an interval after this one started
    let nextAt = performance.now() + this.intervalMs;
    try {
      if (await this.hold()) {
        await this.chore();
        this.onDone();
        const sooner = await this.nextRunIn();
        if (sooner !== undefined)
          nextAt = Math.min(nextAt, performance.now() + Math.max(1, sooner));
      }
    } catch (error) {
      this.onError(error);
    }
    if (this.requestedAt !== undefined) {
      nextAt = Math.min(nextAt, this.requestedAt);
      this.requestedAt = undefined;
    }
    this.plan(Math.max(0, nextAt - performance.now()));
  }

  /** hold extends this worker's lease, or tries to take it; says whether it holds it now. */
  private async hold(): Promise<boolean> {
    // Redlock's lease end is wall-clock time
    if (this.lock !== undefined && this.lock.expiration > systemClock().getTime()) {
      try {
        this.lock = await this.lock.extend(this.leaseMs);
        return true;
      } catch {
        this.lock = undefined;
      }
    }
    try {
      this.lock = await this.redlock.acquire([this.lockKey], this.leaseMs);
      return true;
    } catch {
      this.lock = undefined;
      return false;
    }
  }
}
