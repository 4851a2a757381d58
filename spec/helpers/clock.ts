/**
 * fakeClock is a clock tests move by hand: `set` to an instant, `advance` by
 * ms. Engines given the same fakeClock see the same instants.
 */
export interface FakeClock {
  (): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export function fakeClock(start = '2023-10-20T00:00:00Z'): FakeClock {
  let nowMs = Date.parse(start);
  const clock = () => new Date(nowMs);
  return Object.assign(clock, {
    set: (iso: string) => {
      const ms = Date.parse(iso);
      if (Number.isNaN(ms)) throw new RangeError(`fakeClock: not an instant: ${iso}`);
      nowMs = ms;
    },
    advance: (ms: number) => {
      nowMs += ms;
    },
  });
}
