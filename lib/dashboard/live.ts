// The dashboard's view of the queue over time: every interval it samples
// engine.stats() and the live workers, and reads the queue's new events
// (engine.events(), which also keeps the queue recording them); it keeps the
// samples and the event counts of the last minutes for the overview, and
// tells subscribers (the browsers' Server-Sent Event streams) of each event
// and whenever something changed. One feed per dashboard, however many
// browsers watch.
import type { Engine } from '../engine/engine.js';
import type { QueueEvent } from '../engine/events.js';
import type { QueueStats } from '../engine/stats.js';
import { contextOf } from '../engine/context-registry.js';
import { readTasksById } from '../engine/read.js';
import type { Task } from '../task/task.js';
import { Throughput } from './throughput.js';

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
  /** When it happened, to the millisecond (ISO 8601, always three decimals). */
  readonly at: string;
  readonly reason?: string;
  /** A few of the task's meta labels (`key=value`, space-separated), while it is in the queue. */
  readonly labels?: string;
}

/** LiveMessage is what the feed tells its subscribers. */
export type LiveMessage =
  | { readonly type: 'change' }
  | { readonly type: 'failure'; readonly message: string }
  | { readonly type: 'event'; readonly event: LiveEvent }
  /** more events came in one interval than are sent one by one: this many were not */
  | { readonly type: 'gap'; readonly skipped: number };

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
/** Events read per call, and calls per sample at most (a burst beyond is read at the next). */
const eventsPerRead = 1_000;
const readsPerSample = 5;
/** The most events of one sample sent to browsers one by one (the newest). */
const eventsSentMost = 200;

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
  private eventsAfter: string | undefined;
  private readonly counted = new Throughput();

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

  /** throughput counts the events read so far, by kind, in buckets. */
  get throughput(): Throughput {
    return this.counted;
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
    let events: QueueEvent[];
    try {
      const [read, live, fresh] = await Promise.all([
        this.engine.stats(),
        this.engine.workers(),
        this.readEvents(),
      ]);
      stats = read;
      workers = live.map((presence) => `${presence.worker}:${presence.running}`).join(',');
      events = fresh;
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (message !== this.lastFailure) this.tell({ type: 'failure', message });
      this.lastFailure = message;
      this.options.onError(error);
      return;
    }
    this.lastFailure = undefined;
    this.lastStats = stats;
    this.eventsAfter = events.at(-1)?.id ?? this.eventsAfter; // read again after a failed sample
    this.counted.begin(stats.at.getTime());
    for (const event of events) this.counted.add(event.kind, event.at.getTime());
    this.counted.prune(stats.at.getTime() - this.options.history);
    const skipped = events.length - eventsSentMost;
    if (skipped > 0) this.tell({ type: 'gap', skipped });
    const sent = events.slice(Math.max(0, skipped));
    const tasks =
      sent.length === 0 || this.listeners.size === 0
        ? new Map<string, Task>()
        : await eventTasks(this.engine, sent);
    for (const event of sent) this.tell({ type: 'event', event: liveEvent(event, tasks) });
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
    if (fingerprint !== this.fingerprint || events.length > 0) {
      this.fingerprint = fingerprint;
      this.tell({ type: 'change' });
    }
  }

  /** readEvents reads the events since the last read (the newest, the first time). */
  private async readEvents(): Promise<QueueEvent[]> {
    const events: QueueEvent[] = [];
    let after = this.eventsAfter;
    for (let read = 0; read < readsPerSample; read++) {
      const page = await this.engine.events(
        after === undefined ? { limit: eventsPerRead } : { after, limit: eventsPerRead },
      );
      events.push(...page);
      after = page.at(-1)?.id ?? after;
      if (page.length < eventsPerRead) break;
    }
    return events;
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

/**
 * liveEvent is an event as the browser receives it: its time with
 * milliseconds always written (rows line up), and the labels of its task
 * when `tasks` (eventTasks) has it.
 */
export function liveEvent(event: QueueEvent, tasks?: ReadonlyMap<string, Task>): LiveEvent {
  const task = tasks?.get(event.task);
  const labels = task === undefined ? '' : labelText(task);
  return {
    id: event.id,
    kind: event.kind,
    task: event.task,
    worker: event.worker,
    at: event.at.toISOString(),
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    ...(labels === '' ? {} : { labels }),
  };
}

/** How many meta labels an event row shows, and how long a value at most. */
const eventLabelsMost = 3;
const eventValueMost = 40;

/** labelText writes the first meta labels of a task as `key=value key=value`. */
function labelText(task: Task): string {
  return Object.entries(task.meta ?? {})
    .slice(0, eventLabelsMost)
    .map(
      ([key, value]) =>
        `${key}=${value.length > eventValueMost ? `${value.slice(0, eventValueMost)}…` : value}`,
    )
    .join(' ');
}

/** eventTasks reads the tasks of some events that are still in the queue (one HMGET); none on failure. */
export async function eventTasks(
  engine: Engine,
  events: readonly QueueEvent[],
): Promise<Map<string, Task>> {
  try {
    return await readTasksById(
      contextOf(engine),
      events.map((event) => event.task),
    );
  } catch {
    return new Map();
  }
}
