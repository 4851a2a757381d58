import type { Task } from '../task/task.js';

/**
 * WorkerEvents maps each event of a Worker to its arguments:
 *
 *     task:ensured   an ensure resolved and the task was deleted (or requeued)
 *     task:failed    an ensure rejected; the task expires and is retried
 *     task:lost      the worker lost the task (revoked, reset, replaced, deleted,
 *                    its lease ran out), or its claim came too late to start
 *     task:declined  no handler took the task; it was released for others (a
 *                    broadcast task: this worker is done with it, it does not come back)
 *     task:progress  a handler published progress
 *     task:rateLimited  a handler called context.rateLimit: the task was
 *                    released without a cycle, its values held for holdMs
 *     expire:done    this worker ran expire for the queue
 *     ticker:done    this worker ran ticker for the queue
 *     error          something failed that is not a handler's doing (Redis down, ...)
 */
export interface WorkerEvents {
  'task:ensured': [task: Task, info: { durationMs: number }];
  'task:failed': [task: Task, error: unknown];
  'task:lost': [task: Task, error: unknown];
  'task:declined': [task: Task];
  'task:progress': [task: Task, value: unknown];
  'task:rateLimited': [task: Task, info: { holdMs: number }];
  'expire:done': [];
  'ticker:done': [];
  error: [error: unknown];
}
