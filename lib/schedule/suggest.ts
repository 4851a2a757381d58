/**
 * Suggestions for expressions the interval language rejects: the nearest
 * form it reads, for a message's "did you mean". Each step repairs one
 * common mistake (a leading "every", an abbreviated or misspelt unit, the
 * wrong number, a short weekday, a one-digit hour); a candidate is offered
 * only when the parser accepts it.
 */

import { nearest } from '../spelling.js';
import { ordinalSuffix, quote, tokenize, unitPairs, WEEKDAYS } from './grammar.js';

/** Accepts tells whether the language reads a candidate expression. */
export type Accepts = (candidate: string) => boolean;

// A message that already says how to write the one word it rejects.
const ownFix = /\b(?:write|needs the (?:singular|plural)) "/;

/**
 * withSuggestion ends a rejection message with `did you mean "…"?` when a
 * repaired expression is accepted, unless the repair changes one word only
 * and the message already says how to write it.
 */
export function withSuggestion(expression: string, message: string, accepts: Accepts): string {
  const candidate = suggestExpression(expression, accepts);
  if (candidate === undefined) return message;
  if (ownFix.test(message) && changedWords(expression, candidate) === 1) return message;
  return `${message}; did you mean ${quote(candidate)}?`;
}

/** changedWords counts the words a repair changed (any change of their number counts as two). */
function changedWords(expression: string, candidate: string): number {
  const before = tokenize(expression);
  const after = tokenize(candidate);
  if (before.length !== after.length) return 2;
  return before.filter((word, index) => word !== after[index]).length;
}

/** suggestExpression is the repaired form of a rejected expression, if the language reads it. */
export function suggestExpression(expression: string, accepts: Accepts): string | undefined {
  const tokens = tokenize(expression);
  const zoneAt = tokens.length >= 3 && tokens[tokens.length - 2] === 'in' ? tokens.length - 2 : -1;
  const zone = zoneAt < 0 ? [] : tokens.slice(zoneAt);
  let body = zoneAt < 0 ? tokens : tokens.slice(0, zoneAt);
  body = dropFiller(body);
  body = splitCompact(body);
  body = repairHead(body);
  body = repairClause(body);
  const candidate = [...body, ...zone].join(' ');
  if (candidate === '' || candidate === tokens.join(' ')) return undefined;
  return accepts(candidate) ? candidate : undefined;
}

// Words people put before an interval that the language does without.
const fillers: ReadonlySet<string> = new Set(['every', '@every', 'each', 'per', 'once']);

/** dropFiller removes a leading "every", "each", ... (`every 2 minutes`). */
function dropFiller(tokens: readonly string[]): string[] {
  const [first, ...rest] = tokens;
  if (first !== undefined && rest.length > 0 && fillers.has(first.toLowerCase())) return rest;
  return [...tokens];
}

/** splitCompact splits a quantity glued to its unit (`5m`, `2hours`). */
function splitCompact(tokens: readonly string[]): string[] {
  const [first = '', ...rest] = tokens;
  const match = /^(\d+)([a-zA-Z]+)$/.exec(first);
  return match === null ? [...tokens] : [match[1] ?? '', match[2] ?? '', ...rest];
}

// Number words for the quantities people spell out.
const numberWords: readonly string[] = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];

// Abbreviations and adverbs of unit words, by the singular they stand for;
// those of a unit the language lacks are never offered (`accepts` decides).
const unitAliases: Readonly<Record<string, string>> = {
  s: 'second',
  sec: 'second',
  secs: 'second',
  m: 'minute',
  min: 'minute',
  mins: 'minute',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  hourly: 'hour',
  d: 'day',
  daily: 'day',
  w: 'week',
  wk: 'week',
  wks: 'week',
  weekly: 'week',
  mo: 'month',
  mos: 'month',
  mon: 'month',
  mth: 'month',
  mths: 'month',
  monthly: 'month',
};

/** repairHead fixes the quantity and unit the expression starts with. */
function repairHead(tokens: readonly string[]): string[] {
  const [first = '', second, ...rest] = tokens;
  const spelt = numberWords.indexOf(first.toLowerCase());
  const quantity = spelt >= 1 ? String(spelt) : /^(a|an)$/i.test(first) ? '1' : first;
  if (/^\d+$/.test(quantity) && second !== undefined) {
    const unit = unitFor(second);
    if (unit === undefined) return [quantity, second, ...rest];
    if (quantity === '1') return [quantity, unit.singular, ...rest];
    return [quantity, unit.plural, ...rest];
  }
  const unit = unitFor(first);
  if (unit === undefined) return [...tokens];
  return second === undefined ? [unit.singular] : [unit.singular, second, ...rest];
}

/** unitFor reads a word as a unit, however it is written; undefined if it is none. */
function unitFor(word: string): { singular: string; plural: string } | undefined {
  const lower = word.toLowerCase().replace(/^@/, '');
  const pairs = unitPairs();
  const exact = pairs.find(([singular, plural]) => lower === singular || lower === plural);
  const alias = unitAliases[lower];
  const aliased = alias === undefined ? undefined : pairs.find(([singular]) => singular === alias);
  const near = nearest(lower, pairs.flat());
  const pair =
    exact ??
    aliased ??
    pairs.find(
      ([singular, plural]) => near !== undefined && (near === singular || near === plural),
    );
  return pair === undefined ? undefined : { singular: pair[0], plural: pair[1] };
}

/** repairClause fixes the words of an `at` or `on` clause. */
function repairClause(tokens: readonly string[]): string[] {
  const words = [...tokens];
  for (let index = 1; index < words.length; index += 1) {
    const before = words[index - 1]?.toLowerCase();
    const word = words[index] ?? '';
    if (before === 'at') words[index] = repairTime(word);
    if (before === 'on' && /^\d/.test(word)) {
      words.splice(index, 1, 'the', repairOrdinal(word)); // `on 15th`
    } else if (before === 'on') {
      words[index] = repairWeekday(word);
    } else if (before === 'the') {
      words[index] = repairOrdinal(word);
    } else if (word.toLowerCase() === 'at' || word.toLowerCase() === 'on') {
      words[index] = word.toLowerCase();
    }
  }
  return words;
}

/** repairTime pads a one-digit hour (`9:00`) and reads `9am` / `9pm`. */
function repairTime(word: string): string {
  const clock = /^(\d{1,2}):(\d{2})$/.exec(word);
  if (clock !== null) return `${(clock[1] ?? '').padStart(2, '0')}:${clock[2] ?? ''}`;
  const meridiem = /^(\d{1,2})(?::(\d{2}))?(am|pm)$/i.exec(word);
  if (meridiem === null) return word;
  const hour = (Number(meridiem[1]) % 12) + ((meridiem[3] ?? '').toLowerCase() === 'pm' ? 12 : 0);
  return `${String(hour).padStart(2, '0')}:${meridiem[2] ?? '00'}`;
}

/** repairWeekday reads a weekday's first three letters or a misspelt name, keeping a capital. */
function repairWeekday(word: string): string {
  const lower = word.toLowerCase();
  if ((WEEKDAYS as readonly string[]).includes(lower)) return word;
  const prefixed = lower.length >= 3 ? WEEKDAYS.find((day) => day.startsWith(lower)) : undefined;
  const day = prefixed ?? nearest(lower, WEEKDAYS);
  if (day === undefined) return word;
  return /^[A-Z]/.test(word) ? `${day.charAt(0).toUpperCase()}${day.slice(1)}` : day;
}

/** repairOrdinal gives a day of the month its suffix (`15` → `15th`, `3th` → `3rd`). */
function repairOrdinal(word: string): string {
  const match = /^(\d+)(st|nd|rd|th)?$/i.exec(word);
  if (match === null) return word;
  const day = Number(match[1]);
  return `${day}${ordinalSuffix(day)}`;
}
