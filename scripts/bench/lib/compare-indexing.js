// Scenario 6, the original's access pattern: claims/s of an emulated Go
// original (compare-original.js) next to ours' claim-and-delete at the same
// depth, i.e. what indexing buys. BullMQ has no counterpart here.
import { number, table } from './report.js';
import { openOriginal } from './compare-original.js';
import { progress } from './compare-progress.js';
import { freshName, withQueue } from './compare-queue.js';
import { alternate, summary } from './compare-runs.js';
import { median, medianOf, range, ratio } from './compare-cells.js';
import { rate } from './setup.js';

/** indexing returns the section. */
export async function indexing({ bench, oursSide, runs, depths, claims }) {
  const rows = [];
  for (const depth of depths) {
    const count = claims(depth);
    const label = (run, who) =>
      `original's pattern, depth ${number(depth)}, run ${run + 1}/${runs}, ${who}`;
    const [original, ours] = (
      await alternate(runs, [
        async (run) => report(label(run, 'original'), await originalRun(bench, depth, count)),
        async (run) => report(label(run, 'rescue-engine'), await oursRun(oursSide, depth, count)),
      ])
    ).map(summary);
    rows.push([
      number(depth),
      number(count),
      median(original, 1),
      range(original, 1),
      median(ours, 1),
      range(ours, 1),
      ratio(ours, original),
    ]);
  }
  return (
    "### The original's access pattern\n\n" +
    'One client emulates a claim in the Go original: `SET lock token NX PX 10000` (retried until acquired), ' +
    '`ZRANGE 0 -1 WITHSCORES` of the one sorted set of JSON tasks (score: the object id), `JSON.parse` of every ' +
    'member, the first unowned one rewritten with worker and expiry labels (`ZREM` the old member, `ZADD` the ' +
    'new one with the same score), the lock released by a compare-and-delete script. Next to it ' +
    "rescue-engine's `search()` + `delete()`, one at a time, on a queue of the same depth: what indexing buys. " +
    'Each claims the given number of tasks from a freshly filled queue. ' +
    `${medianOf(runs, 'each')}, min–max. No BullMQ counterpart.\n\n` +
    table(
      [
        'waiting',
        'claims',
        'original claims/s',
        'min–max',
        'rescue-engine claim+delete/s',
        'min–max',
        'rescue-engine / original',
      ],
      rows,
    )
  );
}

function report(label, figure) {
  progress(`${label}: ${number(figure, 1)}/s`);
  return figure;
}

async function originalRun(bench, depth, count) {
  const prefix = freshName('original');
  const original = openOriginal(bench.server.url, prefix);
  try {
    await original.fill(depth);
    return await rate(count, async () => {
      for (let index = 0; index < count; index++) await original.claim();
    });
  } finally {
    await bench.dropQueue(prefix);
    await original.close();
  }
}

function oursRun(side, depth, count) {
  return withQueue(side, 'indexing', async (handle) => {
    await handle.fill(depth);
    return rate(count, () => handle.claimAndDelete(count));
  });
}
