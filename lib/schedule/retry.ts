/**
 * Retry policies in the interval language: the value of a task's core
 * `retry` label (lib/task/label.ts).
 *
 *     policy   = backoff [ "with" "jitter" ] [ "x" N ]
 *     backoff  = "fixed" DURATION
 *              | "exponential" DURATION [ ".." DURATION ]
 *
 * DURATION is a `@defer` duration (`30 seconds`, `1 hour`); the second one of
 * an exponential backoff is its largest delay; N, the attempts at most, is
 * written as a quantity is (digits, no sign, no leading zero).
 *
 *     parseRetryLabel('exponential 1 second .. 1 hour with jitter x 5')
 *     // { backoff: 'exponential', delay: 1000, maxDelay: 3600000, jitter: true, attempts: 5 }
 */

import { longestTimerMs } from '../clock.js';
import { TaskCronError } from '../errors.js';
import { deferDuration } from './defer.js';
import { MAX_QUANTITY, got, quote, tokenize, type Fail } from './grammar.js';
import { failFor } from './parse.js';

/** RetryLabel is a parsed retry label: plain data, every field set but `attempts`. */
export interface RetryLabel {
  readonly backoff: 'fixed' | 'exponential';
  /** The first delay (ms); every delay of a fixed backoff. */
  readonly delay: number;
  /** The largest delay (ms): the second duration of an exponential backoff, else `delay`. */
  readonly maxDelay: number;
  readonly jitter: boolean;
  /** How many attempts at most; undefined: no limit but the task's own circuit breaker. */
  readonly attempts?: number;
}

const shape =
  'a retry policy is "fixed DURATION" or "exponential DURATION [.. DURATION]", then optionally "with jitter" and "x N"';

/** parseRetryLabel reads a retry label, or throws TaskCronError saying what is wrong with it. */
export function parseRetryLabel(value: string): RetryLabel {
  if (typeof value !== 'string') {
    throw new TaskCronError(`expected the retry policy as a string, got ${typeof value}`);
  }
  const fail: Fail = failFor(value);
  const tokens = tokenize(value);
  const [first] = tokens;
  if (first !== 'fixed' && first !== 'exponential') fail(`${shape}; ${got(first)} first`);
  const kind: RetryLabel['backoff'] = first;
  const keywords = new Set(['..', 'with', 'x']);
  let index = 1;
  const duration = (after: string): number => {
    const start = index;
    while (index < tokens.length && !keywords.has(tokens[index] ?? '')) index += 1;
    if (index === start) fail(`expected a duration after ${quote(after)}, ${got(tokens[index])}`);
    const ms = durationOf(tokens.slice(start, index).join(' '), fail);
    if (ms > longestTimerMs) {
      fail(`a delay must be at most ${longestTimerMs} ms (about 24 days), got ${ms} ms`);
    }
    return ms;
  };
  const delay = duration(kind);
  let maxDelay = delay;
  if (tokens[index] === '..') {
    if (kind === 'fixed') fail('a fixed backoff has one duration; ".." is for exponential ones');
    index += 1;
    maxDelay = duration('..');
    if (maxDelay < delay) fail('the largest delay (after "..") must not be shorter than the first');
  }
  let jitter = false;
  if (tokens[index] === 'with') {
    if (tokens[index + 1] !== 'jitter')
      fail(`expected "jitter" after "with", ${got(tokens[index + 1])}`);
    jitter = true;
    index += 2;
  }
  let attempts: number | undefined;
  if (tokens[index] === 'x') {
    attempts = attemptsOf(tokens[index + 1], fail);
    index += 2;
  }
  if (index < tokens.length) fail(`${shape}; unexpected ${quote(tokens[index] ?? '')}`);
  const policy = { backoff: kind, delay, maxDelay, jitter };
  return attempts === undefined ? policy : { ...policy, attempts };
}

/** durationOf reads a duration as `@defer` does, quoting the whole policy in the message. */
function durationOf(text: string, fail: Fail): number {
  try {
    return deferDuration(text);
  } catch (error) {
    if (!(error instanceof TaskCronError)) throw error;
    // deferDuration quotes the duration alone: keep its reason, after the quote
    return fail(
      error.message.replace(/^"(?:[^"\\]|\\.)*": /, '').replace('@defer duration', 'duration'),
    );
  }
}

function attemptsOf(word: string | undefined, fail: Fail): number {
  if (word === undefined || !/^[1-9]\d*$/.test(word)) {
    return fail(`expected the attempts after "x" as digits from 1 (e.g. "x 5"), ${got(word)}`);
  }
  if (word.length > String(MAX_QUANTITY).length || Number(word) > MAX_QUANTITY) {
    return fail(`the attempts must be at most ${MAX_QUANTITY}, got ${quote(word)}`);
  }
  return Number(word);
}
