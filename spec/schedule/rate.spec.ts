import { TaskCronError } from '../../lib/errors.js';
import { formatRate, parseRate } from '../../lib/schedule/index.js';

describe('parseRate', () => {
  it.each([
    ['100 per minute', 100, 60_000],
    ['10 per second', 10, 1_000],
    ['1 per hour', 1, 3_600_000],
    ['5 per 10 seconds', 5, 10_000],
    ['1000 per day', 1000, 86_400_000],
    ['7 per week', 7, 604_800_000],
    ['30 per month', 30, 2_592_000_000],
    ['  3   per  2 minutes ', 3, 120_000],
    ['1000000 per 1 second', 1_000_000, 1_000],
  ])('reads %j as %d per %d ms', (value, limit, windowMs) => {
    expect(parseRate(value)).toEqual({ limit, windowMs });
  });

  it.each([
    ['', '"": the rate is empty'],
    ['0 per minute', '"0 per minute": the limit must be at least 1, got "0"'],
    ['-1 per minute', '"-1 per minute": the limit must be digits without a sign, got "-1"'],
    ['01 per minute', '"01 per minute": the limit must not start with 0, got "01"'],
    [
      '1000001 per minute',
      '"1000001 per minute": the limit must be at most 1000000, got "1000001"',
    ],
    [
      '100 minute',
      '"100 minute": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"): expected "per" after "100", got "minute"',
    ],
    [
      '100/minute',
      '"100/minute": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"): expected the limit N in digits first, got "100/minute"; did you mean "100 per minute"?',
    ],
    [
      '100 a minute',
      '"100 a minute": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"): expected "per" after "100", got "a"; did you mean "100 per minute"?',
    ],
    [
      '100 per min',
      '"100 per min": a rate is "N per unit" or "N per M units" (e.g. "100 per minute") with a unit second, minute, hour, day, week or month after "per"; did you mean "100 per minute"?',
    ],
    [
      '100 per minutes',
      '"100 per minutes": a plural unit needs a quantity before it, e.g. "2 minutes"; for one, write "minute"; did you mean "100 per minute"?',
    ],
    [
      '100 per 5 min',
      '"100 per 5 min": a rate is "N per unit" or "N per M units" (e.g. "100 per minute") with a unit second, minute, hour, day, week or month after "per"; did you mean "100 per 5 minutes"?',
    ],
    ['100 per Minute', '"100 per Minute": unit names are lower case; write "minute"'],
    [
      '100 per',
      '"100 per": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"): expected a unit after "per", but the expression ends',
    ],
    [
      '100 per minute in UTC',
      '"100 per minute in UTC": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"); it takes no time zone',
    ],
    [
      '100 per day at 08:00',
      '"100 per day at 08:00": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"); it takes no clause, got "at"',
    ],
  ])('rejects %j', (value, message) => {
    expect(() => parseRate(value)).toThrow(new TaskCronError(message));
  });

  it('rejects a value that is not a string', () => {
    expect(() => parseRate(100 as unknown as string)).toThrow(TaskCronError);
  });

  it.each(['100 per minute', '10 per second', '5 per 10 seconds', '3 per 2 hours', '30 per month'])(
    'formats %j back to itself',
    (value) => {
      expect(formatRate(parseRate(value))).toBe(value);
    },
  );
});
