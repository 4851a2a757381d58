// A second, slower reading of docs/semantics.md §4.3 and §4.4 for the
// property tests, written straight from its formulas (dn, mn, mi) and from
// luxon, without lib/schedule's grid, zone or search code. Only cron fields
// are matched with cron-parser, as §4 prescribes.

import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { IANAZone } from 'luxon';
import type { Schedule } from '../../lib/schedule/index.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** offsetOf is local minus UTC in ms at an instant, straight from luxon. */
export function offsetOf(zone: string, instant: number): number {
  return IANAZone.create(zone).offset(instant) * MINUTE;
}

/** wallClock is the local date-time of an instant, written as if UTC. */
export function wallClock(zone: string, instant: number): number {
  return instant + offsetOf(zone, instant);
}

/** occurrences lists, earliest first, every instant whose wall clock reads `local`. */
export function occurrences(zone: string, local: number): number[] {
  const offsets = new Set<number>();
  for (let hour = -16; hour <= 16; hour += 2) offsets.add(offsetOf(zone, local + hour * HOUR));
  return [...offsets]
    .map((offset) => local - offset)
    .filter((candidate) => wallClock(zone, candidate) === local)
    .sort((a, b) => a - b);
}

/**
 * oracleResolve is resolve() by brute force: the first occurrence, or for a
 * skipped local time the instant the wall clock jumps over it.
 */
export function oracleResolve(zone: string, local: number): number {
  const first = occurrences(zone, local)[0];
  if (first !== undefined) return first;
  for (let instant = local - 16 * HOUR; instant < local + 16 * HOUR; instant += 15 * MINUTE) {
    if (wallClock(zone, instant + 15 * MINUTE) > local && wallClock(zone, instant) < local) {
      let low = instant;
      let high = instant + 15 * MINUTE;
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (wallClock(zone, middle) > local) high = middle;
        else low = middle;
      }
      return high;
    }
  }
  throw new Error(`oracle: cannot resolve ${new Date(local).toISOString()} in ${zone}`);
}

/** cronFieldsOf lists a cron schedule's fields as cron-parser reads them, the seconds first if any. */
function cronFieldsOf(schedule: Schedule & { kind: 'cron' }): readonly string[] {
  return schedule.second === undefined ? schedule.fields : [schedule.second, ...schedule.fields];
}

const cronByFields = new Map<string, CronExpression>();

/** cronNext is cron-parser's next match strictly after a local date-time, read in UTC. */
function cronNext(fields: readonly string[], local: number): number {
  const text = fields.join(' ');
  let expression = cronByFields.get(text);
  if (expression === undefined) {
    expression = CronExpressionParser.parse(text, { currentDate: new Date(0), tz: 'UTC' });
    cronByFields.set(text, expression);
  }
  expression.reset(new Date(local));
  return expression.next().getTime();
}

function civil(local: number): {
  year: number;
  month: number;
  day: number;
  dn: number;
  time: number;
} {
  const date = new Date(local);
  const dn = Math.floor(local / DAY);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    dn,
    time: local - dn * DAY,
  };
}

function lastDay(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** isGridPoint tells whether a local date-time is a point of the expression's grid (§4.3). */
export function isGridPoint(schedule: Schedule, local: number): boolean {
  if (mod(local, SECOND) !== 0) return false;
  if (schedule.kind === 'cron') return cronNext(cronFieldsOf(schedule), local - 1) === local;
  const n = schedule.quantity;
  if (schedule.unit === 'second') return mod(local / SECOND, n) === 0;
  if (mod(local, MINUTE) !== 0) return false;
  const mn = local / MINUTE;
  const { year, month, day, dn, time } = civil(local);
  switch (schedule.unit) {
    case 'minute':
      return mod(mn, n) === 0;
    case 'hour':
      return mod(mn, 60) === schedule.minute && mod((mn - schedule.minute) / 60, n) === 0;
    case 'day':
      return time === (schedule.at.hour * 60 + schedule.at.minute) * MINUTE && mod(dn, n) === 0;
    case 'week': {
      const monday = dn - weekdays.indexOf(schedule.weekday);
      return (
        time === (schedule.at.hour * 60 + schedule.at.minute) * MINUTE &&
        mod(monday - 4, 7) === 0 &&
        mod((monday - 4) / 7, n) === 0
      );
    }
    case 'month': {
      const mi = 12 * (year - 1970) + month - 1;
      return (
        time === (schedule.at.hour * 60 + schedule.at.minute) * MINUTE &&
        day === Math.min(schedule.dayOfMonth, lastDay(year, month)) &&
        mod(mi, n) === 0
      );
    }
  }
}

/** nextGridPoint is the least grid point strictly after a local date-time. */
export function nextGridPoint(schedule: Schedule, local: number): number {
  if (schedule.kind === 'cron') return cronNext(cronFieldsOf(schedule), local);
  const n = schedule.quantity;
  const stepAfter = (origin: number, step: number): number =>
    origin + (Math.floor((local - origin) / step) + 1) * step;
  switch (schedule.unit) {
    case 'second':
      return stepAfter(0, n * SECOND);
    case 'minute':
      return stepAfter(0, n * MINUTE);
    case 'hour':
      return stepAfter(schedule.minute * MINUTE, n * HOUR);
    case 'day':
      return stepAfter((schedule.at.hour * 60 + schedule.at.minute) * MINUTE, n * DAY);
    case 'week':
      return stepAfter(
        (4 + weekdays.indexOf(schedule.weekday)) * DAY +
          (schedule.at.hour * 60 + schedule.at.minute) * MINUTE,
        7 * n * DAY,
      );
    case 'month': {
      // Walk the month grid from the month before local's (years here are all after 1970).
      const { year, month } = civil(local);
      let mi = Math.floor((12 * (year - 1970) + month - 2) / n) * n;
      for (;;) {
        const y = 1970 + Math.floor(mi / 12);
        const m = mod(mi, 12) + 1;
        const point = Date.UTC(
          y,
          m - 1,
          Math.min(schedule.dayOfMonth, lastDay(y, m)),
          schedule.at.hour,
          schedule.at.minute,
        );
        if (point > local) return point;
        mi += n;
      }
    }
  }
}
