// Scenario 2, add throughput: one at a time, batched, and in batches of 16
// and 100 (createMany / addBulk, each call awaited).
import { number, table } from './report.js';
import { progress } from './compare-progress.js';
import { withQueue } from './compare-queue.js';
import { alternate, summary } from './compare-runs.js';
import { medianOf, sideBySide } from './compare-cells.js';
import { rate } from './setup.js';

/** The batch sizes of the createMany / addBulk rows (those of `npm run bench:instructions`). */
const batchSizes = [16, 100];

/** addThroughput returns the section. */
export async function addThroughput({ sides, runs, each, batched }) {
  const modes = [
    { label: 'one at a time', count: each, add: (handle, count) => handle.addEach(count) },
    { label: 'batched', count: batched, add: (handle, count) => handle.fill(count) },
    ...batchSizes.map((size) => ({
      label: `createMany / addBulk of ${size}`,
      count: batched,
      add: (handle, count) => handle.addBatches(count, size),
    })),
  ];
  const rows = [];
  for (const mode of modes) {
    const [ours, theirs] = (
      await alternate(
        runs,
        sides.map((side) => (run) => addRun(side, mode, { run, runs })),
      )
    ).map(summary);
    rows.push([`${mode.label} (${number(mode.count)})`, ...sideBySide(ours, theirs)]);
  }
  return (
    '### Add throughput\n\n' +
    'One at a time awaits each `create` / `add`. Batched: rescue-engine keeps 1,000 creates in flight ' +
    'on one connection; BullMQ calls `addBulk` with 1,000 jobs at a time. createMany / addBulk of N: ' +
    'each side awaits one call of N tasks (`engine.createMany`, `queue.addBulk`) before the next. Each run on a fresh ' +
    `queue. ${medianOf(runs)}, min–max, and the ratio of the medians.\n\n` +
    table(
      [
        'mode (count)',
        'rescue-engine tasks/s',
        'min–max',
        'BullMQ jobs/s',
        'min–max',
        'rescue-engine / BullMQ',
      ],
      rows,
    )
  );
}

async function addRun(side, mode, { run, runs }) {
  return withQueue(side, 'add', async (handle) => {
    const figure = await rate(mode.count, () => mode.add(handle, mode.count));
    progress(`add, ${mode.label}, run ${run + 1}/${runs}, ${side.name}: ${number(figure)} tasks/s`);
    return figure;
  });
}
