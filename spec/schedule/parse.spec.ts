import { TaskCronError } from '../../lib/errors.js';
import { parseSchedule, schedule, type Schedule } from '../../lib/schedule/index.js';
import { SCHEDULE_CACHE_LIMIT } from '../../lib/schedule/parse.js';

function messageOf(expression: string): string {
  try {
    parseSchedule(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskCronError);
    return (error as TaskCronError).message;
  }
  throw new Error(`${JSON.stringify(expression)} was accepted`);
}

// docs/semantics.md §4.5, both lists.
const invalidExamples = [
  '',
  '   ',
  'foo',
  'seconds',
  '1 seconds',
  '2 second',
  'second at **:30',
  '0 0 0 8 * * *',
  '60 0 8 * * *',
  'years',
  '8 years',
  '3 hour',
  'hours',
  'eight hours',
  'days',
  '5 day',
  'weeks 5',
  '18 4',
  '2 minutex',
  '2 minute',
  '1 minutes',
  '0 minutes',
  '-1 hours',
  '+2 hours',
  '02 hours',
  'Hour',
  'minute at **:30',
  'hour at 14:30',
  'day at 8:00',
  'day at 24:00',
  'day on Monday',
  'week at 06:00',
  'week on Wed',
  'month on the 15',
  'month on 15th',
  'month on the 2th',
  'month on the 32nd',
  'day at 08:00 in Mars/Phobos',
  'day at 08:00 in',
  '0 8 * *',
  '@daily',
  '60 * * * *',
  'H * * * *',
  '0 0 30 2 *',
];

const validExamples = [
  'second',
  '20 seconds',
  '0 0 8 * * *',
  '*/10 * * * * * in Europe/Berlin',
  'minute',
  '1 minute',
  '15 minutes',
  'hour at **:30',
  '4 hours at **:30',
  'day at 08:00',
  '5 days at 08:00',
  'week on Wednesday',
  '2 weeks on wednesday at 06:00',
  'month on the 15th',
  '3 months on the 15th at 17:00',
  'day at 08:00 in Europe/Berlin',
  '0 9 * * 1-5',
  '*/15 * * * * in America/New_York',
  '  2   weeks  on  Friday  ',
];

describe('parseSchedule: the validity examples of §4.5', () => {
  it.each(invalidExamples)('rejects %j', (expression) => {
    expect(() => parseSchedule(expression)).toThrow(TaskCronError);
    expect(() => schedule(expression, new Date('2023-09-28T14:23:24.161Z'))).toThrow(TaskCronError);
  });

  it.each(validExamples)('accepts %j', (expression) => {
    expect(() => parseSchedule(expression)).not.toThrow();
    expect(() => schedule(expression, new Date('2023-09-28T14:23:24.161Z'))).not.toThrow();
  });
});

// User-facing text: every message quotes the expression and says what was
// expected at which word.
const messages: readonly (readonly [string, string])[] = [
  // empty
  ['', '"": the expression is empty'],
  [' \t ', '" \\t ": the expression is empty'],
  ['   ', '"   ": the expression is empty'],
  // units
  [
    'foo',
    '"foo": expected a unit (second, minute, hour, day, week, month or a plural) or a five- or six-field cron expression, got "foo"',
  ],
  [
    'seconds',
    '"seconds": a plural unit needs a quantity before it, e.g. "2 seconds"; for one, write "second"',
  ],
  ['1 seconds', '"1 seconds": a quantity of 1 needs the singular "second"'],
  ['2 second', '"2 second": a quantity of 2 or more needs the plural "seconds"'],
  ['second at **:30', '"second at **:30": unexpected "at" after "second"; seconds take no clause'],
  ['Seconds', '"Seconds": unit names are lower case; write "seconds"'],
  [
    'years',
    '"years": expected a unit (second, minute, hour, day, week, month or a plural) or a five- or six-field cron expression, got "years"',
  ],
  [
    '8 years',
    '"8 years": expected a unit (second, minute, hour, day, week, month or a plural) or a five- or six-field cron expression, got "years"',
  ],
  [
    '2 minutex',
    '"2 minutex": expected a unit (second, minute, hour, day, week, month or a plural) or a five- or six-field cron expression, got "minutex"; did you mean "2 minutes"?',
  ],
  ['Hour', '"Hour": unit names are lower case; write "hour"'],
  ['5 Hours', '"5 Hours": unit names are lower case; write "hours"'],
  ['Week on Monday at 06:00', '"Week on Monday at 06:00": unit names are lower case; write "week"'],
  // singular and plural
  ['5 hour', '"5 hour": a quantity of 2 or more needs the plural "hours"'],
  ['3 hour', '"3 hour": a quantity of 2 or more needs the plural "hours"'],
  ['5 day', '"5 day": a quantity of 2 or more needs the plural "days"'],
  ['2 minute', '"2 minute": a quantity of 2 or more needs the plural "minutes"'],
  ['1 minutes', '"1 minutes": a quantity of 1 needs the singular "minute"'],
  [
    'hours',
    '"hours": a plural unit needs a quantity before it, e.g. "2 hours"; for one, write "hour"',
  ],
  ['days', '"days": a plural unit needs a quantity before it, e.g. "2 days"; for one, write "day"'],
  [
    'weeks 5',
    '"weeks 5": a plural unit needs a quantity before it, e.g. "2 weeks"; for one, write "week"',
  ],
  // quantities
  ['0 minutes', '"0 minutes": the quantity must be at least 1, got "0"'],
  ['-1 hours', '"-1 hours": the quantity must be digits without a sign, got "-1"'],
  ['+2 hours', '"+2 hours": the quantity must be digits without a sign, got "+2"'],
  ['02 hours', '"02 hours": the quantity must not start with 0, got "02"'],
  ['00 hours', '"00 hours": the quantity must not start with 0, got "00"'],
  ['1000001 minutes', '"1000001 minutes": the quantity must be at most 1000000, got "1000001"'],
  [
    '99999999999999999999 days',
    '"99999999999999999999 days": the quantity must be at most 1000000, got "99999999999999999999"',
  ],
  [
    'eight hours',
    '"eight hours": expected a quantity in digits before "hours" (e.g. "5 hours"), got "eight"; did you mean "8 hours"?',
  ],
  [
    '1.5 hours',
    '"1.5 hours": expected a quantity in digits before "hours" (e.g. "5 hours"), got "1.5"',
  ],
  // clauses on the wrong unit
  ['minute at **:30', '"minute at **:30": unexpected "at" after "minute"; minutes take no clause'],
  ['day on Monday', '"day on Monday": unexpected "on" after "day"; days take only "at HH:MM"'],
  [
    'week at 06:00',
    '"week at 06:00": unexpected "at" after "week"; weeks take only "on WEEKDAY [at HH:MM]"',
  ],
  [
    'month at 06:00',
    '"month at 06:00": unexpected "at" after "month"; months take only "on the ORDINAL [at HH:MM]"',
  ],
  ['hour on Monday', '"hour on Monday": unexpected "on" after "hour"; hours take only "at **:MM"'],
  [
    'hour at 14:30',
    '"hour at 14:30": expected "**:MM" after "at" (the minute past every hour, 00-59, e.g. "**:30"), got "14:30"',
  ],
  [
    'hour at **:60',
    '"hour at **:60": expected "**:MM" after "at" (the minute past every hour, 00-59, e.g. "**:30"), got "**:60"',
  ],
  // times
  [
    'day at 8:00',
    '"day at 8:00": expected a time HH:MM after "at" (two-digit hour 00-23, minutes 00-59), got "8:00"; did you mean "day at 08:00"?',
  ],
  [
    'day at 24:00',
    '"day at 24:00": expected a time HH:MM after "at" (two-digit hour 00-23, minutes 00-59), got "24:00"',
  ],
  [
    'day at 08:60',
    '"day at 08:60": expected a time HH:MM after "at" (two-digit hour 00-23, minutes 00-59), got "08:60"',
  ],
  [
    'day at',
    '"day at": expected a time HH:MM after "at" (two-digit hour 00-23, minutes 00-59), but the expression ends',
  ],
  [
    'week on Monday at 6:00',
    '"week on Monday at 6:00": expected a time HH:MM after "at" (two-digit hour 00-23, minutes 00-59), got "6:00"; did you mean "week on Monday at 06:00"?',
  ],
  // weekdays and ordinals
  [
    'week on Wed',
    '"week on Wed": expected a full weekday name (Monday ... Sunday) after "on", got "Wed"; did you mean "week on Wednesday"?',
  ],
  [
    'week on',
    '"week on": expected a full weekday name (Monday ... Sunday) after "on", but the expression ends',
  ],
  [
    'month on 15th',
    '"month on 15th": expected "the" after "on" (as in "on the 15th"), got "15th"; did you mean "month on the 15th"?',
  ],
  [
    'month on the 15',
    '"month on the 15": expected the day of the month as an ordinal (1st, 2nd, 3rd, 4th ... 31st) after "on the", got "15"; did you mean "month on the 15th"?',
  ],
  [
    'month on the 01st',
    '"month on the 01st": expected the day of the month as an ordinal (1st, 2nd, 3rd, 4th ... 31st) after "on the", got "01st"; did you mean "month on the 1st"?',
  ],
  ['month on the 2th', '"month on the 2th": "2th" has the wrong suffix; write "2nd"'],
  ['month on the 11st', '"month on the 11st": "11st" has the wrong suffix; write "11th"'],
  ['month on the 23th', '"month on the 23th": "23th" has the wrong suffix; write "23rd"'],
  [
    'month on the 32nd',
    '"month on the 32nd": the day of the month must be 1st to 31st, got "32nd"',
  ],
  ['month on the 0th', '"month on the 0th": the day of the month must be 1st to 31st, got "0th"'],
  // trailing words and zones
  [
    'day at 08:00 extra',
    '"day at 08:00 extra": unexpected "extra" after "08:00"; days take only "at HH:MM"',
  ],
  ['hour 5', '"hour 5": unexpected "5" after "hour"; hours take only "at **:MM"'],
  ['day at 08:00 in Mars/Phobos', '"day at 08:00 in Mars/Phobos": unknown time zone "Mars/Phobos"'],
  ['day at 08:00 in', '"day at 08:00 in": expected a time zone name after "in"'],
  ['0 8 * * * in', '"0 8 * * * in": expected a time zone name after "in"'],
  ['day in UTC at 08:00', '"day in UTC at 08:00": the zone suffix "in ZONE" must come last'],
  ['in Europe/Berlin', '"in Europe/Berlin": the zone suffix "in ZONE" must come last'],
  // cron
  [
    '0 0 0 8 * * *',
    '"0 0 0 8 * * *": a cron expression has five fields (minute hour day-of-month month day-of-week), or six with a seconds field first; got 7',
  ],
  [
    '0 8 * *',
    '"0 8 * *": a cron expression has five fields (minute hour day-of-month month day-of-week), or six with a seconds field first; got 4',
  ],
  [
    '18 4',
    '"18 4": a cron expression has five fields (minute hour day-of-month month day-of-week), or six with a seconds field first; got 2',
  ],
  ['60 0 8 * * *', '"60 0 8 * * *": second field "60": value 60 is out of range 0-59'],
  ['x 0 8 * * *', '"x 0 8 * * *": second field "x": unexpected "x"'],
  ['*/0 0 8 * * *', '"*/0 0 8 * * *": second field "*/0": a step must be a number of 1 or more'],
  ['0 60 8 * * *', '"0 60 8 * * *": minute field "60": value 60 is out of range 0-59'],
  [
    '0 0 0 30 2 *',
    '"0 0 0 30 2 *": day-of-month "30" never occurs in month "2"; the expression would never fire',
  ],
  [
    '@daily',
    '"@daily": macros such as "@daily" are not supported; write the five fields, e.g. "0 0 * * *"; did you mean "day"?',
  ],
  [
    '@every 5m',
    '"@every 5m": macros such as "@every" are not supported; write the five fields (minute hour day-of-month month day-of-week); did you mean "5 minutes"?',
  ],
  [
    'H * * * *',
    '"H * * * *": minute field "H": the hash symbol H is not supported; give explicit values',
  ],
  [
    '0 H(0-5) * * *',
    '"0 H(0-5) * * *": hour field "H(0-5)": the hash symbol H is not supported; give explicit values',
  ],
  ['60 * * * *', '"60 * * * *": minute field "60": value 60 is out of range 0-59'],
  ['0 24 * * *', '"0 24 * * *": hour field "24": value 24 is out of range 0-23'],
  ['0 0 0 * *', '"0 0 0 * *": day-of-month field "0": value 0 is out of range 1-31'],
  ['0 0 * 13 *', '"0 0 * 13 *": month field "13": value 13 is out of range 1-12'],
  ['0 0 * * 8', '"0 0 * * 8": day-of-week field "8": value 8 is out of range 0-7'],
  ['1-60 * * * *', '"1-60 * * * *": minute field "1-60": range 1-60 goes beyond 0-59'],
  ['5-1 * * * *', '"5-1 * * * *": minute field "5-1": range 5-1 runs backwards'],
  ['*/0 * * * *', '"*/0 * * * *": minute field "*/0": a step must be a number of 1 or more'],
  ['1,,2 * * * *', '"1,,2 * * * *": minute field "1,,2": malformed list'],
  ['1,1 * * * *', '"1,1 * * * *": minute field "1,1": value 1 is listed twice'],
  [
    '0 0 * * 0,7',
    '"0 0 * * 0,7": day-of-week field "0,7": Sunday is listed twice (0, 7 and SUN all mean Sunday)',
  ],
  ['a b c d e', '"a b c d e": minute field "a": unexpected "a"'],
  ['0 0 LW * *', '"0 0 LW * *": day-of-month field "LW": unexpected "LW"'],
  [
    '0 0 * JANUARY *',
    '"0 0 * JANUARY *": month field "JANUARY": unknown name "JANUARY" (expected JAN ... DEC)',
  ],
  [
    '0 0 * * SUNDAY',
    '"0 0 * * SUNDAY": day-of-week field "SUNDAY": unknown name "SUNDAY" (expected SUN ... SAT)',
  ],
  ['0 0 * MON *', '"0 0 * MON *": month field "MON": unknown name "MON" (expected JAN ... DEC)'],
  [
    '0 0 * * L',
    '"0 0 * * L": day-of-week field "L": "L" needs a weekday before it (e.g. "5L", the last Friday)',
  ],
  [
    '0 0 * * 1#6',
    '"0 0 * * 1#6": day-of-week field "1#6": the occurrence after "#" must be 1 to 5',
  ],
  ['0 0 * * 1#2,3', '"0 0 * * 1#2,3": day-of-week field "1#2,3": "#" cannot be combined with ","'],
  [
    '0 0 30 2 *',
    '"0 0 30 2 *": day-of-month "30" never occurs in month "2"; the expression would never fire',
  ],
  [
    '0 0 31 4,6,9,11 *',
    '"0 0 31 4,6,9,11 *": day-of-month "31" never occurs in month "4,6,9,11"; the expression would never fire',
  ],
];

describe('parseSchedule: error messages', () => {
  it('pins at least thirty of them', () => {
    expect(messages.length).toBeGreaterThanOrEqual(30);
  });

  it('pins the message of every invalid example of §4.5', () => {
    const pinned = new Set(messages.map(([expression]) => expression));
    expect(invalidExamples.filter((expression) => !pinned.has(expression))).toEqual([]);
  });

  it.each(messages)('explains %j', (expression, message) => {
    expect(messageOf(expression)).toBe(message);
  });

  it('rejects a value that is not a string', () => {
    expect(() => parseSchedule(5 as unknown as string)).toThrow(
      new TaskCronError('expected the expression as a string, got number'),
    );
  });
});

describe('parseSchedule: the Schedule', () => {
  const week = {
    kind: 'interval',
    unit: 'week',
    quantity: 1,
    weekday: 'monday',
    at: { hour: 0, minute: 0 },
    zone: 'UTC',
  };

  it.each<[string, Schedule]>([
    ['minute', { kind: 'interval', unit: 'minute', quantity: 1, zone: 'UTC' }],
    ['1 minute', { kind: 'interval', unit: 'minute', quantity: 1, zone: 'UTC' }],
    ['1000000 minutes', { kind: 'interval', unit: 'minute', quantity: 1_000_000, zone: 'UTC' }],
    ['hour', { kind: 'interval', unit: 'hour', quantity: 1, minute: 0, zone: 'UTC' }],
    ['4 hours at **:30', { kind: 'interval', unit: 'hour', quantity: 4, minute: 30, zone: 'UTC' }],
    [
      '5 days at 08:00',
      { kind: 'interval', unit: 'day', quantity: 5, at: { hour: 8, minute: 0 }, zone: 'UTC' },
    ],
    [
      '2 weeks on wednesday at 06:00',
      {
        kind: 'interval',
        unit: 'week',
        quantity: 2,
        weekday: 'wednesday',
        at: { hour: 6, minute: 0 },
        zone: 'UTC',
      },
    ],
    [
      '3 months on the 15th at 17:00',
      {
        kind: 'interval',
        unit: 'month',
        quantity: 3,
        dayOfMonth: 15,
        at: { hour: 17, minute: 0 },
        zone: 'UTC',
      },
    ],
    [
      'month',
      {
        kind: 'interval',
        unit: 'month',
        quantity: 1,
        dayOfMonth: 1,
        at: { hour: 0, minute: 0 },
        zone: 'UTC',
      },
    ],
    [
      'day at 08:00 in Europe/Berlin',
      {
        kind: 'interval',
        unit: 'day',
        quantity: 1,
        at: { hour: 8, minute: 0 },
        zone: 'Europe/Berlin',
      },
    ],
    [
      '*/15 * * * * in America/New_York',
      { kind: 'cron', fields: ['*/15', '*', '*', '*', '*'], zone: 'America/New_York' },
    ],
    ['0 9 * * mon-FRI', { kind: 'cron', fields: ['0', '9', '*', '*', 'mon-FRI'], zone: 'UTC' }],
    ['second', { kind: 'interval', unit: 'second', quantity: 1, zone: 'UTC' }],
    ['1 second', { kind: 'interval', unit: 'second', quantity: 1, zone: 'UTC' }],
    ['90 seconds', { kind: 'interval', unit: 'second', quantity: 90, zone: 'UTC' }],
    [
      '*/10 0 8 * * * in Europe/Berlin',
      {
        kind: 'cron',
        second: '*/10',
        fields: ['0', '8', '*', '*', '*'],
        zone: 'Europe/Berlin',
      },
    ],
  ])('reads %j', (expression, expected) => {
    expect(parseSchedule(expression)).toEqual(expected);
  });

  it('gives the same Schedule to spellings of the same grid', () => {
    for (const spelling of ['week', '1 week', 'week on Monday', 'week on MONDAY at 00:00']) {
      expect(parseSchedule(spelling)).toEqual(week);
    }
    expect(parseSchedule(' \t2   weeks  on  Friday\n')).toEqual({
      ...week,
      quantity: 2,
      weekday: 'friday',
    });
  });

  it('reads "in" as a zone suffix only at the end of three or more words', () => {
    expect(parseSchedule('hour in Asia/Kolkata')).toMatchObject({ zone: 'Asia/Kolkata' });
    expect(parseSchedule('0 8 * * * in Europe/Berlin')).toMatchObject({
      kind: 'cron',
      zone: 'Europe/Berlin',
    });
    expect(messageOf('hour in')).toBe('"hour in": expected a time zone name after "in"');
  });

  it('takes weekday names in any case, keywords and units in lower case only', () => {
    expect(parseSchedule('week on sUnDaY')).toMatchObject({ weekday: 'sunday' });
    expect(messageOf('week ON Monday')).toBe(
      '"week ON Monday": unexpected "ON" after "week"; weeks take only "on WEEKDAY [at HH:MM]"; did you mean "week on Monday"?',
    );
    expect(messageOf('month on THE 1st')).toBe(
      '"month on THE 1st": expected "the" after "on" (as in "on the 15th"), got "THE"',
    );
  });

  it('accepts every ordinal from 1st to 31st with its English suffix', () => {
    const ordinals = Array.from({ length: 31 }, (_, index) => index + 1).map((day) => {
      const suffix =
        day % 10 === 1 && day !== 11
          ? 'st'
          : day % 10 === 2 && day !== 12
            ? 'nd'
            : day % 10 === 3 && day !== 13
              ? 'rd'
              : 'th';
      return [day, `${day}${suffix}`] as const;
    });
    expect(ordinals.slice(0, 4).map(([, word]) => word)).toEqual(['1st', '2nd', '3rd', '4th']);
    expect(ordinals.slice(10, 13).map(([, word]) => word)).toEqual(['11th', '12th', '13th']);
    expect(ordinals.slice(20, 24).map(([, word]) => word)).toEqual([
      '21st',
      '22nd',
      '23rd',
      '24th',
    ]);
    for (const [day, word] of ordinals) {
      expect(parseSchedule(`month on the ${word}`)).toMatchObject({ dayOfMonth: day });
    }
  });

  it('accepts the cron syntax cron-parser reads', () => {
    for (const expression of [
      '0 0 * * 0',
      '0 0 * * 7',
      '0 0 * * SUN',
      '0 0 * * sun,Sat',
      '0 0 * jan-MAR *',
      '*/5 1-5/2 1,15 * *',
      '0 0 L * *',
      '0 0 * * 5L',
      '0 0 * * friL',
      '0 0 * * 1#2',
      '0 0 ? * *',
      '0 0 * * ?',
      '0 0 29 2 *',
    ]) {
      expect(parseSchedule(expression)).toMatchObject({ kind: 'cron' });
    }
  });
});

describe('parseSchedule: the cache', () => {
  it('parses an expression once and returns the same frozen Schedule', () => {
    const first = parseSchedule('17 minutes in Europe/Berlin');
    expect(parseSchedule('17 minutes in Europe/Berlin')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const cron = parseSchedule('0 8 * * 1-5');
    expect(cron.kind === 'cron' && Object.isFrozen(cron.fields)).toBe(true);
  });

  it('remembers rejections too, with the same message', () => {
    expect(messageOf('3 hour')).toBe(messageOf('3 hour'));
  });

  it('keeps a bounded number of expressions, dropping the oldest', () => {
    const oldest = parseSchedule('19 minutes');
    for (let quantity = 2; quantity < SCHEDULE_CACHE_LIMIT + 10; quantity += 1) {
      parseSchedule(`${quantity} hours`);
    }
    const again = parseSchedule('19 minutes');
    expect(again).not.toBe(oldest);
    expect(again).toEqual(oldest);
  });
});
