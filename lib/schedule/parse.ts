/**
 * Expression to Schedule (docs/semantics.md §4.2): the zone suffix, the
 * kind (interval or cron), then the interval grammar or the cron fields.
 * Every rejection is a TaskCronError whose message quotes the expression and
 * says what was expected at which word.
 */

import { TaskCronError } from '../errors.js';
import { CRON_FIELD_HINT, parseCron } from './cron.js';
import {
  got,
  isIntervalHead,
  quote,
  readHead,
  readMinutePast,
  readOrdinal,
  readTime,
  readWeekday,
  tokenize,
  unitOf,
  type Fail,
} from './grammar.js';
import type { IntervalSchedule, Schedule, TimeOfDay, Unit, Weekday } from './types.js';
import { withSuggestion } from './suggest.js';
import { isKnownZone } from './zone.js';

/** SCHEDULE_CACHE_LIMIT is how many expressions parseSchedule remembers. */
export const SCHEDULE_CACHE_LIMIT = 1000;

// Map keeps insertion order, so the first key is the oldest entry.
const cache = new Map<string, { schedule: Schedule } | { message: string }>();

/**
 * parseSchedule reads an `@every` expression into a Schedule, or throws
 * TaskCronError saying what is wrong with it. Results (and rejections) are
 * cached for the last SCHEDULE_CACHE_LIMIT expressions, so the same
 * expression is parsed once; the Schedule returned is frozen and shared.
 */
export function parseSchedule(expression: string): Schedule {
  if (typeof expression !== 'string') {
    throw new TaskCronError(`expected the expression as a string, got ${typeof expression}`);
  }
  let entry = cache.get(expression);
  if (entry === undefined) {
    entry = parseUncached(expression);
    if (cache.size >= SCHEDULE_CACHE_LIMIT) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
    cache.set(expression, entry);
  }
  if ('message' in entry) throw new TaskCronError(entry.message);
  return entry.schedule;
}

function parseUncached(expression: string): { schedule: Schedule } | { message: string } {
  try {
    return { schedule: deepFreeze(parseExpression(expression)) };
  } catch (error) {
    if (error instanceof TaskCronError) {
      return { message: withSuggestion(expression, error.message, isExpression) };
    }
    throw error;
  }
}

/** isExpression tells whether the language reads an expression (no cache, no suggestion). */
function isExpression(expression: string): boolean {
  try {
    parseExpression(expression);
    return true;
  } catch {
    return false;
  }
}

/** failFor makes the Fail of one expression: a TaskCronError quoting it. */
export function failFor(expression: string): Fail {
  return (detail) => {
    throw new TaskCronError(`${quote(expression)}: ${detail}`);
  };
}

function parseExpression(expression: string): Schedule {
  const fail = failFor(expression);
  const tokens = tokenize(expression);
  if (tokens.length === 0) fail('the expression is empty');
  const { body, zone } = splitZone(tokens, fail);
  if (isIntervalHead(body)) return parseInterval(body, zone, fail);
  explainNonCron(body, fail);
  return parseCron(body, zone, fail);
}

/** splitZone removes an `in ZONE` suffix (§4.2 rule 1); the zone defaults to UTC. */
function splitZone(tokens: string[], fail: Fail): { body: string[]; zone: string } {
  const zone = tokens[tokens.length - 1];
  if (tokens.length >= 3 && tokens[tokens.length - 2] === 'in' && zone !== undefined) {
    if (!isKnownZone(zone)) fail(`unknown time zone ${quote(zone)}`);
    return { body: tokens.slice(0, -2), zone };
  }
  return { body: tokens, zone: 'UTC' };
}

const clauseHints: Readonly<Record<Unit, string>> = {
  second: 'seconds take no clause',
  minute: 'minutes take no clause',
  hour: 'hours take only "at **:MM"',
  day: 'days take only "at HH:MM"',
  week: 'weeks take only "on WEEKDAY [at HH:MM]"',
  month: 'months take only "on the ORDINAL [at HH:MM]"',
};

const midnight: TimeOfDay = { hour: 0, minute: 0 };

/** parseInterval reads `head [clause]` (§4.2 rule 3). */
function parseInterval(tokens: readonly string[], zone: string, fail: Fail): IntervalSchedule {
  const { unit, quantity, next } = readHead(tokens, fail);
  const words = new Words(tokens, next, fail);
  const common = { kind: 'interval', quantity, zone } as const;
  switch (unit) {
    case 'second':
      words.end(clauseHints.second);
      return { ...common, unit };
    case 'minute':
      words.end(clauseHints.minute);
      return { ...common, unit };
    case 'hour': {
      const minute = words.take('at') ? readMinutePast(words.next(), fail) : 0;
      words.end(clauseHints.hour);
      return { ...common, unit, minute };
    }
    case 'day': {
      const at = words.take('at') ? readTime(words.next(), fail) : midnight;
      words.end(clauseHints.day);
      return { ...common, unit, at };
    }
    case 'week': {
      let weekday: Weekday = 'monday';
      let at = midnight;
      if (words.take('on')) {
        weekday = readWeekday(words.next(), fail);
        at = readOptionalTime(words, fail);
      }
      words.end(clauseHints.week);
      return { ...common, unit, weekday, at };
    }
    case 'month': {
      let dayOfMonth = 1;
      let at = midnight;
      if (words.take('on')) {
        const the = words.next();
        if (the !== 'the') fail(`expected "the" after "on" (as in "on the 15th"), ${got(the)}`);
        dayOfMonth = readOrdinal(words.next(), fail);
        at = readOptionalTime(words, fail);
      }
      words.end(clauseHints.month);
      return { ...common, unit, dayOfMonth, at };
    }
  }
}

/** readOptionalTime reads `at HH:MM` if it comes next. */
function readOptionalTime(words: Words, fail: Fail): TimeOfDay {
  return words.take('at') ? readTime(words.next(), fail) : midnight;
}

/** Words walks the tokens after the head of an interval. */
class Words {
  private index: number;

  constructor(
    private readonly tokens: readonly string[],
    start: number,
    private readonly fail: Fail,
  ) {
    this.index = start;
  }

  /** previous is the last token read, undefined before the first. */
  get previous(): string | undefined {
    return this.tokens[this.index - 1];
  }

  /** take consumes the keyword if it comes next. */
  take(keyword: string): boolean {
    if (this.tokens[this.index] !== keyword) return false;
    this.index += 1;
    return true;
  }

  /** next consumes the next token, undefined at the end. */
  next(): string | undefined {
    const word = this.tokens[this.index];
    if (word !== undefined) this.index += 1;
    return word;
  }

  /** end requires the expression to end here; `hint` says what the unit takes. */
  end(hint: string): void {
    const word = this.tokens[this.index];
    if (word === undefined) return;
    const after = this.previous ?? '';
    if (word === 'in') {
      if (this.index === this.tokens.length - 1) this.fail('expected a time zone name after "in"');
      this.fail('the zone suffix "in ZONE" must come last');
    }
    this.fail(`unexpected ${quote(word)} after ${quote(after)}; ${hint}`);
  }
}

/**
 * explainNonCron rejects, with a pointed message, expressions that are
 * neither an interval nor five or six cron fields: unit words in the wrong case,
 * unknown units, macros, a misplaced `in`, a wrong number of fields.
 */
function explainNonCron(tokens: readonly string[], fail: Fail): void {
  const [first = '', second] = tokens;
  for (const word of [first, second]) {
    if (word !== undefined && unitOf(word.toLowerCase()) !== undefined) {
      fail(`unit names are lower case; write ${quote(word.toLowerCase())}`);
    }
  }
  if (first.startsWith('@')) {
    const fields = macroFields[first.toLowerCase()];
    fail(
      `macros such as ${quote(first)} are not supported; write the five fields` +
        (fields === undefined ? ` (${CRON_FIELD_HINT})` : `, e.g. ${quote(fields)}`),
    );
  }
  const inAt = tokens.indexOf('in');
  if (inAt === tokens.length - 1) fail('expected a time zone name after "in"');
  if (inAt >= 0) fail('the zone suffix "in ZONE" must come last');
  if (tokens.length !== 5 && tokens.length !== 6) {
    const word = [first, second].find((token) => token !== undefined && /^[a-z]+$/i.test(token));
    if (word !== undefined) {
      fail(
        `expected a unit (second, minute, hour, day, week, month or a plural) or a five- or six-field cron expression, got ${quote(word)}`,
      );
    }
  }
}

// The cron fields of the common macros, to suggest in messages.
const macroFields: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** deepFreeze freezes a Schedule, since cached Schedules are shared by every caller. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
