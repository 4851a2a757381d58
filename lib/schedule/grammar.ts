/**
 * The words of the interval language (docs/semantics.md §4.2): tokens,
 * units, quantities, times, weekdays and ordinals. Each reader takes one
 * token and either returns its value or calls `fail` with what was expected.
 */

import type { TimeOfDay, Unit, Weekday } from './types.js';

/** Fail reports a problem with the expression being read; it never returns. */
export type Fail = (detail: string) => never;

/** Head is the quantity and unit an interval (or a `@defer` duration) starts with. */
export interface Head {
  readonly unit: Unit;
  readonly quantity: number;
  /** Index of the first token after the head. */
  readonly next: number;
}

/** MAX_QUANTITY is the largest N of `N units`. */
export const MAX_QUANTITY = 1_000_000;

const plurals: Readonly<Record<Unit, string>> = {
  second: 'seconds',
  minute: 'minutes',
  hour: 'hours',
  day: 'days',
  week: 'weeks',
  month: 'months',
};

interface UnitWord {
  readonly unit: Unit;
  readonly plural: boolean;
}

const unitByWord: ReadonlyMap<string, UnitWord> = new Map(
  (Object.keys(plurals) as Unit[]).flatMap((unit): [string, UnitWord][] => [
    [unit, { unit, plural: false }],
    [plurals[unit], { unit, plural: true }],
  ]),
);

/** WEEKDAYS lists the weekdays from Monday, the first day of the week grid. */
export const WEEKDAYS: readonly Weekday[] = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
];

/** quote writes a word of the expression the way messages show it. */
export function quote(word: string): string {
  return JSON.stringify(word);
}

/** tokenize splits on runs of whitespace, ignoring leading and trailing whitespace. */
export function tokenize(expression: string): string[] {
  const trimmed = expression.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}

/** unitOf reads one of the twelve unit words (lower case only), or returns undefined. */
export function unitOf(word: string | undefined): UnitWord | undefined {
  return word === undefined ? undefined : unitByWord.get(word);
}

/** pluralOf is the plural unit word. */
function pluralOf(unit: Unit): string {
  return plurals[unit];
}

/** isIntervalHead tells whether the first or second token is a unit word (§4.2 rule 2). */
export function isIntervalHead(tokens: readonly string[]): boolean {
  return unitOf(tokens[0]) !== undefined || unitOf(tokens[1]) !== undefined;
}

/** got finishes an "expected ..." message with the token found, or the end of the expression. */
export function got(word: string | undefined): string {
  return word === undefined ? 'but the expression ends' : `got ${quote(word)}`;
}

/**
 * readHead reads `unit`, `1 unit` or `N units` from the start of the tokens.
 * The first or the second token must be a unit word.
 */
export function readHead(tokens: readonly string[], fail: Fail): Head {
  const [first = '', second] = tokens;
  const leading = unitOf(first);
  if (leading !== undefined) {
    if (leading.plural) {
      fail(
        `a plural unit needs a quantity before it, e.g. ${quote(`2 ${first}`)}; for one, write ${quote(leading.unit)}`,
      );
    }
    return { unit: leading.unit, quantity: 1, next: 1 };
  }
  const unit = unitOf(second);
  if (unit === undefined || second === undefined) {
    return fail(
      `expected a unit (second, minute, hour, day, week or month) after ${quote(first)}, ${got(second)}`,
    );
  }
  const quantity = readQuantity(first, second, fail);
  if (quantity === 1 && unit.plural) {
    fail(`a quantity of 1 needs the singular ${quote(unit.unit)}`);
  }
  if (quantity >= 2 && !unit.plural) {
    fail(`a quantity of 2 or more needs the plural ${quote(pluralOf(unit.unit))}`);
  }
  return { unit: unit.unit, quantity, next: 2 };
}

/** readQuantity reads N: decimal digits, no sign, no leading zero, 1 to MAX_QUANTITY. */
function readQuantity(word: string, unitWord: string, fail: Fail): number {
  if (/^[+-]\d+$/.test(word)) {
    return fail(`the quantity must be digits without a sign, got ${quote(word)}`);
  }
  if (!/^\d+$/.test(word)) {
    return fail(
      `expected a quantity in digits before ${quote(unitWord)} (e.g. ${quote(`5 ${pluralOf(unitOf(unitWord)?.unit ?? 'minute')}`)}), got ${quote(word)}`,
    );
  }
  if (word === '0') return fail(`the quantity must be at least 1, got ${quote(word)}`);
  if (word.startsWith('0')) return fail(`the quantity must not start with 0, got ${quote(word)}`);
  // Compare lengths first: a long digit string is not a safe Number.
  if (word.length > String(MAX_QUANTITY).length || Number(word) > MAX_QUANTITY) {
    return fail(`the quantity must be at most ${MAX_QUANTITY}, got ${quote(word)}`);
  }
  return Number(word);
}

// How messages describe HH:MM.
const timeHint = 'a time HH:MM after "at" (two-digit hour 00-23, minutes 00-59)';

/** readTime reads the token after `at` as HH:MM, both two digits. */
export function readTime(word: string | undefined, fail: Fail): TimeOfDay {
  const match = word === undefined ? null : /^([01]\d|2[0-3]):([0-5]\d)$/.exec(word);
  if (match === null) {
    return fail(`expected ${timeHint}, ${got(word)}`);
  }
  return { hour: Number(match[1]), minute: Number(match[2]) };
}

/** readMinutePast reads the token after an hour's `at` as `**:MM`. */
export function readMinutePast(word: string | undefined, fail: Fail): number {
  const match = word === undefined ? null : /^\*\*:([0-5]\d)$/.exec(word);
  if (match === null) {
    return fail(
      `expected "**:MM" after "at" (the minute past every hour, 00-59, e.g. "**:30"), ${got(word)}`,
    );
  }
  return Number(match[1]);
}

/** readWeekday reads a full weekday name in any letter case. */
export function readWeekday(word: string | undefined, fail: Fail): Weekday {
  const weekday = WEEKDAYS.find((name) => name === word?.toLowerCase());
  if (weekday === undefined) {
    return fail(`expected a full weekday name (Monday ... Sunday) after "on", ${got(word)}`);
  }
  return weekday;
}

/** ordinalSuffix is the English suffix of a day number: 1st, 2nd, 3rd, 4th, 11th, 21st, ... */
export function ordinalSuffix(day: number): 'st' | 'nd' | 'rd' | 'th' {
  const lastTwo = day % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return 'th';
  const last = day % 10;
  if (last === 1) return 'st';
  if (last === 2) return 'nd';
  if (last === 3) return 'rd';
  return 'th';
}

/** readOrdinal reads the day of the month after `on the`: 1st to 31st with the right suffix. */
export function readOrdinal(word: string | undefined, fail: Fail): number {
  const match = word === undefined ? null : /^([1-9]\d*|0)(st|nd|rd|th)$/.exec(word);
  if (match === null || word === undefined) {
    return fail(
      `expected the day of the month as an ordinal (1st, 2nd, 3rd, 4th ... 31st) after "on the", ${got(word)}`,
    );
  }
  const day = Number(match[1]);
  if (day < 1 || day > 31) {
    return fail(`the day of the month must be 1st to 31st, got ${quote(word)}`);
  }
  if (match[2] !== ordinalSuffix(day)) {
    return fail(
      `${quote(word)} has the wrong suffix; write ${quote(`${day}${ordinalSuffix(day)}`)}`,
    );
  }
  return day;
}

/** unitPairs lists each unit word with its plural, for messages that suggest a unit. */
export function unitPairs(): readonly (readonly [string, string])[] {
  return Object.entries(plurals);
}
