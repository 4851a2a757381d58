import { Counter, Gauge, type Registry } from 'prom-client';
import type { EngineContext } from '../engine/context.js';
import {
  queueStats,
  statsFlowBudget,
  type CapStats,
  type QueueStats,
  type RateLimitStats,
} from '../engine/stats.js';
import type { TaskPageState } from '../task/state.js';

/**
 * The `state` labels of the rescue_queue_tasks gauge, and the stats() field
 * each is read from: the names of engine.tasks()'s lists (docs/states.md),
 * the templates' as `<list>_template`, and `due`, the part of waiting whose
 * time has come.
 */
type GaugeState =
  Exclude<TaskPageState, 'all' | 'held' | 'cron' | 'gate'> | 'due' | `${'cron' | 'gate'}_template`;
const gaugeStates = {
  claimable: 'claimable',
  owned: 'owned',
  waiting: 'waiting',
  due: 'due',
  halted: 'halted',
  cron_template: 'cronTemplates',
  gate_template: 'gateTemplates',
  broadcast: 'broadcast',
} as const satisfies Record<GaugeState, keyof QueueStats>;

/**
 * QueueGauges are the gauges of the registered engines' queues, read when the
 * registry is scraped: one stats() per queue and scrape, shared by the gauges.
 */
export class QueueGauges {
  private readonly tasks: Gauge;
  private readonly records: Gauge;
  private readonly oldest: Gauge;
  private readonly unmatched: Gauge;
  private readonly workers: Gauge;
  private readonly paused: Gauge;
  private readonly caps: FlowGauges<CapStats>;
  private readonly rateLimits: FlowGauges<RateLimitStats>;
  private readonly statsErrors: Counter;
  /** The engines whose queues the gauges read: context -> queue name. */
  readonly engines = new Map<EngineContext, string>();
  /** The scrape's reading of the queues, shared by the gauges' collect() while under way. */
  private reading: Promise<void> | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    const collect = () => this.read();
    this.tasks = new Gauge({
      name: 'rescue_queue_tasks',
      help: 'Tasks by state at scrape time (engine.stats()); due is the part of waiting whose time has come.',
      labelNames: ['queue', 'state'],
      registers,
      collect,
    });
    this.records = new Gauge({
      name: 'rescue_queue_records',
      help: 'Records in the queue, tasks of every state, at scrape time.',
      labelNames: ['queue'],
      registers,
      collect,
    });
    this.oldest = new Gauge({
      name: 'rescue_queue_oldest_claimable_age_seconds',
      help: 'Age of the oldest claimable task at scrape time (0: nothing claimable).',
      labelNames: ['queue'],
      registers,
      collect,
    });
    this.unmatched = new Gauge({
      name: 'rescue_queue_unmatched_tasks',
      help: "Of the oldest claimable tasks (256 at most), those no live worker's handler labels match.",
      labelNames: ['queue'],
      registers,
      collect,
    });
    this.workers = new Gauge({
      name: 'rescue_workers_live',
      help: 'Live workers (engine.workers()) at scrape time.',
      labelNames: ['queue'],
      registers,
      collect,
    });
    this.paused = new Gauge({
      name: 'rescue_queue_paused',
      help: 'Whether the whole queue is paused (engine.pause()): 1 while it is, else 0.',
      labelNames: ['queue'],
      registers,
      collect,
    });
    const budget = statsFlowBudget.toLocaleString('en');
    this.caps = new FlowGauges(registry, collect, 'rescue_cap', {
      concurrency: {
        help: 'The most tasks owned at once of one value of the key (of the queue: key "").',
        read: (cap) => cap.concurrency,
      },
      owned: {
        help: 'Owned tasks the cap counts: owned tasks that have its key (every owned task: key "").',
        read: (cap) => cap.owned,
      },
      values: {
        help: 'Values of the key that have owned tasks (0 for the whole-queue cap, key "").',
        read: (cap) => cap.valueCount,
      },
      values_full: {
        help: 'Of those, the values at their cap; the whole-queue cap (key ""): 1 when it is reached.',
        read: (cap) => cap.full,
      },
      exact: {
        help: `Whether stats() read every count (1), or only the first ${budget} of all caps (0: the figures count those).`,
        read: (cap) => (cap.exact ? 1 : 0),
      },
    });
    this.rateLimits = new FlowGauges(registry, collect, 'rescue_rate_limit', {
      claims_per_window: {
        help: 'The declared limit: the most claims of one value (or of the queue: key "") in a window; absent when only holds remain.',
        read: (rate) => rate.claims,
      },
      window_seconds: {
        help: 'The length of a window of the limit; absent when only holds remain.',
        read: (rate) => (rate.windowMs === undefined ? undefined : rate.windowMs / 1000),
      },
      claims: {
        help: 'Claims counted in the current windows, all values of the key together.',
        read: (rate) => rate.counted,
      },
      values: {
        help: 'Values of the key with a current window or a hold of context.rateLimit (key "": 1 while the window of the queue is open).',
        read: (rate) => rate.valueCount,
      },
      values_closed: {
        help: 'Of those, the values that claim nothing until their window reopens: full, or held.',
        read: (rate) => rate.closed,
      },
      exact: {
        help: `Whether stats() read every open window (1), or only the ${budget} that reopen first (0: the figures count those).`,
        read: (rate) => (rate.exact ? 1 : 0),
      },
    });
    this.statsErrors = new Counter({
      name: 'rescue_metrics_stats_errors_total',
      help: "Scrapes whose read of a queue's statistics failed (its gauges were left out).",
      labelNames: ['queue'],
      registers,
    });
  }

  /** start shows a queue's error count at 0 before anything happened. */
  start(queue: string): void {
    this.statsErrors.inc({ queue }, 0);
  }

  /** read reads every registered queue's statistics once per scrape and sets the gauges. */
  private read(): Promise<void> {
    this.reading ??= this.readQueues().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readQueues(): Promise<void> {
    // one open engine per queue reads it
    const queues = new Map<string, EngineContext>();
    for (const [context, queue] of this.engines) {
      if (!context.closed && !queues.has(queue)) queues.set(queue, context);
    }
    const read = await Promise.all(
      [...queues].map(async ([queue, context]) => {
        try {
          return { queue, stats: await queueStats(context) };
        } catch {
          this.statsErrors.inc({ queue });
          return { queue, stats: undefined };
        }
      }),
    );
    for (const gauge of [
      this.tasks,
      this.records,
      this.oldest,
      this.unmatched,
      this.workers,
      this.paused,
    ]) {
      gauge.reset();
    }
    this.caps.reset();
    this.rateLimits.reset();
    for (const { queue, stats } of read) {
      if (stats === undefined) continue;
      for (const [state, field] of Object.entries(gaugeStates)) {
        this.tasks.set({ queue, state }, stats[field]);
      }
      this.records.set({ queue }, stats.tasks);
      this.oldest.set({ queue }, (stats.oldestClaimable?.ageMs ?? 0) / 1000);
      this.unmatched.set({ queue }, stats.unmatched.count);
      this.workers.set({ queue }, stats.workers);
      this.paused.set({ queue }, stats.paused === undefined ? 0 : 1);
      // one series a declared cap or limit (its key), never one a value
      for (const cap of stats.caps) this.caps.set(queue, cap);
      for (const rate of stats.rateLimits) this.rateLimits.set(queue, rate);
    }
  }
}

/** A gauge of a cap or rate limit: its help, and the figure of stats() it shows (undefined: no series). */
interface FlowGauge<Entry> {
  readonly help: string;
  readonly read: (entry: Entry) => number | undefined;
}

/**
 * FlowGauges are the gauges `<prefix>_<name>{queue, key}` of the caps or the
 * rate limits of stats(): one series a declared cap or limit, labelled with
 * its meta key ('' for the whole queue's), never one a value (values are the
 * user's data, as many as tenants). A queue without any has no series.
 */
class FlowGauges<Entry extends { readonly key?: string }> {
  private readonly gauges: [Gauge, FlowGauge<Entry>['read']][];

  constructor(
    registry: Registry,
    collect: () => Promise<void>,
    prefix: string,
    figures: Record<string, FlowGauge<Entry>>,
  ) {
    this.gauges = Object.entries(figures).map(([name, { help, read }]) => [
      new Gauge({
        name: `${prefix}_${name}`,
        help,
        labelNames: ['queue', 'key'],
        registers: [registry],
        collect,
      }),
      read,
    ]);
  }

  reset(): void {
    for (const [gauge] of this.gauges) gauge.reset();
  }

  set(queue: string, entry: Entry): void {
    const labels = { queue, key: entry.key ?? '' };
    for (const [gauge, read] of this.gauges) {
      const value = read(entry);
      if (value !== undefined) gauge.set(labels, value);
    }
  }
}
