/** Clock is the engine's only source of time. Tests inject one they can move. */
export type Clock = () => Date;

/** systemClock reads the machine's wall clock; the only `new Date()` of lib/ used for decisions. */
export const systemClock: Clock = () => new Date();
