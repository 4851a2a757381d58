import type { Clock } from '../clock.js';
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
 *
 * Reading the signal's `aborted` (or calling `throwIfAborted()`) first runs
 * `beforeRead`, which aborts it when the lease is over by the clock. A
 * process frozen past its lease (SIGSTOP, a stopped VM, a long GC pause)
 * resumes with every overdue timer due at once, and a handler's own timer
 * may run before the one that aborts: a handler that checks its signal
 * before each step still stops in time.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  constructor(private readonly beforeRead: () => void = () => {}) {}

  get isAborted(): boolean {
    return this.aborted;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
      checkedOnRead(this.controller.signal, this.beforeRead);
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

/** checkedOnRead makes `aborted` and `throwIfAborted()` of one signal run `check` first. */
function checkedOnRead(signal: AbortSignal, check: () => void): void {
  Object.defineProperty(signal, 'aborted', {
    get: () => {
      check();
      // the prototype's getter, on this signal
      return Boolean(Reflect.get(AbortSignal.prototype, 'aborted', signal));
    },
  });
  Object.defineProperty(signal, 'throwIfAborted', {
    value: () => {
      check();
      AbortSignal.prototype.throwIfAborted.call(signal);
    },
  });
}

/** LeaseTerms are what a Lease plans with: the engine's expiry and clock, and the worker's options. */
export interface LeaseTerms {
  /** how long a renewal's lease lasts from the instant it was asked for (engine ms) */
  readonly expiryMs: number;
  /** how long before its lease end a handler is stopped (engine ms): clock skew, late delivery */
  readonly marginMs: number;
  readonly autoExtend: boolean;
  /** engine ms per real ms: timers run in real ms */
  readonly timeScale: number;
  readonly clock: Clock;
}

/** Renewer is what a Lease renews through: the engine's `extend`. */
export interface Renewer {
  extend(task: Task): Promise<void>;
}

/**
 * Lease keeps a running task owned. Everything is planned from the lease END
 * Redis granted (the claim's, then each renewal's) against the clock as the
 * reply comes in, never from when the handler started: a claim or renewal
 * that executed late (Redis paused, a command held in ioredis's offline
 * queue or resent after a reconnect) has less lease left than its expiry.
 *
 * The abort point is the lease end less `marginMs`. A claim already past it
 * is not started; one with less than half the expiry left before it is
 * renewed first. With auto-extend, each renewal is planned halfway between
 * now and the abort point, so it has the other half for its round trip. The
 * signal aborts once the task is lost: when a renewal says so, or at the
 * abort point without a renewal (auto-extend off, or Redis unreachable or
 * late), because soon after `expire` may give the task to another worker.
 * One timer at a time: the next renewal, or the abort point.
 */
export class Lease {
  // reading the signal checks the abort point by the clock (see LazyAbort)
  readonly controller = new LazyAbort(() => this.checkAbortPoint());
  private timer: NodeJS.Timeout | undefined;
  /** when the lease ends, in engine ms */
  private endMs = 0;
  private lostError: unknown;
  private isLostFlag = false;
  private stopped = false;

  constructor(
    private readonly engine: Renewer,
    private readonly task: Task,
    private readonly terms: LeaseTerms,
    private readonly onLost: (error: unknown) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  get lost(): boolean {
    return this.isLostFlag;
  }

  get error(): unknown {
    return this.lostError;
  }

  /**
   * begin takes over the lease a claim returned (its end in engine ms; else
   * the task's expiry label) and says whether the handler may start: not
   * when the lease is over (the task is lost), nor when it had to be renewed
   * first and that failed (lost, or a Redis error, reported).
   */
  begin(claimedEndMs: number | undefined): boolean | Promise<boolean> {
    // a missing or unreadable lease end counts as ended, as expire reads it
    this.endMs = claimedEndMs ?? tryParseTime(this.task.core?.[Label.Expiry])?.getTime() ?? 0;
    const leftMs = this.leftMs();
    if (leftMs <= 0) {
      this.lose(
        new TaskOutdatedError(
          `Worker: the claim of task ${this.id} came too late to start: its lease ends at ` +
            `${formatTime(new Date(this.endMs))} (lease margin ${this.terms.marginMs} ms)`,
        ),
      );
      return false;
    }
    // most claims: decided now, without a promise
    if (leftMs >= this.terms.expiryMs / 2) {
      this.plan(leftMs);
      return true;
    }
    return this.renewFirst();
  }

  /** renewFirst renews a lease claimed with less than half its expiry left, and says whether the handler may start. */
  private async renewFirst(): Promise<boolean> {
    try {
      await this.extend();
    } catch (error) {
      if (!isLost(error)) this.onError(error);
      return false;
    }
    return !this.isLostFlag;
  }

  /** extend renews the lease now; a lost task aborts the signal and rethrows. */
  async extend(): Promise<void> {
    if (this.isLostFlag) throw this.lostError;
    // read before the call: the lease extend grants ends no earlier than this
    const endMs = this.terms.clock().getTime() + this.terms.expiryMs;
    try {
      await this.engine.extend(this.task);
    } catch (error) {
      // a renewal still in flight when the task completed finds it gone: not a loss
      if (isLost(error) && !this.stopped) this.lose(error);
      throw error;
    }
    this.endMs = endMs;
    this.plan();
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

  private get id(): string {
    return this.task.core?.[Label.Object] ?? '';
  }

  /** leftMs is how long until the abort point (the lease end less the margin), in engine ms. */
  private leftMs(): number {
    return this.endMs - this.terms.marginMs - this.terms.clock().getTime();
  }

  /**
   * plan times what comes next from the lease end: a renewal halfway to the
   * abort point, or the abort point. `leftMs`: how long until the abort point,
   * if just read.
   */
  private plan(leftMs = this.leftMs()): void {
    if (this.stopped || this.isLostFlag) return;
    if (leftMs <= 0) this.expired();
    else this.schedule(this.terms.autoExtend ? leftMs / 2 : leftMs);
  }

  /** schedule runs the next step in `engineMs` of engine time: a renewal, or the abort point once it came. */
  private schedule(engineMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped || this.isLostFlag) return;
    this.timer = setTimeout(() => this.step(), Math.max(0, engineMs / this.terms.timeScale));
    this.timer.unref();
  }

  private step(): void {
    const leftMs = this.leftMs();
    if (leftMs <= 0 || !this.terms.autoExtend) {
      this.expired();
      return;
    }
    // while the renewal is under way the abort point stands guard: a command
    // to an unreachable Redis waits in the client's queue, maybe for long
    this.schedule(leftMs);
    this.extend().catch((error: unknown) => {
      if (isLost(error)) return;
      // Redis trouble: report and try again soon, at the latest at the abort point
      this.onError(error);
      this.schedule(Math.min(Math.max(50, this.terms.expiryMs / 10), this.leftMs()));
    });
  }

  /** checkAbortPoint loses the task when its abort point passed and no timer said so yet. */
  private checkAbortPoint(): void {
    if (this.stopped || this.isLostFlag || this.endMs === 0) return;
    if (this.leftMs() <= 0) this.expired();
  }

  /** expired loses the task at the abort point: from the lease end on, expire may give it to another worker. */
  private expired(): void {
    this.lose(
      new TaskOutdatedError(
        `Worker: the lease of task ${this.id} ends at ${formatTime(new Date(this.endMs))} without renewal`,
      ),
    );
  }
}
