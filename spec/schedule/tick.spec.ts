import { TaskCronError } from '../../lib/errors.js';
import { schedule } from '../../lib/schedule/index.js';
import { text } from './helpers.js';

function ticksAt(expression: string, now: string): [string, string] {
  const { tickM1, tickP1 } = schedule(expression, new Date(now));
  return [text(tickM1), text(tickP1)];
}

/** upcoming lists the next `count` ticks after `from`, following tick+1. */
function upcoming(expression: string, from: string, count: number): string[] {
  const ticks: string[] = [];
  let now = new Date(from);
  while (ticks.length < count) {
    now = schedule(expression, now).tickP1;
    ticks.push(text(now));
  }
  return ticks;
}

describe('schedule: the grids of docs/semantics.md §4.3', () => {
  it('runs `7 minutes` through the top of the hour and the year end', () => {
    expect(upcoming('7 minutes', '2023-09-28T14:45:00Z', 4)).toEqual([
      '2023-09-28T14:49:00Z',
      '2023-09-28T14:56:00Z',
      '2023-09-28T15:03:00Z',
      '2023-09-28T15:10:00Z',
    ]);
    expect(upcoming('7 minutes', '2023-12-31T23:50:00Z', 3)).toEqual([
      '2023-12-31T23:54:00Z',
      '2024-01-01T00:01:00Z',
      '2024-01-01T00:08:00Z',
    ]);
  });

  it('starts every day on a point for `45 minutes` and `90 minutes`; `120 minutes` is every even hour', () => {
    expect(
      upcoming('45 minutes', '2023-09-27T23:59:00Z', 5).map((tick) => tick.slice(11, 16)),
    ).toEqual(['00:00', '00:45', '01:30', '02:15', '03:00']);
    expect(
      upcoming('90 minutes', '2023-09-27T23:59:00Z', 3).map((tick) => tick.slice(11, 16)),
    ).toEqual(['00:00', '01:30', '03:00']);
    expect(upcoming('120 minutes', '2023-09-28T00:30:00Z', 3)).toEqual(
      upcoming('2 hours', '2023-09-28T00:30:00Z', 3),
    );
  });

  it('gives the familiar points where N divides 60, 24 or 12', () => {
    expect(
      upcoming('15 minutes', '2023-09-28T13:59:00Z', 5).map((tick) => tick.slice(11, 16)),
    ).toEqual(['14:00', '14:15', '14:30', '14:45', '15:00']);
    expect(
      upcoming('6 hours', '2023-09-27T23:00:00Z', 4).map((tick) => tick.slice(11, 13)),
    ).toEqual(['00', '06', '12', '18']);
    expect(
      upcoming('3 months', '2022-12-31T00:00:00Z', 4).map((tick) => tick.slice(0, 10)),
    ).toEqual(['2023-01-01', '2023-04-01', '2023-07-01', '2023-10-01']);
  });

  it('runs `5 hours` and `25 hours` across midnight', () => {
    expect(
      upcoming('5 hours', '2023-09-28T00:00:00Z', 14).map((tick) => tick.slice(8, 13)),
    ).toEqual([
      '28T03',
      '28T08',
      '28T13',
      '28T18',
      '28T23',
      '29T04',
      '29T09',
      '29T14',
      '29T19',
      '30T00',
      '30T05',
      '30T10',
      '30T15',
      '30T20',
    ]);
    expect(upcoming('25 hours', '2023-09-28T00:00:00Z', 3)).toEqual([
      '2023-09-28T03:00:00Z',
      '2023-09-29T04:00:00Z',
      '2023-09-30T05:00:00Z',
    ]);
  });

  it('runs day, week and month grids across year ends', () => {
    expect(upcoming('3 days', '2022-12-29T00:00:00Z', 3)).toEqual([
      '2022-12-30T00:00:00Z',
      '2023-01-02T00:00:00Z',
      '2023-01-05T00:00:00Z',
    ]);
    expect(upcoming('2 weeks', '2022-12-20T00:00:00Z', 2)).toEqual([
      '2022-12-26T00:00:00Z',
      '2023-01-09T00:00:00Z',
    ]);
    expect(upcoming('5 months', '2023-09-01T00:00:00Z', 5).map((tick) => tick.slice(0, 7))).toEqual(
      ['2023-10', '2024-03', '2024-08', '2025-01', '2025-06'],
    );
  });

  it('clamps `on the 31st` to the last day of shorter months', () => {
    expect(
      upcoming('month on the 31st', '2024-01-01T00:00:00Z', 4).map((tick) => tick.slice(0, 10)),
    ).toEqual(['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30']);
    expect(
      upcoming('month on the 29th', '2023-01-30T00:00:00Z', 2).map((tick) => tick.slice(0, 10)),
    ).toEqual(['2023-02-28', '2023-03-29']);
  });

  it("anchors a zone's grid at its own local midnight of 1970-01-01", () => {
    expect(upcoming('45 minutes in Asia/Kolkata', '2023-09-28T13:59:00Z', 2)).toEqual([
      '2023-09-28T14:00:00Z',
      '2023-09-28T14:45:00Z',
    ]);
    expect(upcoming('45 minutes', '2023-09-28T14:00:00Z', 2)).toEqual([
      '2023-09-28T14:15:00Z',
      '2023-09-28T15:00:00Z',
    ]);
    // Pacific/Chatham is UTC+12:45 in winter: its local hours fall at :15 UTC.
    expect(ticksAt('hour in Pacific/Chatham', '2023-06-01T00:00:00Z')).toEqual([
      '2023-05-31T23:15:00Z',
      '2023-06-01T00:15:00Z',
    ]);
  });

  it('keeps points one step apart in wall-clock time across a DST switch', () => {
    expect(upcoming('5 hours in Europe/Berlin', '2023-03-25T19:00:00Z', 3)).toEqual([
      '2023-03-25T20:00:00Z', // 21:00 CET
      '2023-03-26T01:00:00Z', // 02:00 does not exist: the end of the gap
      '2023-03-26T05:00:00Z', // 07:00 CEST
    ]);
  });
});

describe('schedule: daylight saving time in other zones', () => {
  it.each([
    // America/Sao_Paulo skipped midnight: the day's point fires at 01:00 local.
    [
      'day in America/Sao_Paulo',
      '2018-11-04T12:00:00Z',
      '2018-11-04T03:00:00Z',
      '2018-11-05T02:00:00Z',
    ],
    [
      'day in America/Sao_Paulo',
      '2018-11-04T02:30:00Z',
      '2018-11-03T03:00:00Z',
      '2018-11-04T03:00:00Z',
    ],
    // Australia/Lord_Howe moves its clocks by 30 minutes.
    [
      '30 minutes in Australia/Lord_Howe',
      '2023-09-30T15:15:00Z',
      '2023-09-30T15:00:00Z',
      '2023-09-30T15:30:00Z',
    ],
    [
      '30 minutes in Australia/Lord_Howe',
      '2023-09-30T15:30:00Z',
      '2023-09-30T15:00:00Z',
      '2023-09-30T16:00:00Z',
    ],
    [
      '30 minutes in Australia/Lord_Howe',
      '2023-04-01T15:10:00Z',
      '2023-04-01T14:30:00Z',
      '2023-04-01T15:30:00Z',
    ],
    // Pacific/Apia skipped 30 December 2011 entirely.
    ['day in Pacific/Apia', '2011-12-30T12:00:00Z', '2011-12-30T10:00:00Z', '2011-12-31T10:00:00Z'],
    [
      'hour in Pacific/Apia',
      '2011-12-30T10:00:00Z',
      '2011-12-30T09:00:00Z',
      '2011-12-30T11:00:00Z',
    ],
    [
      'minute in Pacific/Apia',
      '2011-12-30T10:00:00Z',
      '2011-12-30T09:59:00Z',
      '2011-12-30T10:01:00Z',
    ],
    // cron fields follow the same resolve()
    [
      '30 2 * * * in America/New_York',
      '2023-03-12T12:00:00Z',
      '2023-03-12T07:00:00Z',
      '2023-03-13T06:30:00Z',
    ],
    [
      '*/15 * * * * in Europe/Berlin',
      '2023-10-29T01:30:00Z',
      '2023-10-29T00:45:00Z',
      '2023-10-29T02:00:00Z',
    ],
    [
      '* * * * * in Europe/Berlin',
      '2023-10-29T01:30:00Z',
      '2023-10-29T00:59:00Z',
      '2023-10-29T02:00:00Z',
    ],
  ])('%s at %s', (expression, now, tickM1, tickP1) => {
    expect(ticksAt(expression, now)).toEqual([tickM1, tickP1]);
  });
});

describe('schedule: cron expressions', () => {
  it.each([
    ['0 0 29 2 *', '2097-01-01T00:00:00Z', '2096-02-29T00:00:00Z', '2104-02-29T00:00:00Z'],
    ['0 0 * 2 1#5', '2023-06-01T00:00:00Z', '2016-02-29T00:00:00Z', '2044-02-29T00:00:00Z'],
    ['0 0 L * *', '2024-02-15T00:00:00Z', '2024-01-31T00:00:00Z', '2024-02-29T00:00:00Z'],
    ['0 0 * * 5L', '2023-09-28T00:00:00Z', '2023-08-25T00:00:00Z', '2023-09-29T00:00:00Z'],
    ['0 12 * * 1#2', '2023-09-28T00:00:00Z', '2023-09-11T12:00:00Z', '2023-10-09T12:00:00Z'],
    ['0 0 ? * MON', '2023-09-28T00:00:00Z', '2023-09-25T00:00:00Z', '2023-10-02T00:00:00Z'],
    ['15 10 * JAN,jul *', '2023-09-28T00:00:00Z', '2023-07-31T10:15:00Z', '2024-01-01T10:15:00Z'],
    ['0 0 1 1 *', '1970-06-01T00:00:00Z', '1970-01-01T00:00:00Z', '1971-01-01T00:00:00Z'],
  ])('%s at %s', (expression, now, tickM1, tickP1) => {
    expect(ticksAt(expression, now)).toEqual([tickM1, tickP1]);
  });

  it('reads 0, 7 and SUN alike as Sunday', () => {
    const sundays = ticksAt('0 0 * * 0', '2023-09-28T00:00:00Z');
    expect(sundays).toEqual(['2023-09-24T00:00:00Z', '2023-10-01T00:00:00Z']);
    expect(ticksAt('0 0 * * 7', '2023-09-28T00:00:00Z')).toEqual(sundays);
    expect(ticksAt('0 0 * * sun', '2023-09-28T00:00:00Z')).toEqual(sundays);
    expect(ticksAt('0 0 * * FRIL', '2023-09-28T00:00:00Z')).toEqual(
      ticksAt('0 0 * * 5L', '2023-09-28T00:00:00Z'),
    );
  });

  it('matches either day field when both are restricted', () => {
    // X07: the 13th or a Friday.
    expect(upcoming('0 0 13 * 5', '2023-09-28T00:00:00Z', 3)).toEqual([
      '2023-09-29T00:00:00Z',
      '2023-10-06T00:00:00Z',
      '2023-10-13T00:00:00Z',
    ]);
    expect(upcoming('0 0 13 * *', '2023-09-28T00:00:00Z', 1)).toEqual(['2023-10-13T00:00:00Z']);
  });
});

describe('schedule: tick-1 < now < tick+1, strictly', () => {
  it('skips a point that now is exactly on, not one a millisecond before', () => {
    expect(ticksAt('hour', '2023-09-28T14:00:00Z')).toEqual([
      '2023-09-28T13:00:00Z',
      '2023-09-28T15:00:00Z',
    ]);
    expect(ticksAt('hour', '2023-09-28T14:00:00.001Z')).toEqual([
      '2023-09-28T14:00:00Z',
      '2023-09-28T15:00:00Z',
    ]);
    expect(ticksAt('hour', '2023-09-28T13:59:59.999Z')).toEqual([
      '2023-09-28T13:00:00Z',
      '2023-09-28T14:00:00Z',
    ]);
    expect(ticksAt('0 * * * *', '2023-09-28T14:00:00Z')).toEqual([
      '2023-09-28T13:00:00Z',
      '2023-09-28T15:00:00Z',
    ]);
  });
});

describe('schedule: the range of ticks', () => {
  it('reaches the far ends of the largest quantities', () => {
    expect(ticksAt('1000000 minutes', '2023-09-28T14:23:24.161Z')).toEqual([
      '2023-03-28T10:40:00Z',
      '2025-02-19T21:20:00Z',
    ]);
    expect(ticksAt('1000000 hours', '2023-09-28T14:23:24.161Z')).toEqual([
      '1970-01-01T00:00:00Z',
      '2084-01-29T16:00:00Z',
    ]);
    expect(ticksAt('1000000 days', '2023-09-28T14:23:24.161Z')).toEqual([
      '1970-01-01T00:00:00Z',
      '4707-11-29T00:00:00Z',
    ]);
    expect(ticksAt('hour', '9999-12-31T22:30:00Z')).toEqual([
      '9999-12-31T22:00:00Z',
      '9999-12-31T23:00:00Z',
    ]);
    expect(ticksAt('minute', '1970-01-01T00:00:30Z')).toEqual([
      '1970-01-01T00:00:00Z',
      '1970-01-01T00:01:00Z',
    ]);
  });

  it.each([
    [
      '1000000 weeks',
      '2023-09-28T14:23:24.161Z',
      '"1000000 weeks" at 2023-09-28T14:23:24.161Z: tick+1 would fall after 9999-12-31T23:59:59.999Z',
    ],
    [
      '1000000 months',
      '2023-09-28T14:23:24.161Z',
      '"1000000 months" at 2023-09-28T14:23:24.161Z: tick+1 would fall after 9999-12-31T23:59:59.999Z',
    ],
    [
      '1000000 hours in Asia/Kolkata',
      '2023-09-28T14:23:24.161Z',
      '"1000000 hours in Asia/Kolkata" at 2023-09-28T14:23:24.161Z: tick-1 would fall before 1970-01-01T00:00:00Z',
    ],
    [
      'month',
      '1970-01-01T00:00:00Z',
      '"month" at 1970-01-01T00:00:00Z: tick-1 would fall before 1970-01-01T00:00:00Z',
    ],
    [
      'minute',
      '1969-12-31T23:59:30Z',
      '"minute" at 1969-12-31T23:59:30Z: tick-1 would fall before 1970-01-01T00:00:00Z',
    ],
    [
      'hour',
      '9999-12-31T23:30:00Z',
      '"hour" at 9999-12-31T23:30:00Z: tick+1 would fall after 9999-12-31T23:59:59.999Z',
    ],
    [
      '0 0 1 1 *',
      '9999-06-01T00:00:00Z',
      '"0 0 1 1 *" at 9999-06-01T00:00:00Z: tick+1 would fall after 9999-12-31T23:59:59.999Z',
    ],
  ])('rejects %s at %s', (expression, now, message) => {
    expect(() => schedule(expression, new Date(now))).toThrow(new TaskCronError(message));
    expect(() => schedule(expression, new Date(now))).toThrow(TaskCronError);
  });

  it('rejects a now that is not a valid Date', () => {
    expect(() => schedule('hour', new Date(Number.NaN))).toThrow(TypeError);
    expect(() => schedule('hour', '2023-09-28T14:00:00Z' as unknown as Date)).toThrow(TypeError);
  });
});

describe('schedule: seconds', () => {
  it('steps `30 seconds` and `90 seconds` on grids anchored at the epoch', () => {
    expect(ticksAt('30 seconds', '2023-09-28T14:23:24.161Z')).toEqual([
      '2023-09-28T14:23:00Z',
      '2023-09-28T14:23:30Z',
    ]);
    expect(ticksAt('second', '2023-09-28T14:23:24.161Z')).toEqual([
      '2023-09-28T14:23:24Z',
      '2023-09-28T14:23:25Z',
    ]);
    // a day holds 960 points of 90 seconds, so every day starts on one
    expect(upcoming('90 seconds', '2023-09-28T23:57:00Z', 3)).toEqual([
      '2023-09-28T23:58:30Z',
      '2023-09-29T00:00:00Z',
      '2023-09-29T00:01:30Z',
    ]);
    // 7 seconds keeps stepping across minutes (1695911042 s from the epoch is 7 × 242273006)
    expect(upcoming('7 seconds', '2023-09-28T14:23:55Z', 2)).toEqual([
      '2023-09-28T14:24:02Z',
      '2023-09-28T14:24:09Z',
    ]);
  });

  it('skips a point that now is exactly on', () => {
    expect(ticksAt('10 seconds', '2023-09-28T14:23:20Z')).toEqual([
      '2023-09-28T14:23:10Z',
      '2023-09-28T14:23:30Z',
    ]);
  });

  it('fires once at the end of a gap for all the seconds inside it', () => {
    // 2023-03-26 02:00 to 03:00 does not exist in Berlin; 01:00Z is 03:00 CEST
    expect(ticksAt('10 seconds in Europe/Berlin', '2023-03-26T00:59:55Z')).toEqual([
      '2023-03-26T00:59:50Z',
      '2023-03-26T01:00:00Z',
    ]);
    expect(ticksAt('10 seconds in Europe/Berlin', '2023-03-26T01:00:00Z')).toEqual([
      '2023-03-26T00:59:50Z',
      '2023-03-26T01:00:10Z',
    ]);
  });

  it('reads a seconds field first in a six-field cron expression', () => {
    expect(ticksAt('*/15 * * * * *', '2023-09-28T14:23:24.161Z')).toEqual([
      '2023-09-28T14:23:15Z',
      '2023-09-28T14:23:30Z',
    ]);
    expect(ticksAt('30 0 8 * * *', '2023-09-28T14:23:24.161Z')).toEqual([
      '2023-09-28T08:00:30Z',
      '2023-09-29T08:00:30Z',
    ]);
    // five fields still mean second 0
    expect(ticksAt('0 8 * * *', '2023-09-28T14:23:24.161Z')).toEqual([
      '2023-09-28T08:00:00Z',
      '2023-09-29T08:00:00Z',
    ]);
  });
});
