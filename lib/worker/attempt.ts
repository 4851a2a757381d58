import type { Clock } from '../clock.js';
import { cut, outcomeFields, outcomeLimits } from '../engine/outcome.js';
import { spawnMost } from '../engine/runtime.js';
import { TaskLimitError } from '../errors.js';

/**
 * Attempt is what the worker runtime keeps of one run of a handler, for the
 * task's outcome: when it started (engine time), its log, and what it ended
 * with.
 */
export class Attempt {
  /** when the handler's ensure was called (engine ms): set by start() */
  private startedMs = 0;
  private readonly lines: string[] = [];
  private dropped = 0;
  /** The tasks the handler spawned: what the completing script stores (create's arguments). */
  private readonly spawned: unknown[][] = [];

  constructor(private readonly clock: Clock) {}

  /** start marks when the handler's ensure was called. */
  start(): void {
    this.startedMs = this.clock().getTime();
  }

  /**
   * log keeps a line of the task's log (context.log): at most
   * outcomeLimits.logLines lines, each cut at outcomeLimits.lineChars; the
   * last kept line then says how many were dropped.
   */
  log(line: unknown): void {
    if (this.lines.length < outcomeLimits.logLines - 1) this.lines.push(cut(String(line)));
    else this.dropped++;
  }

  /**
   * spawn keeps a task the handler spawned, validated now (TaskLimitError
   * beyond spawnMost): it joins the queue in the step that completes this
   * attempt, and never if the attempt fails.
   */
  spawn(prepared: unknown[]): void {
    if (this.spawned.length >= spawnMost) {
      throw new TaskLimitError(`spawn: a handler run may spawn at most ${spawnMost} tasks`);
    }
    this.spawned.push(prepared);
  }

  /** children: the spawned tasks as the delete script reads them, '' for none. */
  children(): string {
    return this.spawned.length === 0 ? '' : JSON.stringify(this.spawned);
  }

  /** completed: the outcome's fields of an ensure that resolved with `result` (TaskResultError when it cannot be kept). */
  completed(result: unknown): string {
    return outcomeFields({ result, startedMs: this.startedMs, log: this.kept() });
  }

  /** failed: the fields of an attempt that failed with `error`, run by `worker`. */
  failed(worker: string, error: unknown): string {
    return outcomeFields({ worker, error, startedMs: this.startedMs, log: this.kept() });
  }

  private kept(): string[] {
    if (this.dropped === 0) return this.lines;
    return [
      ...this.lines,
      `… ${this.dropped} more line(s) dropped: a task keeps ${outcomeLimits.logLines} lines`,
    ];
  }
}
