// Alternating runs: A B A B ..., so drift on a shared machine (another load,
// thermal throttling, a growing Redis) hits both sides alike.

/**
 * alternate calls each of `sides` (async functions of the run index) once per
 * run, in order, `runs` times; returns their results per side, in run order.
 */
export async function alternate(runs, sides) {
  const results = sides.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, side] of sides.entries()) results[index].push(await side(run));
  }
  return results;
}

/**
 * rotate is alternate with the order turned by one each run (A B C, B C A,
 * C A B, ...), so no side always runs first, after the same neighbour.
 */
export async function rotate(runs, sides) {
  const results = sides.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (let step = 0; step < sides.length; step++) {
      const index = (run + step) % sides.length;
      results[index].push(await sides[index](run));
    }
  }
  return results;
}

/** summary returns the median, min and max of a list of figures. */
export function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], runs: sorted.length };
}
