// The targets, each with the measured figure and met / missed.
import { number, table } from './report.js';

const verdict = (met) => (met ? 'met' : 'missed');
const times = (value) => `${number(value, 2)} ×`;

/** targets returns the "Targets" section from the scenarios' key figures. */
export function targets({ lifecycle, scaling, wakeup, memory }) {
  const lowest = Math.min(...lifecycle.map((entry) => entry.ratio));
  const short = scaling.to < 1_000_000;
  const rows = [
    [
      'lifecycle throughput ≥ 1.0 × BullMQ at every concurrency (aim 1.5 ×)',
      lifecycle.map((entry) => `${entry.label}: ${times(entry.ratio)}`).join('; '),
      `${verdict(lowest >= 1)}; aim ${verdict(lowest >= 1.5)}`,
    ],
    [
      'depth scaling: ours at 1M ≥ 0.8 × ours at 1k',
      `${number(scaling.to)} / ${number(scaling.from)}: ${times(scaling.ratio)}`,
      short ? 'not measured (--quick stops at 100k)' : verdict(scaling.ratio >= 0.8),
    ],
    [
      "wake-up p50 < 2 ms and no worse than BullMQ's",
      `${number(wakeup.ours, 2)} ms (BullMQ ${number(wakeup.theirs, 2)} ms)`,
      verdict(wakeup.ours < 2 && wakeup.ours <= wakeup.theirs),
    ],
    [
      "memory per waiting task ≤ BullMQ's",
      `${number(memory.ours, 1)} bytes (BullMQ ${number(memory.theirs, 1)} bytes)`,
      verdict(memory.ours <= memory.theirs),
    ],
  ];
  return (
    '### Targets\n\nThe medians above against the targets of the issue.\n\n' +
    table(['target', 'measured', 'result'], rows)
  );
}
