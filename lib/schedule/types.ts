/**
 * The plain-data shapes of a parsed interval-language expression
 * (docs/semantics.md §4.2). A Schedule holds no functions and no state;
 * two expressions that mean the same grid parse to deep-equal values
 * (`week`, `week on Monday` and `1 week on monday at 00:00` all do).
 */

/** Unit is an interval unit, always in the singular. */
export type Unit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';

/** Weekday is a day of the week, lower case, as named after `on`. */
export type Weekday =
  'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';

/** TimeOfDay is a local wall-clock time, from `at HH:MM`. */
export interface TimeOfDay {
  /** Hour, 0 to 23. */
  readonly hour: number;
  /** Minute, 0 to 59. */
  readonly minute: number;
}

interface IntervalBase {
  readonly kind: 'interval';
  /** Quantity N: the grid steps by N units; 1 to 1 000 000. */
  readonly quantity: number;
  /** IANA zone the grid lives in, as written after `in`; `UTC` without a suffix. */
  readonly zone: string;
}

/** SecondSchedule is `second` or `N seconds`; it takes no clause. */
interface SecondSchedule extends IntervalBase {
  readonly unit: 'second';
}

/** MinuteSchedule is `minute` or `N minutes`; it takes no clause. */
interface MinuteSchedule extends IntervalBase {
  readonly unit: 'minute';
}

/** HourSchedule is `hour` or `N hours`, optionally `at **:MM`. */
interface HourSchedule extends IntervalBase {
  readonly unit: 'hour';
  /** Minute past the hour of every point, from `at **:MM`; 0 without it. */
  readonly minute: number;
}

/** DaySchedule is `day` or `N days`, optionally `at HH:MM`. */
interface DaySchedule extends IntervalBase {
  readonly unit: 'day';
  /** Local time of every point; 00:00 without `at`. */
  readonly at: TimeOfDay;
}

/** WeekSchedule is `week` or `N weeks`, optionally `on WEEKDAY [at HH:MM]`. */
interface WeekSchedule extends IntervalBase {
  readonly unit: 'week';
  /** Day of every point; Monday without `on`. */
  readonly weekday: Weekday;
  /** Local time of every point; 00:00 without `at`. */
  readonly at: TimeOfDay;
}

/** MonthSchedule is `month` or `N months`, optionally `on the ORDINAL [at HH:MM]`. */
export interface MonthSchedule extends IntervalBase {
  readonly unit: 'month';
  /** Day of the month from the ordinal, 1 to 31 (clamped to short months); 1 without `on`. */
  readonly dayOfMonth: number;
  /** Local time of every point; 00:00 without `at`. */
  readonly at: TimeOfDay;
}

/** IntervalSchedule is a parsed interval expression, discriminated by `unit`. */
export type IntervalSchedule =
  SecondSchedule | MinuteSchedule | HourSchedule | DaySchedule | WeekSchedule | MonthSchedule;

/** CronFields are the five fields of a cron expression, as written. */
export type CronFields = readonly [
  minute: string,
  hour: string,
  dayOfMonth: string,
  month: string,
  dayOfWeek: string,
];

/** CronSchedule is a parsed five-field cron expression, or a six-field one with seconds first. */
export interface CronSchedule {
  readonly kind: 'cron';
  /** The seconds field of a six-field expression, as written; absent with five fields (second 0). */
  readonly second?: string;
  readonly fields: CronFields;
  /** IANA zone the fields are read in, as written after `in`; `UTC` without a suffix. */
  readonly zone: string;
}

/** Schedule is a parsed `@every` expression: an interval or a cron expression. */
export type Schedule = IntervalSchedule | CronSchedule;

/**
 * LocalDateTime is a local date-time (a calendar date and a wall-clock time,
 * no zone) as milliseconds from 1970-01-01 00:00 on the local calendar, that
 * is, written as if it were UTC (`Date.UTC(year, month - 1, day, hour, minute)`).
 * Grid arithmetic happens on these numbers, never on instants.
 */
export type LocalDateTime = number;
