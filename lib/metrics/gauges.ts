import { Counter, Gauge, type Registry } from 'prom-client';
import type { EngineContext } from '../engine/context.js';
import { queueStats, type QueueStats } from '../engine/stats.js';
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
    for (const gauge of [this.tasks, this.records, this.oldest, this.unmatched, this.workers]) {
      gauge.reset();
    }
    for (const { queue, stats } of read) {
      if (stats === undefined) continue;
      for (const [state, field] of Object.entries(gaugeStates)) {
        this.tasks.set({ queue, state }, stats[field]);
      }
      this.records.set({ queue }, stats.tasks);
      this.oldest.set({ queue }, (stats.oldestClaimable?.ageMs ?? 0) / 1000);
      this.unmatched.set({ queue }, stats.unmatched.count);
      this.workers.set({ queue }, stats.workers);
    }
  }
}
