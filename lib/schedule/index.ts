/**
 * The interval language of `@every` and `@defer` (docs/semantics.md §4):
 * `schedule` computes an expression's ticks around now, `parseSchedule`
 * validates an expression, `deferDuration` reads a `@defer` value. Pure: the
 * module never reads a clock; `now` is always an argument.
 */

export { deferDuration } from './defer.js';
export { formatRate, parseRate } from './rate.js';
export { parseSchedule } from './parse.js';
export { schedule, type Ticks } from './tick.js';
export type { IntervalSchedule, Schedule } from './types.js';
