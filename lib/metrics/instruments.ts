import { Counter, Gauge, type Registry } from 'prom-client';
import type { EngineContext } from '../engine/context.js';
import { queueStats, type QueueStats } from '../engine/stats.js';
import type { TaskSource } from '../engine/observe.js';
import { AggregatedHistogram, Tally } from './aggregate.js';
import type { ResolvedMetricsOptions } from './options.js';

/** The task sources of rescue_tasks_created_total. */
export const taskSources: readonly TaskSource[] = ['api', 'cron', 'gate', 'requeue'];

/** The states of the rescue_queue_tasks gauge, and the stats() field each is read from. */
export const queueStates = {
  claimable: 'claimable',
  owned: 'owned',
  waiting: 'waiting',
  due: 'due',
  halted: 'halted',
  cron_template: 'cronTemplates',
  gate_template: 'gateTemplates',
  broadcast: 'broadcast',
} as const satisfies Record<string, keyof QueueStats>;

/**
 * Instruments are the rescue metrics of one registry, shared by every engine
 * registered on it (a `queue` label tells them apart). The gauges are read
 * when the registry is scraped: one stats() per queue and scrape, shared by
 * the gauges.
 */
export class Instruments {
  readonly operationDuration: AggregatedHistogram;
  readonly handlerDuration: AggregatedHistogram;
  readonly wait: AggregatedHistogram;
  readonly operationErrors: Tally;
  readonly created: Tally;
  readonly completed: Tally;
  readonly failed: Tally;
  readonly revoked: Tally;
  readonly halted: Tally;
  readonly retired: Tally;
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

  constructor(
    registry: Registry,
    readonly options: ResolvedMetricsOptions,
  ) {
    const registers = [registry];
    const taskNames = options.taskLabels.map((label) => label.name);
    const collect = () => this.read();
    /** counter makes a Counter whose counts a Tally keeps until the scrape. */
    const counter = (name: string, help: string, labelNames: string[]): Tally => {
      const tally: Tally = new Tally(
        new Counter({ name, help, labelNames, registers, collect: () => tally.flush() }),
      );
      return tally;
    };
    this.operationDuration = new AggregatedHistogram(
      'rescue_engine_operation_duration_seconds',
      'Duration of engine operations (the worker runtime calls search, deleteSearch and release).',
      ['queue', 'operation'],
      options.buckets.operation,
      registry,
    );
    this.operationErrors = counter(
      'rescue_engine_operation_errors_total',
      'Engine operations that failed, by error code (REDIS_REPLY: Redis answered an error; OTHER: connection, closed engine).',
      ['queue', 'operation', 'code'],
    );
    this.created = counter(
      'rescue_tasks_created_total',
      'Tasks stored, by source: api (create), cron (ticker), gate (a gate template fired), requeue (delete paged or deferred).',
      ['queue', 'source'],
    );
    this.completed = counter(
      'rescue_tasks_completed_total',
      'Tasks a delete completed (deleted, requeued, or a broadcast task completed locally).',
      ['queue', ...taskNames],
    );
    this.failed = counter(
      'rescue_tasks_failed_total',
      'Tasks a worker reported failed (task:failed): the ensure rejected or was cut short.',
      ['queue', ...taskNames],
    );
    this.revoked = counter(
      'rescue_tasks_revoked_total',
      'Leases expire revoked (the owner did not delete or extend in time).',
      ['queue'],
    );
    this.halted = counter(
      'rescue_tasks_halted_total',
      'Tasks the circuit breaker came to hold (cycles reached cancel).',
      ['queue'],
    );
    this.retired = counter(
      'rescue_tasks_retention_deleted_total',
      'Tasks expire deleted past retention (the cleanup option).',
      ['queue'],
    );
    this.handlerDuration = new AggregatedHistogram(
      'rescue_handler_duration_seconds',
      "Duration of handlers' ensure, by outcome (resolved, rejected).",
      ['queue', 'outcome', ...taskNames],
      options.buckets.handler,
      registry,
    );
    this.wait = new AggregatedHistogram(
      'rescue_task_wait_seconds',
      'Time from claimable (creation, or the due time of @exact and @defer) to claimed by a worker; first cycles only, unless due-timed.',
      ['queue', ...taskNames],
      options.buckets.wait,
      registry,
    );
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

  /** start shows a queue's counters at 0 before anything happened (those without task labels). */
  start(queue: string): void {
    for (const source of taskSources) this.created.entry(`${queue}\0${source}`, { queue, source });
    // the keys MetricsObserver gives these series: `<queue>\0<its key>`
    for (const tally of [this.revoked, this.halted, this.retired])
      tally.entry(`${queue}\0`, { queue });
    this.statsErrors.inc({ queue }, 0);
    if (this.options.taskLabels.length === 0) {
      this.completed.entry(`${queue}\0`, { queue });
      this.failed.entry(`${queue}\0`, { queue });
    }
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
      for (const [state, field] of Object.entries(queueStates)) {
        this.tasks.set({ queue, state }, stats[field]);
      }
      this.records.set({ queue }, stats.tasks);
      this.oldest.set({ queue }, (stats.oldestClaimable?.ageMs ?? 0) / 1000);
      this.unmatched.set({ queue }, stats.unmatched.count);
      this.workers.set({ queue }, stats.workers);
    }
  }
}
