import { dueTime } from '../engine/delete.js';
import {
  errorCode,
  type EngineObserver,
  type OperationName,
  type TaskCounts,
  type TaskSource,
} from '../engine/observe.js';
import { Label } from '../task/label.js';
import { creationMs } from '../task/object-id.js';
import type { Task } from '../task/task.js';
import type { AggregatedHistogram, HistogramSeries, SeriesLabels, Tally } from './aggregate.js';
import type { ActivityMetrics } from './activity.js';
import { taskLabeler, type TaskLabeler } from './options.js';

/**
 * MetricsObserver feeds one engine's operations and its workers' tasks into
 * the activity metrics. Each series is looked up once and kept: the hot path is a
 * map lookup and a number added (aggregate.ts).
 */
export class MetricsObserver implements EngineObserver {
  private readonly labeler: TaskLabeler | undefined;
  private readonly operations = new Map<string, HistogramSeries>();
  private readonly errors = new Map<string, { value: number }>();
  private readonly created = new Map<string, { value: number }>();
  private readonly completions = new Map<string, { value: number }>();
  private readonly failures = new Map<string, { value: number }>();
  private readonly waits = new Map<string, HistogramSeries>();
  private readonly resolved = new Map<string, HistogramSeries>();
  private readonly rejected = new Map<string, HistogramSeries>();
  private readonly revoked: { value: number };
  private readonly halted: { value: number };
  private readonly retired: { value: number };

  constructor(
    private readonly instruments: ActivityMetrics,
    private readonly queue: string,
  ) {
    const { taskLabels } = instruments.options;
    this.labeler = taskLabels.length === 0 ? undefined : taskLabeler(taskLabels);
    this.revoked = instruments.revoked.entry(`${queue}\0`, { queue });
    this.halted = instruments.halted.entry(`${queue}\0`, { queue });
    this.retired = instruments.retired.entry(`${queue}\0`, { queue });
  }

  operation(operation: OperationName, durationMs: number, error: unknown): void {
    let series = this.operations.get(operation);
    if (series === undefined) {
      series = this.instruments.operationDuration.seriesOf(`${this.queue}\0${operation}`, {
        queue: this.queue,
        operation,
      });
      this.operations.set(operation, series);
    }
    series.observe(durationMs / 1000);
    if (error !== undefined) {
      const code = errorCode(error);
      this.tally(this.errors, this.instruments.operationErrors, `${operation}\0${code}`, {
        operation,
        code,
      }).value++;
    }
  }

  tasks(counts: TaskCounts): void {
    const { created } = counts;
    for (const source in created) {
      const count = created[source as TaskSource] ?? 0;
      if (count > 0) {
        this.tally(this.created, this.instruments.created, source, { source }).value += count;
      }
    }
    if (counts.revoked) this.revoked.value += counts.revoked;
    if (counts.halted) this.halted.value += counts.halted;
    if (counts.retired) this.retired.value += counts.retired;
  }

  completed(task: Task): void {
    const [key, labels] = this.taskLabels(task);
    this.tally(this.completions, this.instruments.completed, key, labels).value++;
  }

  failed(task: Task): void {
    const [key, labels] = this.taskLabels(task);
    this.tally(this.failures, this.instruments.failed, key, labels).value++;
  }

  claimed(task: Task, nowMs: number): void {
    const sinceMs = claimableSince(task);
    if (sinceMs === undefined) return;
    const [key, labels] = this.taskLabels(task);
    this.histogram(this.waits, this.instruments.wait, key, labels).observe(
      Math.max(0, nowMs - sinceMs) / 1000,
    );
  }

  handled(task: Task, durationMs: number, rejected: boolean): void {
    const [key, labels] = this.taskLabels(task);
    const outcome = rejected ? 'rejected' : 'resolved';
    const series = this.histogram(
      rejected ? this.rejected : this.resolved,
      this.instruments.handlerDuration,
      `${outcome}\0${key}`,
      { outcome, ...labels },
      key,
    );
    series.observe(durationMs / 1000);
  }

  /** taskLabels: the allow-listed labels of a task, and a key naming them ('' without task labels). */
  private taskLabels(task: Task): [string, SeriesLabels] {
    if (this.labeler === undefined) return noTaskLabels;
    const labels = this.labeler(task);
    return [Object.values(labels).join('\0'), labels];
  }

  /** tally returns the entry of a counter's series, kept in `local` by key after its first use. */
  private tally(
    local: Map<string, { value: number }>,
    tally: Tally,
    key: string,
    labels: SeriesLabels,
  ): { value: number } {
    let entry = local.get(key);
    if (entry === undefined) {
      entry = tally.entry(`${this.queue}\0${key}`, { queue: this.queue, ...labels });
      local.set(key, entry);
    }
    return entry;
  }

  /** histogram returns a histogram's series, kept in `local` by localKey after its first use. */
  private histogram(
    local: Map<string, HistogramSeries>,
    histogram: AggregatedHistogram,
    key: string,
    labels: SeriesLabels,
    localKey = key,
  ): HistogramSeries {
    let series = local.get(localKey);
    if (series === undefined) {
      series = histogram.seriesOf(`${this.queue}\0${key}`, { queue: this.queue, ...labels });
      local.set(localKey, series);
    }
    return series;
  }
}

const noTaskLabels: [string, SeriesLabels] = ['', {}];

/**
 * claimableSince approximates when a task became claimable, from what the
 * task itself says (engine ms): the due time of an @exact or deferred task
 * (but not before its creation), else its creation instant, read from its
 * object id, as long as it never ran before. A task in a later cycle (revoked
 * or requeued by paging) became claimable at a time no label keeps: undefined.
 */
export function claimableSince(task: Task): number | undefined {
  const id = task.core?.[Label.Object];
  const created = id === undefined ? undefined : creationMs(id);
  if (created === undefined) return undefined;
  const due = dueTime(task.cron);
  if (due !== undefined) return Math.max(due, created);
  const cycles = Number(task.core?.[Label.Cycles] ?? '0');
  return cycles === 0 ? created : undefined;
}
