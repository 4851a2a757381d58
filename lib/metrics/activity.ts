import { Counter, type Registry } from 'prom-client';
import type { TaskSource } from '../engine/observe.js';
import { AggregatedHistogram, Tally } from './aggregate.js';
import type { ResolvedMetricsOptions } from './options.js';

/** The task sources of rescue_tasks_created_total. */
const taskSources: readonly TaskSource[] = ['api', 'cron', 'gate', 'requeue'];

/**
 * ActivityMetrics are the counters and histograms of what engines and their
 * workers do, in one registry, shared by every engine registered on it (a
 * `queue` label tells them apart); MetricsObserver feeds them.
 */
export class ActivityMetrics {
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

  constructor(
    registry: Registry,
    readonly options: ResolvedMetricsOptions,
  ) {
    const registers = [registry];
    const taskNames = options.taskLabels.map((label) => label.name);
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
  }

  /** start shows a queue's counters at 0 before anything happened (those without task labels). */
  start(queue: string): void {
    for (const source of taskSources) this.created.entry(`${queue}\0${source}`, { queue, source });
    // the keys MetricsObserver gives these series: `<queue>\0<its key>`
    for (const tally of [this.revoked, this.halted, this.retired])
      tally.entry(`${queue}\0`, { queue });
    if (this.options.taskLabels.length === 0) {
      this.completed.entry(`${queue}\0`, { queue });
      this.failed.entry(`${queue}\0`, { queue });
    }
  }
}
