// Scenario 3, wake-up latency: an idle worker, tasks created one at a time
// with a gap; the time from the create / add call to the start of the handler.
import { number, table } from './report.js';
import { progress } from './compare-progress.js';
import { withQueue } from './compare-queue.js';
import { alternate, summary } from './compare-runs.js';
import { medianOf, sideBySide } from './compare-cells.js';

const marks = ['p50', 'p95', 'p99'];

/** wakeupLatency returns the section and the p50 medians of both sides. */
export async function wakeupLatency({ sides, runs, count, gapMs }) {
  const [ours, theirs] = await alternate(
    runs,
    sides.map((side) => (run) => wakeupRun(side, { count, gapMs, run, runs })),
  );
  const per = (results, mark) => summary(results.map((figures) => figures[mark]));
  const rows = marks.map((mark) => [mark, ...sideBySide(per(ours, mark), per(theirs, mark), 2)]);
  const body =
    '### Wake-up latency\n\n' +
    `An idle worker (rescue-engine: \`Worker\` with \`pollInterval\` 60 s; BullMQ: \`Worker\` with concurrency 1 ` +
    `blocked on an empty queue) and ${number(count)} tasks created one at a time, ${gapMs} ms apart: ms from the ` +
    '`create` / `add` call to the start of the handler; a fresh queue per run. ' +
    `Each percentile: ${medianOf(runs).toLowerCase()}, min–max; lower is better.\n\n` +
    table(
      [
        'percentile',
        'rescue-engine ms',
        'min–max',
        'BullMQ ms',
        'min–max',
        'rescue-engine / BullMQ',
      ],
      rows,
    );
  return { body, p50: { ours: per(ours, 'p50').median, theirs: per(theirs, 'p50').median } };
}

async function wakeupRun(side, { count, gapMs, run, runs }) {
  return withQueue(side, 'wakeup', async (handle) => {
    const figures = await handle.wakeup({ count, gapMs });
    progress(
      `wake-up, run ${run + 1}/${runs}, ${side.name}: p50 ${number(figures.p50, 2)} ms, ` +
        `p99 ${number(figures.p99, 2)} ms`,
    );
    return figures;
  });
}
