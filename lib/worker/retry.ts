import { longestTimerMs } from '../clock.js';
import { UnrecoverableError } from '../errors.js';
import type { RetryPlan } from '../engine/runtime.js';
import { parseRetryLabel } from '../schedule/retry.js';
import { describe } from '../task/describe.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';

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

/**
 * backoffDelay is the delay (ms) after the `attempt`-th run failed with
 * `error`: the backoff's, at most maxDelay, and with jitter between half of
 * it and all of it (`random` in [0, 1)). A backoff function that throws or
 * answers no non-negative number gives `delay`.
 */
export function backoffDelay(
  policy: ResolvedRetryPolicy,
  attempt: number,
  error: unknown,
  random: () => number = Math.random,
): number {
  let ms: number;
  if (policy.backoff === 'fixed') ms = policy.delay;
  else if (policy.backoff === 'exponential') ms = policy.delay * 2 ** Math.min(attempt - 1, 60);
  else ms = askBackoff(policy.backoff, attempt, error, policy.delay);
  ms = Math.min(ms, policy.maxDelay);
  if (policy.jitter) ms = ms / 2 + (ms / 2) * random();
  return Math.round(ms);
}

function askBackoff(
  backoff: (attempt: number, error: unknown) => number,
  attempt: number,
  error: unknown,
  fallback: number,
): number {
  try {
    const ms = backoff(attempt, error);
    return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : fallback;
  } catch {
    return fallback;
  }
}

/**
 * taskPolicy is the policy a failed task is retried under: the one of its
 * core `retry` label, which wins, else the handler's (or the engine's
 * default, which the caller passes when the handler has none). A label that
 * cannot be read (create checks it; something else may have written it) is
 * passed over.
 */
export function taskPolicy(
  task: Task,
  fallback: ResolvedRetryPolicy | undefined,
): ResolvedRetryPolicy | undefined {
  const label = task.core?.[Label.Retry];
  if (label === undefined) return fallback;
  try {
    const parsed = parseRetryLabel(label);
    return { ...parsed, attempts: parsed.attempts };
  } catch {
    return fallback;
  }
}

/**
 * retryPlan says how a failed run is settled: undefined leaves the task to
 * its lease (no policy: fail.lua records the attempt), else how retry.lua
 * gives it back. An UnrecoverableError halts it now, whatever the policy; a
 * run that was the policy's last attempt halts it too (its breaker set to
 * the attempts); any other runs again after the backoff. The attempt is the
 * task's cycle count at its claim plus one.
 */
export function retryPlan(
  policy: ResolvedRetryPolicy | undefined,
  task: Task,
  error: unknown,
  nowMs: number,
  random: () => number = Math.random,
): RetryPlan | undefined {
  if (error instanceof UnrecoverableError) return { cancel: 'now' };
  if (policy === undefined) return undefined;
  const attempt = cyclesOf(task) + 1;
  if (policy.attempts !== undefined && attempt >= policy.attempts)
    return { cancel: policy.attempts };
  const dueMs = nowMs + backoffDelay(policy, attempt, error, random);
  return policy.attempts === undefined ? { dueMs } : { dueMs, cancel: policy.attempts };
}

function cyclesOf(task: Task): number {
  const cycles = Number(task.core?.[Label.Cycles] ?? '0');
  return Number.isSafeInteger(cycles) && cycles >= 0 ? cycles : 0;
}
