// Scenario 1, lifecycle throughput: N tasks created up front, then processed
// by a no-op handler until all N are completed and removed.
import { number, table } from './report.js';
import { processCount } from './compare-count.js';
import { processInChildren } from './compare-processes.js';
import { progress } from './compare-progress.js';
import { withQueue } from './compare-queue.js';
import { alternate, summary } from './compare-runs.js';
import { medianOf, sideBySide } from './compare-cells.js';

const settings = [
  { label: '1', concurrency: 1 },
  { label: '10', concurrency: 10 },
  { label: '50', concurrency: 50 },
  { label: '2 processes × 10', concurrency: 10, processes: 2 },
];

/** lifecycle returns the section and, per setting, ours / theirs of the medians. */
export async function lifecycle({ sides, runs, url, count }) {
  const rows = [];
  const ratios = [];
  for (const setting of settings) {
    const [ours, theirs] = (
      await alternate(
        runs,
        sides.map((side) => (run) => lifecycleRun(side, setting, { url, count, run, runs })),
      )
    ).map(summary);
    rows.push([setting.label, ...sideBySide(ours, theirs)]);
    ratios.push({ label: setting.label, ratio: ours.median / theirs.median });
  }
  const body =
    '### Lifecycle throughput\n\n' +
    `${number(count)} tasks (BullMQ: jobs with \`removeOnComplete: true\`, added with \`addBulk\` in chunks ` +
    'of 1,000; rescue-engine: `outcomeRetention: 0`, so neither keeps anything of a finished task) created up front, then processed by a no-op handler until all are completed and removed; ' +
    'tasks/s from the worker start to the last completion. Concurrency per worker; "2 processes × 10" is two ' +
    'worker processes with concurrency 10 each, started together on the pre-filled queue. ' +
    `${medianOf(runs)}, min–max, and the ratio of the medians.\n\n` +
    table(
      [
        'concurrency',
        'rescue-engine tasks/s',
        'min–max',
        'BullMQ jobs/s',
        'min–max',
        'rescue-engine / BullMQ',
      ],
      rows,
    );
  return { body, ratios };
}

/** lifecycleRun fills a fresh queue and returns tasks/s of processing all of it. */
async function lifecycleRun(side, setting, { url, count, run, runs }) {
  return withQueue(side, 'lifecycle', async (handle, queue) => {
    await handle.fill(count);
    const ms =
      setting.processes === undefined
        ? await processCount(handle, { concurrency: setting.concurrency, count })
        : await processInChildren(side.kind, { url, queue, count, ...setting });
    const rate = count / (ms / 1000);
    progress(
      `lifecycle, concurrency ${setting.label}, run ${run + 1}/${runs}, ${side.name}: ${number(rate)} tasks/s`,
    );
    return rate;
  });
}
