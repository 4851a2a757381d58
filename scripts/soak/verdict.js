// The soak's verdict: pure, so spec/soak/verdict.spec.ts can check it.

/** The window the verdict reads: the last ten minutes. */
export const windowMinutes = 10;
/** Growth at or beyond this share of the earlier level is growth. */
export const flatLimit = 0.02;

/**
 * growth is how much a series grew over the last ten minutes: the median of
 * the samples of the last ten minutes against the median of the ten minutes
 * before them, as a share of the latter. Medians, not the two end samples:
 * Redis memory and the key count move with the queue's depth and with the
 * presence keys of workers coming and going, so one sample at either end
 * can read that swing as growth, while a leak raises the whole window. A
 * run shorter than twenty minutes compares its second half with its first.
 * Undefined with fewer than two samples.
 */
export function growth(values, minutes) {
  if (values.length < 2) return undefined;
  const last = minutes[minutes.length - 1];
  const span = last - minutes[0] >= 2 * windowMinutes ? windowMinutes : (last - minutes[0]) / 2;
  const cut = last - span;
  const recent = values.filter((_, index) => minutes[index] > cut);
  const before = values.filter((_, index) => minutes[index] <= cut && minutes[index] > cut - span);
  if (recent.length === 0 || before.length === 0) return undefined;
  const earlier = median(before);
  return (median(recent) - earlier) / earlier;
}

/** median of a list of numbers (the lower middle of an even count). */
function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
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
