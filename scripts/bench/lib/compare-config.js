// Command-line flags and the sizes they imply.
import { parseArgs } from 'node:util';

/** The sections `--only` may name, in the order they run. */
export const sectionNames = ['lifecycle', 'cost', 'add', 'wakeup', 'depth', 'original'];

/**
 * config reads `--runs N` (default 3), `--quick` (stop at 100k tasks,
 * smaller counts everywhere: a smoke test, not a measurement) and `--only
 * <section>` (that section alone, printed and not written to the docs).
 */
export function config(args = process.argv.slice(2)) {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: 'string', default: '3' },
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  const only = values.only;
  if (only !== undefined && !sectionNames.includes(only)) {
    throw new Error(`--only wants one of ${sectionNames.join(', ')}`);
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a positive integer`);
  const quick = values.quick;
  const processedMost = quick ? 2_000 : 5_000;
  const flags = [
    quick ? '--quick' : '',
    values.runs === '3' ? '' : `--runs ${runs}`,
    only === undefined ? '' : `--only ${only}`,
  ];
  return {
    runs,
    quick,
    only,
    command: ['node scripts/bench/compare.js', ...flags].filter(Boolean).join(' '),
    lifecycle: { count: quick ? 10_000 : 50_000 },
    add: { each: quick ? 1_000 : 5_000, batched: quick ? 10_000 : 50_000 },
    wakeup: { count: quick ? 300 : 1_000, gapMs: 5 },
    depth: {
      depths: quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000],
      processed: (depth) => Math.min(processedMost, depth / 2),
      // A shallow queue gets more runs so each figure rests on processedMost
      // tasks, not on a few ms after a start; a fill of 1M runs once (time budget).
      runsAt: (depth) =>
        depth >= 1_000_000 ? 1 : Math.max(runs, Math.ceil(processedMost / (depth / 2))),
      concurrency: 10,
      memoryAt: 100_000,
    },
    original: {
      depths: [100, 1_000, 10_000, 50_000],
      claims: (depth) =>
        depth >= 50_000 ? (quick ? 10 : 50) : Math.min(quick ? 50 : 200, depth / 2),
    },
  };
}
