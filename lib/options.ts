// The checks of option values that the Engine, Worker, createDashboard and
// registerMetrics options (and the timeouts of wait and run) share, so one
// mistake gets one error class everywhere: a value of the wrong kind (not a
// number, not an integer, below 0 or 1 where the kind is non-negative or
// positive) is a TypeError; a value of the right kind beyond its bounds is a
// RangeError. Each message starts with `what`, which names the option
// (`Engine option "expiry"`, `createDashboard: option "history"`).
import { longestTimerMs } from './clock.js';
import { describe } from './task/describe.js';

/** The bounds of a number option: `least` 0 or 1 is the kind (non-negative, positive), more a bound. */
export interface Bounds {
  readonly least: number;
  readonly most: number;
  /** ' ms' for durations the messages name as such. */
  readonly unit?: '' | ' ms';
}

/** timerBounds: a duration a timer waits, from `least` ms up to the longest timer. */
export function timerBounds(least: number, unit: '' | ' ms' = ' ms'): Bounds {
  return { least, most: longestTimerMs, unit };
}

/** requireInteger checks an integer option within its bounds and returns it. */
export function requireInteger(what: string, value: unknown, bounds: Bounds): number {
  return requireNumber(what, value, bounds, 'integer');
}

/** requireFinite checks a finite number option (fractions allowed) within its bounds and returns it. */
export function requireFinite(what: string, value: unknown, bounds: Bounds): number {
  return requireNumber(what, value, bounds, 'number');
}

/** requirePositive checks a positive finite number option (a scale) and returns it. */
export function requirePositive(what: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new TypeError(`${what} must be a positive number; got ${describe(value)}`);
  return value;
}

function requireNumber(
  what: string,
  value: unknown,
  { least, most, unit = '' }: Bounds,
  kind: 'integer' | 'number',
): number {
  const sign = least === 0 ? 'non-negative ' : least === 1 ? 'positive ' : '';
  const ofUnit = unit === '' ? '' : ' of ms';
  const ofKind =
    typeof value === 'number' &&
    (kind === 'integer' ? Number.isInteger(value) : Number.isFinite(value));
  if (!ofKind || (least <= 1 && value < least)) {
    throw new TypeError(`${what} must be a ${sign}${kind}${ofUnit}; got ${describe(value)}`);
  }
  if (value < least || value > most) {
    const range =
      least <= 1
        ? `at most ${count(most)}${unit}`
        : `from ${count(least)} to ${count(most)}${unit}`;
    throw new RangeError(`${what} must be ${range}; got ${count(value)}`);
  }
  return value;
}

/** requireBoolean checks a boolean option and returns it. */
export function requireBoolean(what: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new TypeError(`${what} must be a boolean; got ${describe(value)}`);
  return value;
}

/** requireFunction checks a function option (a clock, a callback) and returns it. */
export function requireFunction<T>(what: string, value: T): T {
  if (typeof value !== 'function')
    throw new TypeError(`${what} must be a function; got ${describe(value)}`);
  return value;
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
