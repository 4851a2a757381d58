/**
 * Proleptic Gregorian calendar arithmetic on local date-times. Pure integer
 * arithmetic (Howard Hinnant's days_from_civil / civil_from_days), so no
 * `Date` quirk can creep in (`Date.UTC` maps years 0 to 99 to 1900 to 1999).
 */

import type { LocalDateTime, TimeOfDay } from './types.js';

/** SECOND_MS is one second in milliseconds. */
export const SECOND_MS = 1_000;
/** MINUTE_MS is one minute in milliseconds. */
export const MINUTE_MS = 60_000;
/** HOUR_MS is one hour in milliseconds. */
export const HOUR_MS = 3_600_000;
/** DAY_MS is one local calendar day in milliseconds (every local day has 24 hours). */
export const DAY_MS = 86_400_000;

/** CivilDate is a calendar date; month 1 to 12. */
export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** floorDiv divides and rounds towards minus infinity, so indices before the epoch work. */
export function floorDiv(dividend: number, divisor: number): number {
  return Math.floor(dividend / divisor);
}

/** floorMod is the remainder that goes with floorDiv: never negative for a positive divisor. */
export function floorMod(dividend: number, divisor: number): number {
  return dividend - divisor * floorDiv(dividend, divisor);
}

/** daysFromCivil is dn(D): the number of days from 1970-01-01 to the date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floorDiv(y, 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = (month + 9) % 12;
  const dayOfYear = floorDiv(153 * monthFromMarch + 2, 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + floorDiv(yearOfEra, 4) - floorDiv(yearOfEra, 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** civilFromDays is the inverse of daysFromCivil. */
export function civilFromDays(days: number): CivilDate {
  const shifted = days + 719_468;
  const era = floorDiv(shifted, 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = floorDiv(
    dayOfEra - floorDiv(dayOfEra, 1460) + floorDiv(dayOfEra, 36_524) - floorDiv(dayOfEra, 146_096),
    365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + floorDiv(yearOfEra, 4) - floorDiv(yearOfEra, 100));
  const monthFromMarch = floorDiv(5 * dayOfYear + 2, 153);
  const day = dayOfYear - floorDiv(153 * monthFromMarch + 2, 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** isLeapYear follows the Gregorian rule. */
function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** daysInMonth is the last day of the month (28 to 31). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** monthIndex is mi(Y-m): the number of months from January 1970. */
export function monthIndex(year: number, month: number): number {
  return 12 * (year - 1970) + (month - 1);
}

/** monthOfIndex is the inverse of monthIndex. */
export function monthOfIndex(index: number): { year: number; month: number } {
  return { year: 1970 + floorDiv(index, 12), month: floorMod(index, 12) + 1 };
}

/** localDateTime builds a LocalDateTime from a date and a time of day. */
export function localDateTime(date: CivilDate, time: TimeOfDay): LocalDateTime {
  return daysFromCivil(date.year, date.month, date.day) * DAY_MS + timeOfDayMs(time);
}

/** timeOfDayMs is the time of day as milliseconds after midnight. */
export function timeOfDayMs(time: TimeOfDay): number {
  return time.hour * HOUR_MS + time.minute * MINUTE_MS;
}

/** dateOf is the calendar date of a local date-time. */
export function dateOf(local: LocalDateTime): CivilDate {
  return civilFromDays(floorDiv(local, DAY_MS));
}
