import type { Clock } from '../clock.js';
import { outcomeFields } from '../engine/outcome.js';

/**
 * Attempt is what the worker runtime keeps of one run of a handler, for the
 * task's outcome: when it started (engine time) and what it ended with.
 */
export class Attempt {
  readonly startedMs: number;

  constructor(clock: Clock) {
    this.startedMs = clock().getTime();
  }

  /** completed: the outcome's fields of an ensure that resolved with `result` (TaskResultError when it cannot be kept). */
  completed(result: unknown): string {
    return outcomeFields({ result, startedMs: this.startedMs });
  }

  /** failed: the fields of an attempt that failed with `error`, run by `worker`. */
  failed(worker: string, error: unknown): string {
    return outcomeFields({ worker, error, startedMs: this.startedMs });
  }
}
