/** Clock is the engine's only source of time. Tests inject one they can move. */
export type Clock = () => Date;

/** systemClock reads the machine's wall clock; the only `new Date()` of lib/ used for decisions. */
export const systemClock: Clock = () => new Date();

/**
 * The longest a Node.js timer waits (2^31 − 1 ms, about 24.8 days): a longer
 * delay fires at once. Every lease, interval, timeout and retry delay the
 * engine and its workers time with timers is bounded by it.
 */
export const longestTimerMs = 2 ** 31 - 1;
