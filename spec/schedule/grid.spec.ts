import { cronGrid } from '../../lib/schedule/cron.js';
import { intervalGrid } from '../../lib/schedule/grid.js';
import { parseSchedule, type IntervalSchedule } from '../../lib/schedule/index.js';
import { text } from './helpers.js';

const local = (iso: string): number => Date.parse(`${iso}Z`);

function interval(expression: string): IntervalSchedule {
  const parsed = parseSchedule(expression);
  if (parsed.kind !== 'interval') throw new Error(`${expression} is not an interval`);
  return parsed;
}

function neighbours(expression: string, at: string): [string, string] {
  const parsed = parseSchedule(expression);
  const grid = parsed.kind === 'cron' ? cronGrid(parsed) : intervalGrid(parsed);
  const before = grid.atOrBefore(local(at));
  const after = grid.after(local(at));
  if (before === undefined || after === undefined) throw new Error('no neighbour');
  return [text(before), text(after)];
}

describe('grids on the local calendar (docs/semantics.md §4.3)', () => {
  it('include a point equal to the local date-time in atOrBefore, never in after', () => {
    expect(neighbours('hour', '2023-09-28T14:00:00')).toEqual([
      '2023-09-28T14:00:00Z',
      '2023-09-28T15:00:00Z',
    ]);
    expect(neighbours('0 * * * *', '2023-09-28T14:00:00')).toEqual([
      '2023-09-28T14:00:00Z',
      '2023-09-28T15:00:00Z',
    ]);
    expect(neighbours('0 * * * *', '2023-09-28T13:59:59.999')).toEqual([
      '2023-09-28T13:00:00Z',
      '2023-09-28T14:00:00Z',
    ]);
  });

  it('extend before the epoch with floor division', () => {
    expect(neighbours('7 minutes', '1970-01-01T00:00:00')).toEqual([
      '1970-01-01T00:00:00Z',
      '1970-01-01T00:07:00Z',
    ]);
    expect(neighbours('7 minutes', '1969-12-31T23:59:59')).toEqual([
      '1969-12-31T23:53:00Z',
      '1970-01-01T00:00:00Z',
    ]);
    expect(neighbours('week', '1970-01-01T00:00:00')).toEqual([
      '1969-12-29T00:00:00Z',
      '1970-01-05T00:00:00Z',
    ]);
    expect(neighbours('5 months', '1969-12-15T00:00:00')).toEqual([
      '1969-08-01T00:00:00Z',
      '1970-01-01T00:00:00Z',
    ]);
  });

  it('anchor weeks at Monday 1970-01-05 and shift them by the weekday', () => {
    expect(neighbours('2 weeks', '2023-09-20T00:00:00')).toEqual([
      '2023-09-18T00:00:00Z',
      '2023-10-02T00:00:00Z',
    ]);
    expect(neighbours('2 weeks on Sunday at 18:30', '2023-09-20T00:00:00')).toEqual([
      '2023-09-10T18:30:00Z',
      '2023-09-24T18:30:00Z',
    ]);
  });

  it('clamp the ordinal to the month, even when local falls between the clamped and the nominal day', () => {
    expect(neighbours('month on the 31st', '2023-02-28T12:00:00')).toEqual([
      '2023-02-28T00:00:00Z',
      '2023-03-31T00:00:00Z',
    ]);
    expect(neighbours('month on the 15th at 12:00', '2023-03-15T11:59:00')).toEqual([
      '2023-02-15T12:00:00Z',
      '2023-03-15T12:00:00Z',
    ]);
    expect(intervalGrid(interval('month on the 31st')).after(local('2023-04-30T00:00:00'))).toBe(
      local('2023-05-31T00:00:00'),
    );
  });
});
