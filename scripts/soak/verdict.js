// The soak's verdict: pure, so spec/soak/verdict.spec.ts can check it.

/** The window the verdict reads: the last ten minutes. */
export const windowMinutes = 10;
/** Growth at or beyond this share of the window's first value is growth. */
export const flatLimit = 0.02;

/**
 * growth is how much a series grew over the last ten minutes, as a share of
 * its value at the window's start: from the sample ten minutes before the
 * last (or the first sample after the start, for a shorter run) to the last.
 * Undefined with fewer than two samples.
 */
export function growth(values, minutes) {
  if (values.length < 2) return undefined;
  const last = minutes[minutes.length - 1];
  let from = minutes.findIndex((minute) => minute >= last - windowMinutes);
  if (from === values.length - 1) from = values.length - 2;
  const first = values[from];
  return (values[values.length - 1] - first) / first;
}

/** verdict: flat when no series grew by flatLimit or more (a series with too few samples is not flat). */
export function verdict(series, minutes) {
  const growing = Object.entries(series)
    .filter(([, values]) => {
      const change = growth(values, minutes);
      return change === undefined || !(change < flatLimit);
    })
    .map(([name]) => name);
  return { flat: growing.length === 0, growing };
}
