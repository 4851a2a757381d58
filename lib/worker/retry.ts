import { UnrecoverableError } from '../errors.js';
import type { RetryPlan } from '../engine/runtime.js';
import type { ResolvedRetryPolicy } from '../engine/retry-policy.js';

import { parseRetryLabel } from '../schedule/retry.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';

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
