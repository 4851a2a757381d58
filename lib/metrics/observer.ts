import { dueTime } from '../engine/delete.js';
import {
  errorCode,
  type EngineObserver,
  type OperationName,
  type TaskCounts,
} from '../engine/observe.js';
import { Label } from '../task/label.js';
import { creationTime } from '../task/object-id.js';
import type { Task } from '../task/task.js';
import type { Instruments } from './instruments.js';
import { taskLabeler, type TaskLabeler } from './options.js';

/** MetricsObserver feeds one engine's operations and its workers' tasks into the instruments. */
export class MetricsObserver implements EngineObserver {
  private readonly labels: TaskLabeler;

  constructor(
    private readonly instruments: Instruments,
    private readonly queue: string,
  ) {
    this.labels = taskLabeler(instruments.options.taskLabels);
  }

  operation(operation: OperationName, durationMs: number, error: unknown): void {
    const { queue } = this;
    this.instruments.operationDuration.observe({ queue, operation }, durationMs / 1000);
    if (error !== undefined) {
      this.instruments.operationErrors.inc({ queue, operation, code: errorCode(error) });
    }
  }

  tasks(counts: TaskCounts): void {
    const { queue, instruments } = this;
    for (const [source, count] of Object.entries(counts.created ?? {})) {
      if (count > 0) instruments.created.inc({ queue, source }, count);
    }
    if (counts.revoked) instruments.revoked.inc({ queue }, counts.revoked);
    if (counts.halted) instruments.halted.inc({ queue }, counts.halted);
    if (counts.retired) instruments.retired.inc({ queue }, counts.retired);
  }

  completed(task: Task): void {
    this.instruments.completed.inc({ queue: this.queue, ...this.labels(task) });
  }

  failed(task: Task): void {
    this.instruments.failed.inc({ queue: this.queue, ...this.labels(task) });
  }

  claimed(task: Task, nowMs: number): void {
    const sinceMs = claimableSince(task);
    if (sinceMs === undefined) return;
    this.instruments.wait.observe(
      { queue: this.queue, ...this.labels(task) },
      Math.max(0, nowMs - sinceMs) / 1000,
    );
  }

  async ensure(task: Task, run: () => Promise<void>): Promise<void> {
    const started = performance.now();
    let outcome = 'rejected';
    try {
      await run();
      outcome = 'resolved';
    } finally {
      this.instruments.handlerDuration.observe(
        { queue: this.queue, outcome, ...this.labels(task) },
        (performance.now() - started) / 1000,
      );
    }
  }
}

/**
 * claimableSince approximates when a task became claimable, from what the
 * task itself says (engine ms): the due time of an @exact or deferred task
 * (but not before its creation), else its creation instant, read from its
 * object id, as long as it never ran before. A task in a later cycle (revoked
 * or requeued by paging) became claimable at a time no label keeps: undefined.
 */
export function claimableSince(task: Task): number | undefined {
  const id = task.core?.[Label.Object];
  const created = id === undefined ? undefined : creationTime(id)?.getTime();
  if (created === undefined) return undefined;
  const due = dueTime(task.cron);
  if (due !== undefined) return Math.max(due, created);
  const cycles = Number(task.core?.[Label.Cycles] ?? '0');
  return cycles === 0 ? created : undefined;
}
