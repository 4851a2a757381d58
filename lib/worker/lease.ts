import type { Engine } from '../engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../errors.js';
import type { Task } from '../task/task.js';

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
 * once the task is lost.
 */
export class Lease {
  readonly controller = new LazyAbort();
  private timer: NodeJS.Timeout | undefined;
  private lostError: unknown;
  private isLostFlag = false;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly task: Task,
    private readonly expiryMs: number,
    private readonly autoExtend: boolean,
    private readonly onLost: (error: unknown) => void,
    private readonly onError: (error: unknown) => void,
    /** engine ms per real ms: renewals are timed in real ms */
    private readonly timeScale = 1,
  ) {}

  get lost(): boolean {
    return this.isLostFlag;
  }

  get error(): unknown {
    return this.lostError;
  }

  start(): void {
    this.schedule(this.expiryMs / 2 / this.timeScale);
  }

  /** extend renews the lease now; a lost task aborts the signal and rethrows. */
  async extend(): Promise<void> {
    if (this.isLostFlag) throw this.lostError;
    try {
      await this.engine.extend(this.task);
      this.schedule(this.expiryMs / 2 / this.timeScale);
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

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    if (!this.autoExtend || this.stopped || this.isLostFlag) return;
    this.timer = setTimeout(() => {
      this.extend().catch((error: unknown) => {
        if (isLost(error)) return;
        // Redis trouble: report and try again soon, before the lease ends
        this.onError(error);
        this.schedule(Math.max(50, this.expiryMs / 10 / this.timeScale));
      });
    }, delayMs);
    this.timer.unref();
  }
}
