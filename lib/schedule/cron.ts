/**
 * Five-field cron expressions (docs/semantics.md §4.2 rule 4), read and
 * evaluated by cron-parser. The fields are always evaluated in UTC over local
 * date-times written as if UTC; tick.ts maps each match to an instant with
 * resolve(). cron-parser's own `tz` option is deliberately not used: around
 * DST transitions it disagrees with resolve() (rows X10 to X12 of §4.7).
 */

import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { quote, type Fail } from './grammar.js';
import type { LocalGrid } from './grid.js';
import type { CronFields, CronSchedule, LocalDateTime } from './types.js';

const fieldNames = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
const monthNames = new Set([
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
]);
const weekdayNames = new Set(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']);

// Passed to every parse, so cron-parser never reads the system clock.
const epoch = new Date(0);

/** CRON_FIELD_HINT names the five fields in order, for messages. */
export const CRON_FIELD_HINT = 'minute hour day-of-month month day-of-week';

/**
 * parseCron validates five cron fields, or six with a seconds field first,
 * and returns them as a CronSchedule. Beyond cron-parser's own checks it
 * rejects the hash symbol `H` and unknown names, and it names the field at
 * fault in every message.
 */
export function parseCron(tokens: readonly string[], zone: string, fail: Fail): CronSchedule {
  const second = tokens.length === 6 ? tokens[0] : undefined;
  const rest = tokens.length === 6 ? tokens.slice(1) : tokens;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = rest;
  if (
    rest.length !== 5 ||
    minute === undefined ||
    hour === undefined ||
    dayOfMonth === undefined ||
    month === undefined ||
    dayOfWeek === undefined
  ) {
    return fail(
      `a cron expression has five fields (${CRON_FIELD_HINT}), or six with a seconds field first; got ${tokens.length}`,
    );
  }
  const fields: CronFields = [minute, hour, dayOfMonth, month, dayOfWeek];
  if (second !== undefined) checkSecond(second, fail);
  fields.forEach((field, index) => checkLetters(field, index, fail));
  const problem = cronParserProblem(cronText(second, fields));
  if (problem !== undefined) explain(fields, problem, fail);
  return second === undefined
    ? { kind: 'cron', fields, zone }
    : { kind: 'cron', second, fields, zone };
}

/** cronText is the expression cron-parser reads: the seconds field first when there is one. */
function cronText(second: string | undefined, fields: readonly string[]): string {
  return second === undefined ? fields.join(' ') : `${second} ${fields.join(' ')}`;
}

/** checkSecond allows no letters in the seconds field, and reports cron-parser's complaint about it. */
function checkSecond(field: string, fail: Fail): void {
  const letters = /[a-z]+/i.exec(field);
  if (letters !== null) fail(`second field ${quote(field)}: unexpected ${quote(letters[0])}`);
  const problem = cronParserProblem(`${field} * * * * *`);
  if (problem !== undefined) fail(`second field ${quote(field)}: ${translate(problem)}`);
}

/** checkLetters allows only the letters cron-parser understands, and never `H`. */
function checkLetters(field: string, index: number, fail: Fail): void {
  const name = fieldNames[index] ?? 'cron';
  for (const letters of field.match(/[a-z]+/gi) ?? []) {
    const lower = letters.toLowerCase();
    if (lower === 'h') {
      fail(
        `${name} field ${quote(field)}: the hash symbol H is not supported; give explicit values`,
      );
    }
    if (index === 3 && monthNames.has(lower)) continue;
    // A weekday name, alone or with L for the month's last one ("FRIL" = "5L").
    const weekday = letters.length === 4 && letters.endsWith('L') ? lower.slice(0, 3) : lower;
    if (index === 4 && weekdayNames.has(weekday)) continue;
    if (letters === 'L' && (index === 2 || index === 4)) continue;
    if (index === 3) {
      fail(`${name} field ${quote(field)}: unknown name ${quote(letters)} (expected JAN ... DEC)`);
    }
    if (index === 4) {
      fail(`${name} field ${quote(field)}: unknown name ${quote(letters)} (expected SUN ... SAT)`);
    }
    fail(`${name} field ${quote(field)}: unexpected ${quote(letters)}`);
  }
}

/** cronParserProblem is cron-parser's complaint about the fields, if any. */
function cronParserProblem(text: string): string | undefined {
  try {
    CronExpressionParser.parse(text, { currentDate: epoch, tz: 'UTC' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** explain turns cron-parser's complaint into a message naming the field at fault (checkSecond vetted the seconds). */
function explain(fields: CronFields, problem: string, fail: Fail): never {
  // Parse each field alone (the others `*`) to find the one at fault.
  for (const [index, field] of fields.entries()) {
    const alone = fields.map((other, position) => (position === index ? other : '*'));
    const fieldProblem = cronParserProblem(alone.join(' '));
    if (fieldProblem !== undefined) {
      const sundayTwice = index === 4 && /duplicate values found: 0$/.test(fieldProblem);
      const detail = sundayTwice
        ? 'Sunday is listed twice (0, 7 and SUN all mean Sunday)'
        : translate(fieldProblem);
      fail(`${fieldNames[index] ?? 'cron'} field ${quote(field)}: ${detail}`);
    }
  }
  if (problem === 'Invalid explicit day of month definition') {
    fail(
      `day-of-month ${quote(fields[2])} never occurs in month ${quote(fields[3])}; the expression would never fire`,
    );
  }
  return fail(translate(problem));
}

// cron-parser's messages, reworded for users; the first match wins.
const translations: readonly (readonly [RegExp, string])[] = [
  [/got value (\S+) expected range (\d+)-(\d+)/, 'value $1 is out of range $2-$3'],
  [/got range (\S+) expected range (\d+)-(\d+)/, 'range $1 goes beyond $2-$3'],
  [/^Invalid range: (\S+), min\(\d+\) > max\(\d+\)/, 'range $1 runs backwards'],
  [/^Invalid range: (\S+), min > max/, 'range $1 runs backwards'],
  [/^Invalid range: ([^,]+)$/, 'malformed range $1'],
  [/cannot repeat at every (\S+) time/, 'a step must be a number of 1 or more'],
  [/^Invalid step: (\S+), must be positive/, 'a step must be a number of 1 or more'],
  [/^Invalid repeat: /, 'malformed step'],
  [/^Invalid characters/, 'unexpected characters'],
  [/^Invalid wildcard/, '"*" and "?" must stand alone or before a step ("*/5")'],
  [/^Invalid list value format/, 'malformed list'],
  [/duplicate values found: (.*)$/, 'value $1 is listed twice'],
  [/invalid dayOfWeek occurrence number/, 'the occurrence after "#" must be 1 to 5'],
  [/`#` and `(.)` special characters are incompatible/, '"#" cannot be combined with "$1"'],
  [/unexpected standalone L/, '"L" needs a weekday before it (e.g. "5L", the last Friday)'],
  [/cannot resolve alias "(.*)"/, 'unknown name "$1"'],
  [/too many values/, 'too many values'],
  [/too long/, 'the expression is too long'],
];

/** translate rewords a cron-parser message; unknown ones pass through. */
function translate(message: string): string {
  for (const [pattern, replacement] of translations) {
    const match = pattern.exec(message);
    if (match !== null)
      return replacement.replace(/\$(\d)/g, (_, group: string) => match[Number(group)] ?? '');
  }
  return message;
}

/**
 * cronGrid evaluates the fields on the local timeline: cron-parser runs in
 * UTC over local date-times written as if UTC. Its `next()` and `prev()` are
 * strict there (a match at the start date is skipped), which `atOrBefore`
 * counters by starting one millisecond later. A search that cron-parser
 * gives up on (its loop limit) yields undefined.
 */
export function cronGrid(schedule: CronSchedule): LocalGrid {
  const expression = compiled(schedule);
  const step = (from: LocalDateTime, direction: 'next' | 'prev'): LocalDateTime | undefined => {
    expression.reset(new Date(from));
    try {
      return (direction === 'next' ? expression.next() : expression.prev()).getTime();
    } catch {
      return undefined;
    }
  };
  return {
    atOrBefore: (local) => step(local + 1, 'prev'),
    after: (local) => step(local, 'next'),
  };
}

// Parsed cron-parser expressions, per (cached, frozen) Schedule. Each use
// resets the expression's position first, and nothing in between yields, so
// sharing one is safe.
const compiledBySchedule = new WeakMap<CronSchedule, CronExpression>();

function compiled(schedule: CronSchedule): CronExpression {
  let expression = compiledBySchedule.get(schedule);
  if (expression === undefined) {
    expression = CronExpressionParser.parse(cronText(schedule.second, schedule.fields), {
      currentDate: epoch,
      tz: 'UTC',
    });
    compiledBySchedule.set(schedule, expression);
  }
  return expression;
}
