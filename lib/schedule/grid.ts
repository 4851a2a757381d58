/**
 * The grids of interval expressions (docs/semantics.md §4.3): local
 * date-times anchored at the unix epoch read as a local date-time
 * (1970-01-01 00:00; weeks at Monday 1970-01-05) and spaced uniformly by the
 * step σ, each shifted by the clause's offset. All arithmetic is on the local
 * calendar; the zone only matters when tick.ts turns points into instants.
 */

import {
  DAY_MS,
  HOUR_MS,
  MINUTE_MS,
  SECOND_MS,
  dateOf,
  daysInMonth,
  floorDiv,
  localDateTime,
  monthIndex,
  monthOfIndex,
  timeOfDayMs,
} from './calendar.js';
import { WEEKDAYS } from './grammar.js';
import type { IntervalSchedule, LocalDateTime, MonthSchedule } from './types.js';

/** LocalGrid is an ordered set of local date-times: an expression's points. */
export interface LocalGrid {
  /** atOrBefore is the greatest point at or before `local`, undefined if none is within reach. */
  atOrBefore(local: LocalDateTime): LocalDateTime | undefined;
  /** after is the least point strictly after `local`, undefined if none is within reach. */
  after(local: LocalDateTime): LocalDateTime | undefined;
}

// dn(1970-01-05), the first Monday: the week grid's anchor.
const FIRST_MONDAY_DAYS = 4;

/** intervalGrid is the grid of an interval expression. */
export function intervalGrid(schedule: IntervalSchedule): LocalGrid {
  const n = schedule.quantity;
  switch (schedule.unit) {
    case 'second':
      return uniformGrid(0, n * SECOND_MS);
    case 'minute':
      return uniformGrid(0, n * MINUTE_MS);
    case 'hour':
      return uniformGrid(schedule.minute * MINUTE_MS, n * HOUR_MS);
    case 'day':
      return uniformGrid(timeOfDayMs(schedule.at), n * DAY_MS);
    case 'week': {
      const weekdayOffset = WEEKDAYS.indexOf(schedule.weekday);
      const origin = (FIRST_MONDAY_DAYS + weekdayOffset) * DAY_MS + timeOfDayMs(schedule.at);
      return uniformGrid(origin, 7 * n * DAY_MS);
    }
    case 'month':
      return monthGrid(schedule);
  }
}

/** uniformGrid has the points origin + k·step for every integer k. */
function uniformGrid(origin: number, step: number): LocalGrid {
  const atOrBefore = (local: LocalDateTime): LocalDateTime =>
    origin + floorDiv(local - origin, step) * step;
  return { atOrBefore, after: (local) => atOrBefore(local) + step };
}

/**
 * monthGrid has one point in every N-th month from January 1970: on the
 * ordinal's day, or the month's last day when the month is shorter.
 */
function monthGrid(schedule: MonthSchedule): LocalGrid {
  const n = schedule.quantity;
  const pointOf = (index: number): LocalDateTime => {
    const { year, month } = monthOfIndex(index * n);
    const day = Math.min(schedule.dayOfMonth, daysInMonth(year, month));
    return localDateTime({ year, month, day }, schedule.at);
  };
  const indexAtOrBefore = (local: LocalDateTime): number => {
    const { year, month } = dateOf(local);
    const index = floorDiv(monthIndex(year, month), n);
    // The point of local's own month may still lie ahead of it within that month.
    return pointOf(index) <= local ? index : index - 1;
  };
  return {
    atOrBefore: (local) => pointOf(indexAtOrBefore(local)),
    after: (local) => pointOf(indexAtOrBefore(local) + 1),
  };
}
