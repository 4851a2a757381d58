// The dashboard's view of the queue over time: it samples engine.stats()
// (and the live workers) every interval, keeps the samples of the last
// minutes for the overview's chart, and tells subscribers (the browsers'
// Server-Sent Event streams) when something changed. One feed per dashboard,
// however many browsers watch.
import type { Engine } from '../engine/engine.js';
import type { QueueStats } from '../engine/stats.js';

/** Sample is the queue's counts at one instant (the engine clock's ms). */
export interface Sample {
  readonly at: number;
  readonly tasks: number;
  readonly claimable: number;
  readonly owned: number;
  readonly waiting: number;
  readonly halted: number;
}

/** LiveEvent is an event of the queue as the browser receives it. */
export interface LiveEvent {
  readonly id: string;
  readonly kind: string;
  readonly task: string;
  readonly worker: string;
  /** formatTime of when it happened */
  readonly at: string;
  readonly reason?: string;
}

/** LiveMessage is what the feed tells its subscribers. */
export type LiveMessage =
  | { readonly type: 'change' }
  | { readonly type: 'failure'; readonly message: string }
  | { readonly type: 'event'; readonly event: LiveEvent };

export interface LiveFeedOptions {
  /** ms between samples */
  readonly interval: number;
  /** ms of samples kept */
  readonly history: number;
  /** told when a sample fails (Redis unreachable, the engine closed) */
  readonly onError: (error: unknown) => void;
}

/** The most samples kept, whatever the history and interval. */
const samplesMost = 2_000;

/** LiveFeed samples the queue and tells subscribers about changes. */
export class LiveFeed {
  private readonly listeners = new Set<(message: LiveMessage) => void>();
  private readonly kept: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private fingerprint = '';
  private lastStats: QueueStats | undefined;
  private lastFailure: string | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly options: LiveFeedOptions,
  ) {}

  /** start takes a sample now and then every interval, until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.poke();
  }

  /** stop ends the sampling and waits for a sample under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sampling;
  }

  /** poke takes a sample as soon as possible (after an action, so browsers see it at once). */
  poke(): void {
    if (this.stopped) return;
    if (this.sampling !== undefined) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.sampling = this.sample().finally(() => {
      this.sampling = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.poke();
        return;
      }
      this.timer = setTimeout(() => this.poke(), this.options.interval);
      this.timer.unref();
    });
  }

  /** subscribe calls the listener with every message from now on; call the result to stop. */
  subscribe(listener: (message: LiveMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** subscribers is how many listeners are subscribed (open streams). */
  get subscribers(): number {
    return this.listeners.size;
  }

  /** samples returns the samples kept, oldest first. */
  samples(): readonly Sample[] {
    return this.kept;
  }

  /** latest is the last sample's stats, undefined before the first. */
  get latest(): QueueStats | undefined {
    return this.lastStats;
  }

  /** failure is why the last sample failed, undefined when it did not. */
  get failure(): string | undefined {
    return this.lastFailure;
  }

  /** tell sends a message to every subscriber (a listener that throws is dropped). */
  tell(message: LiveMessage): void {
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch {
        this.listeners.delete(listener);
      }
    }
  }

  private async sample(): Promise<void> {
    let stats: QueueStats;
    let workers: string;
    try {
      const [read, live] = await Promise.all([this.engine.stats(), this.engine.workers()]);
      stats = read;
      workers = live.map((presence) => `${presence.worker}:${presence.running}`).join(',');
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (message !== this.lastFailure) this.tell({ type: 'failure', message });
      this.lastFailure = message;
      this.options.onError(error);
      return;
    }
    this.lastFailure = undefined;
    this.lastStats = stats;
    this.keep({
      at: stats.at.getTime(),
      tasks: stats.tasks,
      claimable: stats.claimable,
      owned: stats.owned,
      waiting: stats.waiting,
      halted: stats.halted,
    });
    const fingerprint = JSON.stringify({
      ...stats,
      at: undefined,
      oldestClaimable: stats.oldestClaimable?.id,
      workers,
    });
    if (fingerprint !== this.fingerprint) {
      this.fingerprint = fingerprint;
      this.tell({ type: 'change' });
    }
  }

  private keep(sample: Sample): void {
    this.kept.push(sample);
    const oldest = sample.at - this.options.history;
    let drop = 0;
    while (drop < this.kept.length && (this.kept[drop]?.at ?? 0) < oldest) drop++;
    drop = Math.max(drop, this.kept.length - samplesMost);
    if (drop > 0) this.kept.splice(0, drop);
  }
}
