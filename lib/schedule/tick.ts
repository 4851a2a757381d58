/**
 * tick-1 and tick+1 (docs/semantics.md §4.4): the greatest point instant
 * strictly before now and the least strictly after it, where the point
 * instants are resolve(g) for the grid points g of the expression.
 */

import { TaskCronError } from '../errors.js';
import { DAY_MS } from './calendar.js';
import { cronGrid } from './cron.js';
import { quote } from './grammar.js';
import { intervalGrid, type LocalGrid } from './grid.js';
import { parseSchedule } from './parse.js';
import type { LocalDateTime, Schedule } from './types.js';
import { localOf, resolve, timeZone } from './zone.js';

/** Ticks are an expression's neighbouring ticks around now. */
export interface Ticks {
  /** The greatest tick strictly before now. */
  readonly tickM1: Date;
  /** The least tick strictly after now. */
  readonly tickP1: Date;
}

/** FIRST_TICK_MS is the earliest instant a tick may be: 1970-01-01T00:00:00Z. */
const FIRST_TICK_MS = 0;
/** LAST_TICK_MS is the latest instant a tick may be: 9999-12-31T23:59:59.999Z, the last with a four-digit year. */
const LAST_TICK_MS = 253_402_300_799_999;

// A local date-time this far outside the tick range resolves outside it in
// every zone (offsets stay within a day), so the search stops there.
const LOCAL_MIN = FIRST_TICK_MS - 2 * DAY_MS;
const LOCAL_MAX = LAST_TICK_MS + 2 * DAY_MS;

// Bounds the walk past points that resolve to the wrong side of now: a few
// dozen at most in a repeated hour, or across a skipped day.
const MAX_POINTS_WALKED = 100_000;

const NO_MATCH = (tick: string): string => `no ${tick} found: no date within reach matches`;

/**
 * schedule computes tick-1 and tick+1 of an `@every` expression at `now`:
 * the ticks strictly before and after it, so a `now` exactly on a point gets
 * the points on either side. Throws TaskCronError when the expression cannot
 * be read, or when a tick cannot be found or falls outside
 * 1970-01-01T00:00:00Z ... 9999-12-31T23:59:59.999Z.
 *
 *     schedule('hour', new Date('2023-09-28T14:23:24.161Z'))
 *     // { tickM1: 2023-09-28T14:00:00Z, tickP1: 2023-09-28T15:00:00Z }
 */
export function schedule(expression: string, now: Date): Ticks {
  // Checked by tag, not instanceof, so a Date from another realm (a vm context) passes.
  if (Object.prototype.toString.call(now) !== '[object Date]' || Number.isNaN(now.getTime())) {
    throw new TypeError(`schedule: now must be a valid Date, got ${String(now)}`);
  }
  const parsed = parseSchedule(expression);
  const { tickM1, tickP1 } = findTicks(parsed, now.getTime(), expression);
  return { tickM1: new Date(tickM1), tickP1: new Date(tickP1) };
}

/** gridOf is the local grid of a parsed expression. */
function gridOf(parsed: Schedule): LocalGrid {
  return parsed.kind === 'cron' ? cronGrid(parsed) : intervalGrid(parsed);
}

/**
 * findTicks walks the grid around now's local date-time. resolve() never
 * decreases, so points at or before now's local date-time resolve at or
 * before now; but points after it may also resolve before now (inside a
 * repeated hour, row Z20 of §4.7). Hence: walk forward until a point
 * resolves after now (tick+1), keeping the last one that resolved before
 * (tick-1); if there was none, walk backward from now's local date-time.
 */
function findTicks(
  parsed: Schedule,
  nowMs: number,
  expression: string,
): { tickM1: number; tickP1: number } {
  const zone = timeZone(parsed.zone);
  const grid = gridOf(parsed);
  const nowLocal = localOf(nowMs, zone);
  const problem = (detail: string): TaskCronError =>
    new TaskCronError(`${quote(expression)} at ${instantText(nowMs)}: ${detail}`);

  let tickM1: number | undefined;
  let tickP1: number | undefined;
  let point: LocalDateTime = nowLocal;
  for (let walked = 0; tickP1 === undefined; walked += 1) {
    const next = grid.after(point);
    if (next === undefined || walked >= MAX_POINTS_WALKED) throw problem(NO_MATCH('tick+1'));
    if (next > LOCAL_MAX) throw problem(`tick+1 would fall after ${instantText(LAST_TICK_MS)}`);
    const instant = resolve(next, zone);
    if (instant > nowMs) tickP1 = instant;
    else if (instant < nowMs) tickM1 = instant;
    // Every point up to the instant's own local time resolves to it (a whole
    // gap does): step past them at once.
    point = Math.max(next, localOf(instant, zone));
  }

  let previous = grid.atOrBefore(nowLocal);
  for (let walked = 0; tickM1 === undefined; walked += 1) {
    if (previous === undefined || walked >= MAX_POINTS_WALKED) throw problem(NO_MATCH('tick-1'));
    if (previous < LOCAL_MIN)
      throw problem(`tick-1 would fall before ${instantText(FIRST_TICK_MS)}`);
    const instant = resolve(previous, zone);
    if (instant < nowMs) tickM1 = instant;
    // Points after the local time just before the instant resolve to it or
    // later (a whole gap does): step back past them at once.
    else previous = grid.atOrBefore(Math.min(previous - 1, localOf(instant - 1, zone)));
  }

  if (tickM1 < FIRST_TICK_MS) {
    throw problem(`tick-1 would fall before ${instantText(FIRST_TICK_MS)}`);
  }
  if (tickP1 > LAST_TICK_MS) {
    throw problem(`tick+1 would fall after ${instantText(LAST_TICK_MS)}`);
  }
  return { tickM1, tickP1 };
}

/** instantText writes an instant for messages in the formatTime style (§1.5). */
function instantText(instantMs: number): string {
  return new Date(instantMs).toISOString().replace(/\.?0*Z$/, 'Z');
}
