import { defaultLeaseMarginMs } from '../engine/options.js';
import {
  requireBoolean,
  requireInteger,
  requirePositive,
  timerBounds,
  type Bounds,
} from '../options.js';
import { describe, reason } from '../task/describe.js';
import {
  readRetryPolicy,
  type ResolvedRetryPolicy,
  type RetryPolicy,
} from '../engine/retry-policy.js';

/** WorkerOptions configures a Worker; every option has a default. */
export interface WorkerOptions {
  /**
   * How many tasks the worker ensures at once.
   * @defaultValue 1
   */
  concurrency?: number;
  /**
   * The most tasks one claim call takes, at most `maxBatch`: free slots claim
   * together, min(batch, free slots) a call, and finished tasks are completed
   * together with the next claims up to max(batch, 16) a call, so Redis pays
   * a call's fixed cost once per batch. Each task still has its own lease and
   * fencing token, and each handler gets one task.
   * @defaultValue 1
   */
  batch?: number;
  /**
   * ms between `expire` runs; across all workers of a queue one runs it per interval.
   * @defaultValue 5 000
   */
  expireInterval?: number;
  /**
   * ms between `ticker` runs (sooner when a template's next tick comes first);
   * across all workers of a queue one runs it per interval.
   * @defaultValue 5 000
   */
  tickerInterval?: number;
  /**
   * Grace period of `stop()` in ms: running ensures are awaited, and their
   * signals aborted once it runs out. Without it, `stop()` waits as long as
   * they run.
   * @defaultValue none
   */
  stopTimeout?: number;
  /**
   * ms an idle worker waits for a wake-up before it searches anyway: a safety
   * net for a missed notification, not the way work is found.
   * @defaultValue 5 000
   */
  pollInterval?: number;
  /**
   * Renew the lease of a running task, halfway between now and its abort
   * point (the lease end less `leaseMargin`): about half the expiry after a
   * fresh lease, sooner after one that came late.
   * @defaultValue true
   */
  autoExtend?: boolean;
  /**
   * How many ms (of the engine's clock) before its lease end a running task's
   * signal aborts, for clock skew between workers and replies that arrive
   * late; a claim with less lease left than that is not started. Must be
   * less than half the engine's `expiry`.
   * @defaultValue min(1 000, expiry / 10)
   */
  leaseMargin?: number;
  /**
   * Take part in running `expire` and `ticker`.
   * @defaultValue true
   */
  background?: boolean;
  /**
   * How many ms of the engine's clock pass per real ms. For engines on a clock
   * that runs faster than the wall clock (demos, simulations): lease renewals
   * and wake-ups at due times are timed in real ms from engine-time spans.
   * @defaultValue 1
   */
  timeScale?: number;
  /**
   * ms between heartbeats of the worker's presence (`engine.workers()`).
   * @defaultValue 5 000
   */
  heartbeatInterval?: number;
  /**
   * ms the worker's presence lasts without a heartbeat: a worker that died is
   * listed that long at most. Must be more than `heartbeatInterval`.
   * @defaultValue 15 000
   */
  presenceTtl?: number;
  /**
   * The retry policy of the handlers that have none of their own (see
   * RetryPolicy), over the engine's option `retry`; a task's core `retry`
   * label wins over all.
   * @defaultValue none: a rejected ensure waits for its lease to end
   */
  retry?: RetryPolicy;
}

/** workerDefaults holds the default of each option. */
export const workerDefaults = {
  concurrency: 1,
  batch: 1,
  expireInterval: 5_000,
  tickerInterval: 5_000,
  stopTimeout: undefined,
  pollInterval: 5_000,
  autoExtend: true,
  leaseMargin: undefined,
  background: true,
  timeScale: 1,
  heartbeatInterval: 5_000,
  presenceTtl: 15_000,
  retry: undefined,
} as const;

export interface ResolvedWorkerOptions {
  readonly concurrency: number;
  readonly batch: number;
  readonly expireInterval: number;
  readonly tickerInterval: number;
  readonly stopTimeout: number | undefined;
  readonly pollInterval: number;
  readonly autoExtend: boolean;
  /** undefined: the default, which depends on the engine's expiry (see leaseMarginMs) */
  readonly leaseMargin: number | undefined;
  readonly background: boolean;
  readonly timeScale: number;
  readonly heartbeatInterval: number;
  readonly presenceTtl: number;
  readonly retry: ResolvedRetryPolicy | undefined;
}

/** The most tasks one worker ensures at once: a slot is a loop with its own claims and timers. */
const maxConcurrency = 1_000;

/** The most tasks one claim call of a worker takes (`batch`): a call blocks Redis while it runs. */
export const maxBatch = 100;

/**
 * resolveWorkerOptions applies the defaults and checks the options; `null` or
 * `undefined` means all defaults. A value of the wrong kind is a TypeError, a
 * number beyond its bound (`concurrency` above maxConcurrency, `batch` above maxBatch, an interval or
 * `stopTimeout` above what a timer can wait) a RangeError; both name the option.
 */
export function resolveWorkerOptions(options?: WorkerOptions | null): ResolvedWorkerOptions {
  const resolved = { ...workerDefaults, ...readOptions(options) };
  integerOption('concurrency', resolved.concurrency, { least: 1, most: maxConcurrency });
  integerOption('batch', resolved.batch, { least: 1, most: maxBatch });
  for (const name of [
    'expireInterval',
    'tickerInterval',
    'pollInterval',
    'heartbeatInterval',
    'presenceTtl',
  ] as const) {
    integerOption(name, resolved[name], timerBounds(1, ''));
  }
  if (resolved.presenceTtl <= resolved.heartbeatInterval) {
    throw new RangeError(
      `Worker option "presenceTtl" must be more than "heartbeatInterval" (${resolved.heartbeatInterval} ms); got ${resolved.presenceTtl}`,
    );
  }
  if (resolved.stopTimeout !== undefined)
    integerOption('stopTimeout', resolved.stopTimeout, timerBounds(0, ''));
  if (resolved.leaseMargin !== undefined)
    integerOption('leaseMargin', resolved.leaseMargin, timerBounds(0, ''));
  requirePositive('Worker option "timeScale"', resolved.timeScale);
  for (const name of ['autoExtend', 'background'] as const) {
    requireBoolean(`Worker option "${name}"`, resolved[name]);
  }
  return Object.freeze({
    ...resolved,
    retry: readRetryPolicy(resolved.retry, 'Worker option "retry"'),
  });
}

/** readOptions reads each known option once; undefined values are left out (defaults apply). */
function readOptions(options: unknown): WorkerOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') {
    throw new TypeError(`Worker options must be an object; got ${describe(options)}`);
  }
  const read: Record<string, unknown> = {};
  try {
    for (const name of Object.keys(workerDefaults)) {
      const value = (options as Record<string, unknown>)[name];
      if (value !== undefined) read[name] = value;
    }
  } catch (error) {
    throw new TypeError(`Worker options cannot be read: ${reason(error)}`);
  }
  return read;
}

/**
 * leaseMarginMs is the lease margin a worker uses with an engine of that
 * expiry: the option, or the default. A RangeError when it is not less than
 * half the expiry: each lease would be renewed at once, or never start.
 */
export function leaseMarginMs(options: ResolvedWorkerOptions, expiryMs: number): number {
  const marginMs = options.leaseMargin ?? defaultLeaseMarginMs(expiryMs);
  if (marginMs >= expiryMs / 2) {
    throw new RangeError(
      `Worker option "leaseMargin" must be less than half the engine's expiry (${expiryMs} ms); got ${marginMs}`,
    );
  }
  return marginMs;
}

function integerOption(name: string, value: unknown, bounds: Bounds): void {
  requireInteger(`Worker option "${name}"`, value, bounds);
}
