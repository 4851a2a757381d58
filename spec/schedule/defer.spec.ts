import { TaskCronError } from '../../lib/errors.js';
import { deferDuration } from '../../lib/schedule/index.js';

describe('deferDuration', () => {
  it.each([
    // docs/semantics.md §4.6
    ['2 hours', 7_200_000],
    ['month', 2_592_000_000],
    ['3 months', 7_776_000_000],
    // one of each unit
    ['second', 1_000],
    ['1 second', 1_000],
    ['30 seconds', 30_000],
    ['90 seconds', 90_000],
    ['1000000 seconds', 1_000_000_000],
    ['minute', 60_000],
    ['1 minute', 60_000],
    ['hour', 3_600_000],
    ['day', 86_400_000],
    ['1 day', 86_400_000],
    ['week', 604_800_000],
    ['1 month', 2_592_000_000],
    ['90 minutes', 5_400_000],
    ['7 days', 604_800_000],
    ['2 weeks', 1_209_600_000],
    ['  5   minutes ', 300_000],
    ['1000000 months', 2_592_000_000_000_000],
  ])('reads %j as %d ms', (value, ms) => {
    expect(deferDuration(value)).toBe(ms);
  });

  it.each([
    [
      'day at 08:00',
      '"day at 08:00": a @defer duration is "unit", "1 unit" or "N units" (e.g. "2 hours"); it takes no clause, got "at"',
    ],
    [
      'week on Monday',
      '"week on Monday": a @defer duration is "unit", "1 unit" or "N units" (e.g. "2 hours"); it takes no clause, got "on"',
    ],
    ['2 minute', '"2 minute": a quantity of 2 or more needs the plural "minutes"'],
    ['1 hours', '"1 hours": a quantity of 1 needs the singular "hour"'],
    [
      'hours',
      '"hours": a plural unit needs a quantity before it, e.g. "2 hours"; for one, write "hour"',
    ],
    ['0 days', '"0 days": the quantity must be at least 1, got "0"'],
    ['02 days', '"02 days": the quantity must not start with 0, got "02"'],
    ['-2 days', '"-2 days": the quantity must be digits without a sign, got "-2"'],
    ['1000001 days', '"1000001 days": the quantity must be at most 1000000, got "1000001"'],
    [
      '2 hours in UTC',
      '"2 hours in UTC": a @defer duration is "unit", "1 unit" or "N units" (e.g. "2 hours"); it takes no time zone',
    ],
    [
      '0 8 * * *',
      '"0 8 * * *": a @defer duration is "unit", "1 unit" or "N units" (e.g. "2 hours") with a unit second, minute, hour, day, week or month',
    ],
    ['1 seconds', '"1 seconds": a quantity of 1 needs the singular "second"'],
    ['30 Seconds', '"30 Seconds": unit names are lower case; write "seconds"'],
    ['2 Hours', '"2 Hours": unit names are lower case; write "hours"'],
    ['', '"": the @defer duration is empty'],
    ['  ', '"  ": the @defer duration is empty'],
  ])('rejects %j', (value, message) => {
    expect(() => deferDuration(value)).toThrow(new TaskCronError(message));
    expect(() => deferDuration(value)).toThrow(TaskCronError);
  });

  it('rejects a value that is not a string', () => {
    expect(() => deferDuration(undefined as unknown as string)).toThrow(
      new TaskCronError('expected the @defer duration as a string, got undefined'),
    );
  });
});
