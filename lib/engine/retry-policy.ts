// Retry policies as options (the handler option `retry`, the Worker's and
// the Engine's option `retry`): their shape, defaults and checks. The worker
// applies them (lib/worker/retry.ts); the engine only carries its default.
import { longestTimerMs } from '../clock.js';
import { describe } from '../task/describe.js';

/**
 * RetryPolicy says what the worker does when a handler's ensure rejects: the
 * task is given back at once, to run again after the backoff's delay (one
 * cycle more), until it has had `attempts` runs; then it halts, as the
 * circuit breaker (`cancel`) halts it. Without a policy, a rejected task waits
 * for its lease to end, as in the Go original.
 *
 *     retry: { attempts: 5, backoff: 'exponential', delay: 1_000, maxDelay: 60_000, jitter: true }
 */
export interface RetryPolicy {
  /** How many runs at most, the first included (a positive integer); none: no limit but `cancel`. */
  attempts?: number;
  /**
   * How the delay grows: 'fixed' (always `delay`), 'exponential' (`delay`,
   * then twice that, four times ...), or a function of the attempt that
   * failed (1 for the first run) and its error, answering ms.
   * @defaultValue 'exponential'
   */
  backoff?: 'fixed' | 'exponential' | ((attempt: number, error: unknown) => number);
  /** The first delay, ms (integer, 0 to 2,147,483,647). @defaultValue 1 000 */
  delay?: number;
  /** The largest delay, ms, at least `delay`. @defaultValue 3 600 000 (1 hour) */
  maxDelay?: number;
  /** Spread each delay uniformly between half of it and all of it. @defaultValue false */
  jitter?: boolean;
}

/** ResolvedRetryPolicy is a checked policy with its defaults applied. */
export interface ResolvedRetryPolicy {
  readonly attempts: number | undefined;
  readonly backoff: 'fixed' | 'exponential' | ((attempt: number, error: unknown) => number);
  readonly delay: number;
  readonly maxDelay: number;
  readonly jitter: boolean;
}

/** retryDefaults are the values of the fields a policy leaves out. */
const retryDefaults = { backoff: 'exponential', delay: 1_000, maxDelay: 3_600_000 } as const;

/** The most attempts a policy may name (as many as a quantity of the interval language). */
const maxAttempts = 1_000_000;

const policyKeys = new Set(['attempts', 'backoff', 'delay', 'maxDelay', 'jitter']);

/**
 * readRetryPolicy checks a policy (`where` names it in messages: `Worker:
 * handler 0 retry`, `Engine option "retry"`) and applies the defaults;
 * undefined stays undefined (no policy). Throws a TypeError naming the field.
 */
export function readRetryPolicy(value: unknown, where: string): ResolvedRetryPolicy | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object; got ${describe(value)}`);
  }
  const given = { ...(value as Record<string, unknown>) };
  for (const key of Object.keys(given)) {
    if (!policyKeys.has(key)) {
      throw new TypeError(
        `${where} has an unknown field ${JSON.stringify(key)} (attempts, backoff, delay, maxDelay, jitter)`,
      );
    }
  }
  const { attempts, backoff = retryDefaults.backoff, jitter = false } = given;
  if (
    attempts !== undefined &&
    (typeof attempts !== 'number' ||
      !Number.isInteger(attempts) ||
      attempts < 1 ||
      attempts > maxAttempts)
  ) {
    throw new TypeError(
      `${where} attempts must be an integer from 1 to ${maxAttempts}; got ${describe(attempts)}`,
    );
  }
  if (backoff !== 'fixed' && backoff !== 'exponential' && typeof backoff !== 'function') {
    throw new TypeError(
      `${where} backoff must be 'fixed', 'exponential' or a function; got ${describe(backoff)}`,
    );
  }
  const delay = readDelay(given['delay'] ?? retryDefaults.delay, `${where} delay`);
  const maxDelay = readDelay(
    given['maxDelay'] ?? Math.max(retryDefaults.maxDelay, delay),
    `${where} maxDelay`,
  );
  if (maxDelay < delay) {
    throw new TypeError(
      `${where} maxDelay (${maxDelay}) must not be shorter than delay (${delay})`,
    );
  }
  if (typeof jitter !== 'boolean') {
    throw new TypeError(`${where} jitter must be a boolean; got ${describe(jitter)}`);
  }
  return Object.freeze({
    attempts,
    backoff: backoff as ResolvedRetryPolicy['backoff'],
    delay,
    maxDelay,
    jitter,
  });
}

function readDelay(value: unknown, what: string): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 0 ||
    value > longestTimerMs
  ) {
    throw new TypeError(
      `${what} must be an integer of ms from 0 to ${longestTimerMs}; got ${describe(value)}`,
    );
  }
  return value;
}
