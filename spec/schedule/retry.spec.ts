import fc from 'fast-check';
import { TaskCronError } from '../../lib/errors.js';
import { deferDuration } from '../../lib/schedule/index.js';
import { parseRetryLabel } from '../../lib/schedule/retry.js';

function messageOf(value: string): string {
  try {
    parseRetryLabel(value);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskCronError);
    return (error as TaskCronError).message;
  }
  throw new Error(`${JSON.stringify(value)} was accepted`);
}

describe('retry labels', () => {
  it.each([
    ['fixed 30 seconds', { backoff: 'fixed', delay: 30_000, maxDelay: 30_000, jitter: false }],
    ['fixed second', { backoff: 'fixed', delay: 1_000, maxDelay: 1_000, jitter: false }],
    [
      'exponential 1 second .. 1 hour',
      { backoff: 'exponential', delay: 1_000, maxDelay: 3_600_000, jitter: false },
    ],
    [
      'exponential 200 seconds',
      { backoff: 'exponential', delay: 200_000, maxDelay: 200_000, jitter: false },
    ],
    [
      '  exponential   1 second  ..  10 minutes   with jitter   x 5 ',
      { backoff: 'exponential', delay: 1_000, maxDelay: 600_000, jitter: true, attempts: 5 },
    ],
    [
      'fixed 10 seconds x 3',
      { backoff: 'fixed', delay: 10_000, maxDelay: 10_000, jitter: false, attempts: 3 },
    ],
    [
      'fixed 2 minutes with jitter',
      { backoff: 'fixed', delay: 120_000, maxDelay: 120_000, jitter: true },
    ],
  ])('reads %j', (value, expected) => {
    expect(parseRetryLabel(value)).toEqual(expected);
  });

  it.each([
    [
      '',
      '"": a retry policy is "fixed DURATION" or "exponential DURATION [.. DURATION]", then optionally "with jitter" and "x N"; but the expression ends first',
    ],
    [
      'linear 1 second',
      '"linear 1 second": a retry policy is "fixed DURATION" or "exponential DURATION [.. DURATION]", then optionally "with jitter" and "x N"; got "linear" first',
    ],
    ['fixed', '"fixed": expected a duration after "fixed", but the expression ends'],
    ['fixed x 3', '"fixed x 3": expected a duration after "fixed", got "x"'],
    [
      'fixed 1 second .. 1 hour',
      '"fixed 1 second .. 1 hour": a fixed backoff has one duration; ".." is for exponential ones',
    ],
    [
      'exponential 1 hour .. 1 minute',
      '"exponential 1 hour .. 1 minute": the largest delay (after "..") must not be shorter than the first',
    ],
    [
      'exponential 1 second ..',
      '"exponential 1 second ..": expected a duration after "..", but the expression ends',
    ],
    ['fixed 2 second', '"fixed 2 second": a quantity of 2 or more needs the plural "seconds"'],
    [
      'fixed 30 secs',
      '"fixed 30 secs": a duration is "unit", "1 unit" or "N units" (e.g. "2 hours") with a unit second, minute, hour, day, week or month; did you mean "30 seconds"?',
    ],
    [
      'fixed 1 month',
      '"fixed 1 month": a delay must be at most 2147483647 ms (about 24 days), got 2592000000 ms',
    ],
    [
      'fixed 1 second with',
      '"fixed 1 second with": expected "jitter" after "with", but the expression ends',
    ],
    [
      'fixed 1 second x 0',
      '"fixed 1 second x 0": expected the attempts after "x" as digits from 1 (e.g. "x 5"), got "0"',
    ],
    [
      'fixed 1 second x 05',
      '"fixed 1 second x 05": expected the attempts after "x" as digits from 1 (e.g. "x 5"), got "05"',
    ],
    [
      'fixed 1 second x',
      '"fixed 1 second x": expected the attempts after "x" as digits from 1 (e.g. "x 5"), but the expression ends',
    ],
    [
      'fixed 1 second x 1000001',
      '"fixed 1 second x 1000001": the attempts must be at most 1000000, got "1000001"',
    ],
    [
      'fixed 1 second x 3 with jitter',
      '"fixed 1 second x 3 with jitter": a retry policy is "fixed DURATION" or "exponential DURATION [.. DURATION]", then optionally "with jitter" and "x N"; unexpected "with"',
    ],
  ])('rejects %j', (value, message) => {
    expect(messageOf(value)).toBe(message);
  });

  it('reads every policy it can write back', () => {
    const duration = fc.oneof(
      fc.constantFrom('second', 'minute', 'hour', '1 second', '1 day'),
      fc
        .tuple(
          fc.integer({ min: 2, max: 24 }),
          fc.constantFrom('seconds', 'minutes', 'hours', 'days'),
        )
        .map(([n, unit]) => `${n} ${unit}`),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('fixed', 'exponential'),
        duration,
        fc.option(duration, { nil: undefined }),
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        (kind, first, second, jitter, attempts) => {
          const firstMs = deferDuration(first);
          const secondMs = second === undefined ? undefined : deferDuration(second);
          const ranged = kind === 'exponential' && secondMs !== undefined && secondMs >= firstMs;
          const text = [
            kind,
            first,
            ranged ? `.. ${second}` : '',
            jitter ? 'with jitter' : '',
            attempts === undefined ? '' : `x ${attempts}`,
          ]
            .filter((part) => part !== '')
            .join(' ');
          const parsed = parseRetryLabel(text);
          expect(parsed.backoff).toBe(kind);
          expect(parsed.delay).toBe(firstMs);
          expect(parsed.maxDelay).toBe(ranged ? secondMs : firstMs);
          expect(parsed.jitter).toBe(jitter);
          expect(parsed.attempts).toBe(attempts);
        },
      ),
    );
  });

  it('answers every string with a policy or a TaskCronError', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        let outcome: unknown;
        try {
          const parsed = parseRetryLabel(value);
          outcome = parsed.maxDelay >= parsed.delay;
        } catch (error) {
          outcome = error instanceof TaskCronError;
        }
        expect(outcome).toBe(true);
      }),
    );
  });
});
