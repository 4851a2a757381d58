import { longestTimerMs } from '../clock.js';
import type { Task } from '../task/task.js';
import type { RetryPolicy } from '../engine/retry-policy.js';

/**
 * Handler is one kind of work a worker can do. `filter` says whether it takes
 * a task; `ensure` does the work, and the task is deleted once it resolves.
 *
 *     {
 *       labels: { meta: { 'x.api.io/action': 'delete' } },
 *       filter: (task) => has(task.meta, { 'x.api.io/action': 'delete', 'x.api.io/object': '*' }),
 *       ensure: async (task, { signal }) => { await deleteObject(task.meta['x.api.io/object'], { signal }) },
 *     }
 */
export interface Handler {
  /** filter tells whether this handler takes the task; the first handler that does runs it. */
  filter(task: Task): boolean;
  /**
   * ensure does the work. When it resolves, the task is deleted (with the
   * changes ensure made to the task object: a paging value in `sync` or a
   * `@defer` in `cron` requeue it), and what it resolved with, if anything,
   * becomes the result of the task's outcome (JSON-serialisable, at most 64
   * KiB; `engine.wait` and `engine.status` read it). When it rejects, the task
   * goes back under the retry policy (`retry`), or without one stays owned
   * until its lease ends and `expire` offers it again, one cycle more; the
   * failure is kept with the task's status. An UnrecoverableError halts the
   * task at once.
   */
  ensure(task: Task, context: EnsureContext): Promise<unknown>;
  /**
   * labels, optional: a query (as for `search`) that every task this handler
   * takes matches. When each handler has one, the worker searches with them,
   * so workers with different handlers share a queue without claiming each
   * other's tasks.
   */
  labels?: Task;
  /**
   * timeout, optional: how long (ms) an ensure may run, for every task or per
   * task (a function, say of a label of the task's meta; undefined: no limit).
   * When it runs out, the signal aborts with TaskTimeoutError and the attempt
   * counts as failed (state `timeout`), whatever ensure answers: the task is
   * retried after its lease ends, and the circuit breaker's outcome is
   * `timeout`.
   *
   *     timeout: (task) => Number(task.meta?.['x.api.io/timeout-ms'] ?? 60_000)
   */
  timeout?: number | ((task: Task) => number | undefined);
  /**
   * retry, optional: what happens when ensure rejects (RetryPolicy): the task
   * is given back at once and runs again after the backoff, one cycle more,
   * until its attempts are spent; then it halts as the circuit breaker halts
   * it. Without one (and without the worker's `retry` option) a rejected
   * task waits for its lease to end. A task's core `retry` label wins.
   *
   *     retry: { attempts: 5, backoff: 'exponential', delay: 1_000, maxDelay: 60_000 }
   */
  retry?: RetryPolicy;
}

/** EnsureContext is what a running ensure gets besides its task. */
export interface EnsureContext {
  /**
   * signal is aborted when the worker lost the task (its lease was revoked,
   * reset or the task was deleted or replaced) or when `stop()`'s grace period
   * ran out. Stop working then: the task is someone else's, and this worker
   * will not delete it.
   */
  signal: AbortSignal;
  /** extend renews the lease now (the worker also does so, halfway to the abort point). */
  extend(): Promise<void>;
  /** progress publishes a value other processes can observe (docs/worker.md, Progress). */
  progress(value: unknown): Promise<void>;
  /**
   * log adds a line to the task's log, kept with its outcome (or its failed
   * attempt) for `engine.status` and `rescue tasks show`: at most 100 lines
   * per attempt, each cut at 1,000 characters; nothing reaches Redis before
   * the attempt ends.
   */
  log(line: string): void;
  /**
   * spawn adds follow-up work: the task is validated now (as `create` would,
   * throwing its errors; at most 100 per run) and joins the queue in the same
   * step that completes this task, once ensure resolved. If the run fails,
   * is cancelled or loses the task, it never appears. The outcome lists the
   * ids (`children`).
   */
  spawn(task: Task): void;
  /**
   * rateLimit says a remote service limits this work (an HTTP 429): once
   * ensure settles, whether it resolved or rejected, the worker releases the
   * task without counting a cycle or an attempt, and no worker claims a task
   * of the task's rate-limited values (those of its keys with a declared
   * rate limit; the whole queue when none applies) for `ms` milliseconds.
   * `ms` is a number from 1 to 2,592,000,000 (30 days), rounded up; called
   * twice, the longer hold counts. docs/semantics.md §3.16.
   */
  rateLimit(ms: number): void;
}

/** pickHandler returns the first handler that takes the task, or undefined. */
export function pickHandler(handlers: readonly Handler[], task: Task): Handler | undefined {
  return handlers.find((handler) => handler.filter(task));
}

/**
 * searchFilters lists the filters the worker searches with: each handler's
 * labels when every handler has them, else one unfiltered search.
 */
export function searchFilters(handlers: readonly Handler[]): (Task | undefined)[] {
  if (handlers.length === 0 || handlers.some((handler) => handler.labels === undefined))
    return [undefined];
  const seen = new Set<string>();
  const filters: Task[] = [];
  for (const handler of handlers) {
    const key = JSON.stringify(handler.labels);
    if (seen.has(key)) continue;
    seen.add(key);
    filters.push(handler.labels as Task);
  }
  return filters;
}

/**
 * handlerTimeout is a handler's timeout for a task, in ms, or undefined
 * (none, or a function that answered something that is not a timeout).
 */
export function handlerTimeout(handler: Handler, task: Task): number | undefined {
  let timeout: unknown = handler.timeout;
  if (typeof timeout === 'function') {
    try {
      timeout = (timeout as (task: Task) => unknown)(task);
    } catch {
      return undefined;
    }
  }
  return isTimeout(timeout) ? timeout : undefined;
}

/** isTimeout: a positive integer of ms a timer can wait. */
export function isTimeout(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= longestTimerMs
  );
}
