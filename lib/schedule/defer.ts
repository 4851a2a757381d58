/**
 * `@defer` durations (docs/semantics.md §4.6): `unit`, `1 unit` or
 * `N units`, a fixed length of time. No clauses, no zones, no cron.
 */

import { TaskCronError } from '../errors.js';
import { isIntervalHead, quote, readHead, tokenize } from './grammar.js';
import { failFor } from './parse.js';
import { withSuggestion } from './suggest.js';
import type { Unit } from './types.js';

/** unitMs is the fixed length of each unit; a month is 30 days. */
export const unitMs: Readonly<Record<Unit, number>> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 2_592_000_000,
};

const shape = 'a @defer duration is "unit", "1 unit" or "N units" (e.g. "2 hours")';

/**
 * deferDuration is the length in milliseconds of a `@defer` value: N times
 * minute 60 000, hour 3 600 000, day 86 400 000, week 604 800 000 or
 * month 2 592 000 000 (30 days). Throws TaskCronError for anything else.
 *
 *     deferDuration('2 hours') // 7_200_000
 */
export function deferDuration(value: string): number {
  if (typeof value !== 'string') {
    throw new TaskCronError(`expected the @defer duration as a string, got ${typeof value}`);
  }
  try {
    return readDuration(value);
  } catch (error) {
    if (!(error instanceof TaskCronError)) throw error;
    throw new TaskCronError(withSuggestion(value, error.message, isDuration));
  }
}

/** isDuration tells whether a value is a @defer duration (no suggestion). */
function isDuration(value: string): boolean {
  try {
    readDuration(value);
    return true;
  } catch {
    return false;
  }
}

function readDuration(value: string): number {
  const fail = failFor(value);
  const tokens = tokenize(value);
  if (tokens.length === 0) fail('the @defer duration is empty');
  if (!isIntervalHead(tokens)) {
    const lower = tokens.slice(0, 2).find((word) => isIntervalHead([word.toLowerCase()]));
    if (lower !== undefined) fail(`unit names are lower case; write ${quote(lower.toLowerCase())}`);
    fail(`${shape} with a unit second, minute, hour, day, week or month`);
  }
  const { unit, quantity, next } = readHead(tokens, fail);
  const extra = tokens[next];
  if (extra === 'in') fail(`${shape}; it takes no time zone`);
  if (extra !== undefined) fail(`${shape}; it takes no clause, got ${quote(extra)}`);
  return quantity * unitMs[unit];
}
