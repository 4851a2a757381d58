import fc from 'fast-check';
import { UnrecoverableError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import {
  readRetryPolicy,
  type ResolvedRetryPolicy,
  type RetryPolicy,
} from '../../lib/engine/retry-policy.js';
import { backoffDelay, retryPlan, taskPolicy } from '../../lib/worker/retry.js';

function policy(given: RetryPolicy): ResolvedRetryPolicy {
  const resolved = readRetryPolicy(given, 'test retry');
  if (resolved === undefined) throw new Error('no policy');
  return resolved;
}

const taskAt = (cycles: number, core: Record<string, string> = {}): Task => ({
  core: {
    [Label.Object]: '1697760001000-000000000001',
    ...(cycles > 0 ? { [Label.Cycles]: String(cycles) } : {}),
    ...core,
  },
  meta: { k: 'v' },
});

describe('retry policy: reading', () => {
  it('applies the defaults', () => {
    expect(readRetryPolicy({}, 'x')).toEqual({
      attempts: undefined,
      backoff: 'exponential',
      delay: 1_000,
      maxDelay: 3_600_000,
      jitter: false,
    });
    expect(readRetryPolicy(undefined, 'x')).toBeUndefined();
    // a first delay beyond the default largest one raises the largest
    expect(readRetryPolicy({ delay: 7_200_000 }, 'x')?.maxDelay).toBe(7_200_000);
  });

  it.each([
    [null, 'test retry must be an object; got null'],
    [[], 'test retry must be an object; got an array'],
    [{ attempt: 3 }, 'test retry has an unknown field "attempt"'],
    [{ attempts: 0 }, 'test retry attempts must be an integer from 1 to 1000000; got number 0'],
    [{ attempts: 1.5 }, 'test retry attempts must be an integer from 1'],
    [{ attempts: '3' }, 'test retry attempts must be an integer from 1'],
    [{ backoff: 'linear' }, "test retry backoff must be 'fixed', 'exponential' or a function"],
    [{ delay: -1 }, 'test retry delay must be an integer of ms from 0 to 2147483647'],
    [{ delay: 2 ** 31 }, 'test retry delay must be an integer of ms'],
    [{ delay: Number.NaN }, 'test retry delay must be an integer of ms'],
    [{ delay: 10, maxDelay: 5 }, 'test retry maxDelay (5) must not be shorter than delay (10)'],
    [{ jitter: 'yes' }, 'test retry jitter must be a boolean'],
  ])('rejects %j with a TypeError', (given, message) => {
    expect(() => readRetryPolicy(given, 'test retry')).toThrow(TypeError);
    expect(() => readRetryPolicy(given, 'test retry')).toThrow(message);
  });
});

describe('retry policy: backoff delays', () => {
  it('keeps a fixed delay', () => {
    const fixed = policy({ backoff: 'fixed', delay: 200 });
    expect([1, 2, 3, 10].map((attempt) => backoffDelay(fixed, attempt, new Error()))).toEqual([
      200, 200, 200, 200,
    ]);
  });

  it('doubles an exponential delay up to maxDelay', () => {
    const exponential = policy({ backoff: 'exponential', delay: 100, maxDelay: 1_000 });
    expect([1, 2, 3, 4, 5, 6, 100].map((n) => backoffDelay(exponential, n, undefined))).toEqual([
      100, 200, 400, 800, 1_000, 1_000, 1_000,
    ]);
  });

  it('asks a function with the attempt and the error, capped at maxDelay', () => {
    const seen: [number, unknown][] = [];
    const error = new Error('boom');
    const custom = policy({
      backoff: (attempt, cause) => {
        seen.push([attempt, cause]);
        return attempt * 300;
      },
      delay: 50,
      maxDelay: 1_000,
    });
    expect(backoffDelay(custom, 2, error)).toBe(600);
    expect(backoffDelay(custom, 4, error)).toBe(1_000);
    expect(seen).toEqual([
      [2, error],
      [4, error],
    ]);
  });

  it('falls back to delay when the function throws or answers no delay', () => {
    for (const answer of [() => -1, () => Number.NaN, () => 'soon', () => Infinity]) {
      const custom = policy({ backoff: answer as () => number, delay: 70 });
      expect(backoffDelay(custom, 1, undefined)).toBe(70);
    }
    const throwing = policy({
      backoff: () => {
        throw new Error('no');
      },
      delay: 70,
    });
    expect(backoffDelay(throwing, 1, undefined)).toBe(70);
  });

  it('spreads a delay with jitter between half of it and all of it', () => {
    const jittered = policy({
      backoff: 'exponential',
      delay: 1_000,
      maxDelay: 60_000,
      jitter: true,
    });
    expect(backoffDelay(jittered, 1, undefined, () => 0)).toBe(500);
    expect(backoffDelay(jittered, 1, undefined, () => 0.999_999)).toBe(1_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, random) => {
          const plain = backoffDelay({ ...jittered, jitter: false }, attempt, undefined);
          const ms = backoffDelay(jittered, attempt, undefined, () => random);
          expect(ms).toBeGreaterThanOrEqual(Math.floor(plain / 2));
          expect(ms).toBeLessThanOrEqual(plain);
          expect(ms).toBeLessThanOrEqual(60_000);
        },
      ),
    );
  });

  it('never exceeds maxDelay nor goes below 0, whatever the policy', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'fixed' | 'exponential'>('fixed', 'exponential'),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 2_000 }),
        (backoff, delay, extra, jitter, attempt) => {
          const resolved = policy({ backoff, delay, maxDelay: delay + extra, jitter });
          const ms = backoffDelay(resolved, attempt, undefined);
          expect(Number.isInteger(ms)).toBe(true);
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(delay + extra);
        },
      ),
    );
  });
});

describe('retry policy: the plan of a failed run', () => {
  const now = 1_697_760_001_000;

  it('leaves a task without a policy to its lease', () => {
    expect(retryPlan(undefined, taskAt(0), new Error('x'), now)).toBeUndefined();
  });

  it('halts at once on an UnrecoverableError, with a policy or without', () => {
    const error = new UnrecoverableError('never');
    expect(retryPlan(undefined, taskAt(0), error, now)).toEqual({ cancel: 'now' });
    expect(retryPlan(policy({ attempts: 9 }), taskAt(3), error, now)).toEqual({ cancel: 'now' });
  });

  it('runs again after the backoff, the breaker set to the attempts', () => {
    const exponential = policy({ attempts: 4, delay: 100 });
    expect(retryPlan(exponential, taskAt(0), new Error(), now)).toEqual({
      dueMs: now + 100,
      cancel: 4,
    });
    expect(retryPlan(exponential, taskAt(2), new Error(), now)).toEqual({
      dueMs: now + 400,
      cancel: 4,
    });
    expect(retryPlan(policy({ delay: 100 }), taskAt(5), new Error(), now)).toEqual({
      dueMs: now + 3_200,
    });
  });

  it('halts the run that was the last attempt', () => {
    const three = policy({ attempts: 3, delay: 100 });
    expect(retryPlan(three, taskAt(2), new Error(), now)).toEqual({ cancel: 3 });
    expect(retryPlan(three, taskAt(7), new Error(), now)).toEqual({ cancel: 3 });
    expect(retryPlan(policy({ attempts: 1 }), taskAt(0), new Error(), now)).toEqual({ cancel: 1 });
  });

  it('takes the task label over the handler policy, and the handler policy over a bad label', () => {
    const handler = policy({ backoff: 'fixed', delay: 5 });
    expect(taskPolicy(taskAt(0), handler)).toBe(handler);
    expect(taskPolicy(taskAt(0, { [Label.Retry]: 'fixed 30 seconds x 2' }), handler)).toEqual({
      backoff: 'fixed',
      delay: 30_000,
      maxDelay: 30_000,
      jitter: false,
      attempts: 2,
    });
    expect(taskPolicy(taskAt(0, { [Label.Retry]: 'sometimes' }), handler)).toBe(handler);
    expect(taskPolicy(taskAt(0, { [Label.Retry]: 'fixed 1 second' }), undefined)?.attempts).toBe(
      undefined,
    );
  });
});
