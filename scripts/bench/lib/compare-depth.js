// Scenarios 4 and 5, depth scaling and memory: fill a fresh queue to a depth,
// then time a no-op worker through a fixed number of tasks. The fill at the
// memory depth is also where Redis memory per waiting task is read: on a
// fresh queue, after filling, before processing.
import { number, table } from './report.js';
import { processCount } from './compare-count.js';
import { progress } from './compare-progress.js';
import { withQueue } from './compare-queue.js';
import { alternate, summary } from './compare-runs.js';
import { median, medianOf, range, ratio, sideBySide } from './compare-cells.js';
import { timed } from './setup.js';

/** depthScaling returns both sections, ours' deepest / shallowest ratio and the memory medians. */
export async function depthScaling(context) {
  const { sides, depths, runsAt, memoryAt } = context;
  const results = [];
  for (const depth of depths) {
    const runs = runsAt(depth);
    const [ours, theirs] = await alternate(
      runs,
      sides.map((side) => (run) => depthRun(side, depth, { ...context, run, runs })),
    );
    results.push({ depth, ours, theirs });
  }
  const base = results[0];
  const top = results[results.length - 1];
  const rate = (list) => summary(list.map((result) => result.rate));
  const rows = results.map(({ depth, ours, theirs }) => [
    number(depth),
    median(rate(ours)),
    range(rate(ours)),
    ratio(rate(ours), rate(base.ours)),
    median(rate(theirs)),
    range(rate(theirs)),
    ratio(rate(theirs), rate(base.theirs)),
    ratio(rate(ours), rate(theirs)),
  ]);
  const atMemory = results.find((result) => result.depth === memoryAt);
  const bytes = (list) => summary(list.map((result) => result.bytesPerTask));
  return {
    depthBody: depthSection(rows, context),
    memoryBody: memorySection(bytes(atMemory.ours), bytes(atMemory.theirs), context),
    oursScaling: {
      from: base.depth,
      to: top.depth,
      ratio: rate(top.ours).median / rate(base.ours).median,
    },
    memory: { ours: bytes(atMemory.ours).median, theirs: bytes(atMemory.theirs).median },
  };
}

/** depthRun fills a fresh queue to `depth`; returns tasks/s and Redis bytes per waiting task. */
async function depthRun(side, depth, { bench, processed, concurrency, memoryAt, run, runs }) {
  return withQueue(side, 'depth', async (handle) => {
    const label = `depth ${number(depth)}, run ${run + 1}/${runs}, ${side.name}`;
    const before = await bench.usedMemory();
    const fillMs = await timed(() => handle.fill(depth));
    const bytesPerTask = ((await bench.usedMemory()) - before) / depth;
    if (depth >= 100_000)
      progress(`${label}: filled at ${number(depth / (fillMs / 1000))} tasks/s`);
    const count = processed(depth);
    const ms = await processCount(handle, { concurrency, count });
    const rate = count / (ms / 1000);
    const memory = depth === memoryAt ? `, ${number(bytesPerTask, 1)} bytes per task` : '';
    progress(`${label}: ${number(rate)} tasks/s${memory}`);
    return { rate, bytesPerTask };
  });
}

function depthSection(rows, { runs, depths, processed, runsAt, concurrency }) {
  const each = (figure) => depths.map((depth) => number(figure(depth))).join(' / ');
  const least = Math.min(...depths.map((depth) => runsAt(depth) * processed(depth)));
  const deepest = depths[depths.length - 1];
  const once =
    runsAt(deepest) < runs
      ? ` At ${number(deepest)} each side ran once: its fill dominates the run time.`
      : '';
  return (
    '### Depth scaling\n\n' +
    `A fresh queue filled to the depth, then a no-op worker with concurrency ${concurrency} processes a fixed ` +
    `number of tasks (${each(processed)} for the depths in order) and stops; tasks/s from its start to the ` +
    `last of those completions. Median of alternating runs per side (${each(runsAt)} runs: shallow queues ` +
    `get more, so each figure rests on at least ${number(least)} processed tasks), min–max; ` +
    `"vs ${number(depths[0])}" compares each depth with the shallowest.${once}\n\n` +
    table(
      [
        'waiting',
        'rescue-engine tasks/s',
        'min–max',
        `vs ${number(depths[0])}`,
        'BullMQ jobs/s',
        'min–max',
        `vs ${number(depths[0])}`,
        'rescue-engine / BullMQ',
      ],
      rows,
    )
  );
}

function memorySection(ours, theirs, { runsAt, memoryAt }) {
  return (
    '### Redis memory per waiting task\n\n' +
    `Redis \`used_memory\` delta per task after filling a fresh queue with ${number(memoryAt)} tasks, before ` +
    "processing (the depth-scaling runs at that depth): rescue-engine's plain tasks `{ meta: { n: '<index>' } }`, " +
    "BullMQ's jobs with data `{}` and `{ removeOnComplete: true }`. Cleanup uses DEL (BullMQ: `obliterate`), " +
    `never lazy frees. ${medianOf(runsAt(memoryAt))}, min–max; lower is better.\n\n` +
    table(
      ['', 'rescue-engine bytes', 'min–max', 'BullMQ bytes', 'min–max', 'rescue-engine / BullMQ'],
      [['per waiting task', ...sideBySide(ours, theirs, 1)]],
    )
  );
}
