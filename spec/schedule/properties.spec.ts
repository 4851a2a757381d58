import fc from 'fast-check';
import { parseSchedule, schedule, type Schedule } from '../../lib/schedule/index.js';
import {
  isGridPoint,
  nextGridPoint,
  occurrences,
  offsetOf,
  oracleResolve,
  wallClock,
} from './oracle.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const DAY = 86_400_000;
const LAST_YEAR_START = Date.UTC(2100, 0, 1);

const zonesWithDst = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe', // moves its clocks by 30 minutes
  'Pacific/Chatham', // UTC+12:45 / +13:45
  'America/Sao_Paulo', // skipped midnight until 2019
];
const zones = ['UTC', 'Asia/Kolkata', ...zonesWithDst];

/** A generated expression: its text, and the longest step of its grid (to keep ticks in range). */
interface Generated {
  readonly expression: string;
  readonly stepMs: number;
}

const two = (value: number): string => String(value).padStart(2, '0');
const timeOfDay = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([hour, minute]) => `${two(hour)}:${two(minute)}`);
const ordinal = fc.integer({ min: 1, max: 31 }).map((day) => {
  const suffix =
    day % 10 === 1 && day !== 11
      ? 'st'
      : day % 10 === 2 && day !== 12
        ? 'nd'
        : day % 10 === 3 && day !== 13
          ? 'rd'
          : 'th';
  return `${day}${suffix}`;
});
const weekday = fc
  .tuple(
    fc.constantFrom('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'),
    fc.constantFrom('as is', 'lower', 'upper'),
  )
  .map(([name, letterCase]) =>
    letterCase === 'lower'
      ? name.toLowerCase()
      : letterCase === 'upper'
        ? name.toUpperCase()
        : name,
  );

// Largest quantity per unit such that a step stays within ~23 years.
const units = [
  { unit: 'second', stepMs: SECOND, max: 1_000_000 },
  { unit: 'minute', stepMs: MINUTE, max: 1_000_000 },
  { unit: 'hour', stepMs: 60 * MINUTE, max: 200_000 },
  { unit: 'day', stepMs: DAY, max: 8_000 },
  { unit: 'week', stepMs: 7 * DAY, max: 1_000 },
  { unit: 'month', stepMs: 31 * DAY, max: 240 },
] as const;

const interval: fc.Arbitrary<Generated> = fc.constantFrom(...units).chain(({ unit, stepMs, max }) =>
  fc
    .record({
      head: fc.oneof(
        fc.constantFrom({ text: unit, quantity: 1 }, { text: `1 ${unit}`, quantity: 1 }),
        fc
          .oneof(
            fc.constantFrom(2, 3, 5, 7, 12, 15, 24, 25, 45, 90, max),
            fc.integer({ min: 2, max }),
          )
          .map((quantity) => ({ text: `${quantity} ${unit}s`, quantity })),
      ),
      clause: clauseOf(unit),
    })
    .map(({ head, clause }) => ({
      expression: clause === '' ? head.text : `${head.text} ${clause}`,
      stepMs: head.quantity * stepMs,
    })),
);

function clauseOf(unit: string): fc.Arbitrary<string> {
  const at = fc.option(
    timeOfDay.map((time) => `at ${time}`),
    { nil: '' },
  );
  switch (unit) {
    case 'hour':
      return fc.option(
        fc.integer({ min: 0, max: 59 }).map((minute) => `at **:${two(minute)}`),
        { nil: '' },
      );
    case 'day':
      return at;
    case 'week':
      return fc.option(
        fc.tuple(weekday, at).map(([day, time]) => `on ${day} ${time}`.trim()),
        { nil: '' },
      );
    case 'month':
      return fc.option(
        fc.tuple(ordinal, at).map(([day, time]) => `on the ${day} ${time}`.trim()),
        { nil: '' },
      );
    default:
      return fc.constant('');
  }
}

/** A cron field from valid pieces: *, values, ranges, steps, lists. */
function numbers(min: number, max: number): fc.Arbitrary<string> {
  const value = fc.integer({ min, max });
  const range = fc.tuple(value, value).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`);
  const step = fc.integer({ min: 1, max: max - min + 1 });
  return fc.oneof(
    fc.constant('*'),
    value.map(String),
    range,
    step.map((s) => `*/${s}`),
    fc.tuple(range, step).map(([r, s]) => `${r}/${s}`),
    fc.uniqueArray(value, { minLength: 2, maxLength: 4 }).map((list) => list.join(',')),
  );
}

const cron: fc.Arbitrary<Generated> = fc
  .record({
    second: fc.option(numbers(0, 59), { nil: undefined }),
    minute: numbers(0, 59),
    hour: numbers(0, 23),
    // 28 at most: every month has such a day, so no combination is impossible.
    dayOfMonth: fc.oneof(numbers(1, 28), fc.constantFrom('L', '?')),
    month: fc.oneof(numbers(1, 12), fc.constantFrom('JAN', 'feb-Apr', 'jun,DEC', '*/3')),
    dayOfWeek: fc.oneof(
      // 0 and 7 are both Sunday: cron-parser rejects a list naming it twice.
      numbers(0, 7).filter((field) => !/(^|,)0(,|$)/.test(field) || !/(^|,)7(,|$)/.test(field)),
      fc.constantFrom('MON-FRI', 'sun', 'SAT,sun', '?'),
      fc.integer({ min: 0, max: 6 }).map((day) => `${day}L`),
      fc
        .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 4 }))
        .map(([day, nth]) => `${day}#${nth}`),
    ),
  })
  .map(({ second, minute, hour, dayOfMonth, month, dayOfWeek }) => ({
    expression: `${second === undefined ? '' : `${second} `}${minute} ${hour} ${dayOfMonth} ${month} ${dayOfWeek}`,
    stepMs: 400 * DAY,
  }));

const withZone = (generated: fc.Arbitrary<Generated>): fc.Arbitrary<Generated & { zone: string }> =>
  fc
    .tuple(generated, fc.option(fc.constantFrom(...zones), { nil: undefined }))
    .map(([{ expression, stepMs }, zone]) => ({
      expression: zone === undefined ? expression : `${expression} in ${zone}`,
      stepMs,
      zone: zone ?? 'UTC',
    }));

/** An instant late enough that tick-1 stays after 1970 whatever the step. */
const nowFor = (stepMs: number): fc.Arbitrary<number> =>
  fc.integer({
    min: Math.max(Date.UTC(1971, 0, 1), 2 * stepMs + 2 * DAY),
    max: LAST_YEAR_START,
  });

/** An instant within three hours of one of the zone's clock changes in a random year. */
const nearTransition = (zone: string): fc.Arbitrary<number> =>
  fc
    .tuple(
      fc.integer({ min: 1980, max: 2098 }),
      fc.integer({ min: -3 * 3_600_000, max: 3 * 3_600_000 }),
    )
    .map(([year, delta]) => {
      const transition = firstTransition(zone, Date.UTC(year, 0, 1));
      return (transition ?? Date.UTC(year, 6, 1)) + delta;
    });

function firstTransition(zone: string, from: number): number | undefined {
  const start = offsetOf(zone, from);
  for (let day = 1; day <= 366; day += 1) {
    if (offsetOf(zone, from + day * DAY) !== start) {
      let low = from + (day - 1) * DAY;
      let high = from + day * DAY;
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (offsetOf(zone, middle) === start) low = middle;
        else high = middle;
      }
      return high;
    }
  }
  return undefined;
}

/**
 * expectLawfulTicks asserts every property of docs/semantics.md §4.4 for
 * one expression and instant, against the oracle: ticks on either side of
 * now, whole minutes (whole seconds for expressions in seconds), each the
 * first occurrence of a grid point's wall-clock time or the end of a gap
 * holding one, no point resolving strictly between them except now itself,
 * and the next call picking up where this one ends.
 */
function expectLawfulTicks(expression: string, zone: string, now: number): void {
  const parsed: Schedule = parseSchedule(expression);
  const { tickM1, tickP1 } = schedule(expression, new Date(now));
  const before = tickM1.getTime();
  const after = tickP1.getTime();
  expect(before).toBeLessThan(now);
  expect(after).toBeGreaterThan(now);
  const inSeconds = parsed.kind === 'cron' ? parsed.second !== undefined : parsed.unit === 'second';
  const whole = inSeconds ? SECOND : MINUTE;
  expect(before % whole).toBe(0);
  expect(after % whole).toBe(0);

  for (const tick of [before, after]) {
    const local = wallClock(zone, tick);
    // The tick's wall-clock time exists and first occurs at the tick: no
    // tick sits in a gap or in the second pass of a repeated hour.
    expect(occurrences(zone, local)[0]).toBe(tick);
    // ...and it is a grid point, or the end of a gap that holds one.
    const gapStart = wallClock(zone, tick - 1) + 1;
    const onGrid = isGridPoint(parsed, local);
    const endsGapWithPoint = gapStart < local && nextGridPoint(parsed, gapStart - 1) < local;
    expect(onGrid || endsGapWithPoint).toBe(true);
  }

  // Every grid point between the ticks' wall-clock times resolves to a tick
  // or to now: nothing was skipped.
  const last = wallClock(zone, after);
  for (let point = nextGridPoint(parsed, wallClock(zone, before)); point < last;) {
    expect([before, now, after]).toContain(oracleResolve(zone, point));
    point = nextGridPoint(parsed, point);
  }

  // Consecutive calls agree.
  expect(schedule(expression, new Date(after + 1)).tickM1.getTime()).toBe(after);
  expect(schedule(expression, new Date(before + 1)).tickM1.getTime()).toBe(before);
  expect(schedule(expression, new Date(after - 1)).tickP1.getTime()).toBe(after);
}

describe('schedule: properties', () => {
  it('interval expressions, at instants from 1971 to 2100', () => {
    fc.assert(
      fc.property(
        withZone(interval).chain((generated) =>
          fc.tuple(fc.constant(generated), nowFor(generated.stepMs)),
        ),
        ([{ expression, zone }, now]) => expectLawfulTicks(expression, zone, now),
      ),
      { numRuns: 300 },
    );
  });

  it('cron expressions, at instants from 1971 to 2100', () => {
    fc.assert(
      fc.property(withZone(cron), nowFor(400 * DAY), ({ expression, zone }, now) =>
        expectLawfulTicks(expression, zone, now),
      ),
      { numRuns: 120 },
    );
  });

  // §4.4: when now is exactly a point, that point is neither tick; the ticks
  // are the points before and after it, as seen 1 ms on either side.
  it('interval and cron expressions, at instants exactly on a tick', () => {
    fc.assert(
      fc.property(
        withZone(fc.oneof(interval, cron)).chain((generated) =>
          fc.tuple(fc.constant(generated), nowFor(generated.stepMs), fc.boolean()),
        ),
        ([{ expression, zone }, start, onTickP1]) => {
          const ticks = schedule(expression, new Date(start));
          const point = (onTickP1 ? ticks.tickP1 : ticks.tickM1).getTime();
          expectLawfulTicks(expression, zone, point);
          const onPoint = schedule(expression, new Date(point));
          expect(onPoint.tickM1).toEqual(schedule(expression, new Date(point - 1)).tickM1);
          expect(onPoint.tickP1).toEqual(schedule(expression, new Date(point + 1)).tickP1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('interval and cron expressions, around clock changes', () => {
    const expression = fc.oneof(interval, cron).filter(({ stepMs }) => stepMs <= 366 * DAY);
    fc.assert(
      fc.property(
        fc
          .tuple(expression, fc.constantFrom(...zonesWithDst))
          .chain(([generated, zone]) =>
            fc.tuple(
              fc.constant(`${generated.expression} in ${zone}`),
              fc.constant(zone),
              nearTransition(zone),
            ),
          ),
        ([expression, zone, now]) => expectLawfulTicks(expression, zone, now),
      ),
      { numRuns: 200 },
    );
  });

  it('small steps around clock changes', () => {
    const small = fc
      .tuple(
        fc.constantFrom(
          'second',
          '10 seconds',
          '90 seconds',
          '*/15 * * * * *',
          'minute',
          '5 minutes',
          '7 minutes',
          '15 minutes',
          '45 minutes',
          'hour',
          'hour at **:30',
          '2 hours',
          '*/10 * * * *',
          '30 2 * * *',
          '0 * * * *',
        ),
        fc.constantFrom(...zonesWithDst),
      )
      .chain(([expression, zone]) =>
        fc.tuple(fc.constant(`${expression} in ${zone}`), fc.constant(zone), nearTransition(zone)),
      );
    fc.assert(
      fc.property(small, ([expression, zone, now]) => expectLawfulTicks(expression, zone, now)),
      { numRuns: 200 },
    );
  });
});
