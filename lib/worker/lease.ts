import type { Clock } from '../clock.js';
import type { Engine } from '../engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../errors.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { formatTime, tryParseTime } from '../task/time.js';

/** isLost tells whether an error from extend or delete means the worker lost the task. */
export function isLost(error: unknown): boolean {
  return error instanceof TaskOutdatedError || error instanceof TaskNotFoundError;
}

/**
 * LazyAbort is an AbortController made on first use: most ensures never read
 * their signal, and a controller with its signal costs more than the rest of
 * a no-op task's bookkeeping. Aborting before first use is remembered.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  get isAborted(): boolean {
    return this.aborted;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/**
 * Lease keeps a running task owned: it extends the lease at half the expiry
 * (when auto-extend is on) and on request, and aborts the ensure's signal
 * once the task is lost: when a renewal says so, or when the lease ends
 * without renewal (auto-extend off, or Redis unreachable), because from then
 * on `expire` may give the task to another worker. One timer at a time: the
 * next renewal, or, without auto-extend, the lease end.
 */
export class Lease {
  readonly controller = new LazyAbort();
  private timer: NodeJS.Timeout | undefined;
  /** when the lease ends, in engine ms */
  private endMs = 0;
  private lostError: unknown;
  private isLostFlag = false;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly task: Task,
    private readonly expiryMs: number,
    private readonly autoExtend: boolean,
    private readonly clock: Clock,
    private readonly onLost: (error: unknown) => void,
    private readonly onError: (error: unknown) => void,
    /** engine ms per real ms: timers run in real ms */
    private readonly timeScale = 1,
  ) {}

  get lost(): boolean {
    return this.isLostFlag;
  }

  get error(): unknown {
    return this.lostError;
  }

  /** start times the first renewal, or the lease end, from when the claim's lease ends (engine ms). */
  start(claimedEndMs: number | undefined): void {
    this.renewed(
      claimedEndMs ??
        tryParseTime(this.task.core?.[Label.Expiry])?.getTime() ??
        this.clock().getTime() + this.expiryMs,
    );
  }

  /** extend renews the lease now; a lost task aborts the signal and rethrows. */
  async extend(): Promise<void> {
    if (this.isLostFlag) throw this.lostError;
    // read before the call: the lease extend grants ends no earlier than this
    const endMs = this.clock().getTime() + this.expiryMs;
    try {
      await this.engine.extend(this.task);
      this.renewed(endMs);
    } catch (error) {
      // a renewal still in flight when the task completed finds it gone: not a loss
      if (isLost(error) && !this.stopped) this.lose(error);
      throw error;
    }
  }

  /** lose marks the task lost: the signal aborts with the error, once. */
  lose(error: unknown): void {
    if (this.isLostFlag) return;
    this.isLostFlag = true;
    this.lostError = error;
    clearTimeout(this.timer);
    this.controller.abort(error);
    this.onLost(error);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** renewed sets the lease end and plans what comes next: a renewal at half the expiry, or the end. */
  private renewed(endMs: number): void {
    this.endMs = endMs;
    if (this.autoExtend) this.schedule(this.expiryMs / 2);
    else this.schedule(this.endMs - this.clock().getTime());
  }

  /** schedule runs the next step in `engineMs` of engine time: a renewal, or the end of the lease once it came. */
  private schedule(engineMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped || this.isLostFlag) return;
    this.timer = setTimeout(() => this.step(), Math.max(0, engineMs / this.timeScale));
    this.timer.unref();
  }

  private step(): void {
    const leftMs = this.endMs - this.clock().getTime();
    if (leftMs <= 0 || !this.autoExtend) {
      const id = this.task.core?.[Label.Object] ?? '';
      this.lose(
        new TaskOutdatedError(
          `Worker: the lease of task ${id} ended at ${formatTime(new Date(this.endMs))} without renewal`,
        ),
      );
      return;
    }
    // while the renewal is under way the lease end stands guard: a command to
    // an unreachable Redis waits in the client's queue, maybe for long
    this.schedule(leftMs);
    this.extend().catch((error: unknown) => {
      if (isLost(error)) return;
      // Redis trouble: report and try again soon, at the latest when the lease ends
      this.onError(error);
      this.schedule(
        Math.min(Math.max(50, this.expiryMs / 10), this.endMs - this.clock().getTime()),
      );
    });
  }
}
