/**
 * Rate expressions (docs/semantics.md §4.7): `N per unit` or
 * `N per M units`, at most N claims in each window of a fixed length
 * (a month is 30 days, as for `@defer`). No clauses, no zones, no cron.
 */

import { TaskCronError } from '../errors.js';
import { unitMs } from './defer.js';
import { got, isIntervalHead, MAX_QUANTITY, quote, readHead, tokenize } from './grammar.js';
import { failFor } from './parse.js';
import { suggestExpression } from './suggest.js';
import type { Fail } from './grammar.js';

/** Rate is a parsed rate: at most `limit` claims in each window of `windowMs` milliseconds. */
export interface Rate {
  /** N of `N per ...`: 1 to 1 000 000. */
  readonly limit: number;
  /** Length of one window in milliseconds. */
  readonly windowMs: number;
}

const shape = 'a rate is "N per unit" or "N per M units" (e.g. "100 per minute")';

/**
 * parseRate reads a rate expression, or throws TaskCronError saying what is
 * wrong with it (with a `did you mean` when a repaired form reads).
 *
 *     parseRate('100 per minute') // { limit: 100, windowMs: 60_000 }
 *     parseRate('10 per 5 seconds') // { limit: 10, windowMs: 5_000 }
 */
export function parseRate(value: string): Rate {
  if (typeof value !== 'string') {
    throw new TaskCronError(`expected the rate as a string, got ${typeof value}`);
  }
  try {
    return readRate(value);
  } catch (error) {
    if (!(error instanceof TaskCronError)) throw error;
    // A message that already says how to write the one word it rejects needs no suggestion.
    const candidate = /; write "[^"]*"$/.test(error.message) ? undefined : suggestRate(value);
    throw new TaskCronError(
      candidate === undefined
        ? error.message
        : `${error.message}; did you mean ${quote(candidate)}?`,
    );
  }
}

/** formatRate writes a Rate back in the language's words (`100 per minute`). */
export function formatRate(rate: Rate): string {
  const units = Object.entries(unitMs).reverse();
  for (const [unit, ms] of units) {
    if (rate.windowMs % ms === 0) {
      const quantity = rate.windowMs / ms;
      return `${rate.limit} per ${quantity === 1 ? unit : `${quantity} ${unit}s`}`;
    }
  }
  return `${rate.limit} per ${rate.windowMs} ms`;
}

function isRate(value: string): boolean {
  try {
    readRate(value);
    return true;
  } catch {
    return false;
  }
}

function readRate(value: string): Rate {
  const fail = failFor(value);
  const tokens = tokenize(value);
  if (tokens.length === 0) fail('the rate is empty');
  const [count, per, ...tail] = tokens;
  const limit = readLimit(count ?? '', fail);
  if (per !== 'per') fail(`${shape}: expected "per" after ${quote(count ?? '')}, ${got(per)}`);
  if (tail.length === 0) fail(`${shape}: expected a unit after "per", but the expression ends`);
  if (!isIntervalHead(tail)) {
    const lower = tail.slice(0, 2).find((word) => isIntervalHead([word.toLowerCase()]));
    if (lower !== undefined) fail(`unit names are lower case; write ${quote(lower.toLowerCase())}`);
    fail(`${shape} with a unit second, minute, hour, day, week or month after "per"`);
  }
  const { unit, quantity, next } = readHead(tail, fail);
  const extra = tail[next];
  if (extra === 'in') fail(`${shape}; it takes no time zone`);
  if (extra !== undefined) fail(`${shape}; it takes no clause, got ${quote(extra)}`);
  return { limit, windowMs: quantity * unitMs[unit] };
}

/** readLimit reads N: decimal digits, no sign, no leading zero, 1 to MAX_QUANTITY. */
function readLimit(word: string, fail: Fail): number {
  if (/^[+-]\d+$/.test(word)) fail(`the limit must be digits without a sign, got ${quote(word)}`);
  if (!/^\d+$/.test(word)) {
    fail(`${shape}: expected the limit N in digits first, got ${quote(word)}`);
  }
  if (word === '0') fail(`the limit must be at least 1, got ${quote(word)}`);
  if (word.startsWith('0')) fail(`the limit must not start with 0, got ${quote(word)}`);
  if (word.length > String(MAX_QUANTITY).length || Number(word) > MAX_QUANTITY) {
    fail(`the limit must be at most ${MAX_QUANTITY}, got ${quote(word)}`);
  }
  return Number(word);
}

// Words people write where the language says "per".
const perWords: ReadonlySet<string> = new Set(['per', 'a', 'an', 'every', 'each', 'in', '/']);

/** suggestRate repairs `100/min`, `100 a minute`, `100 per minutes`, `100 per 5 min`. */
function suggestRate(value: string): string | undefined {
  const tokens = tokenize(value.replace(/\//g, ' / '));
  const [count = '', per, ...tail] = tokens;
  if (!/^\d+$/.test(count) || per === undefined || !perWords.has(per.toLowerCase())) {
    return undefined;
  }
  const joined = tail.join(' ');
  const singular = /^[a-zA-Z]+$/.test(joined) ? `1 ${joined}` : joined;
  const repaired = isRate(`${count} per ${joined}`)
    ? joined
    : suggestExpression(singular, (candidate) => isRate(`${count} per ${candidate}`));
  if (repaired === undefined) return undefined;
  const short = repaired.replace(/^1 /, '');
  const candidate = `${count} per ${isRate(`${count} per ${short}`) ? short : repaired}`;
  return candidate !== tokens.join(' ') && isRate(candidate) ? candidate : undefined;
}
