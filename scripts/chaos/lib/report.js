// The chaos suite's table: a column per scenario, a row per count of
// analyze.js (sixteen counts side by side would not read as a table).
import { number, table } from '../../bench/lib/report.js';
import { percentile } from './analyze.js';
import { scenarios } from './scenarios.js';

const withLongest = (count, ms) => (count === 0 ? '0' : `${number(count)} (${number(ms)} ms)`);

const rows = [
  [
    'faults injected',
    (r) =>
      Object.entries(r.faults)
        .map(([kind, count]) => `${number(count)} ${kind}`)
        .join(', ') || 'none',
  ],
  ['created (acknowledged)', (r) => number(r.created)],
  ['completed', (r) => number(r.completed)],
  ['lost', (r) => number(r.lost)],
  ['duplicated creates', (r) => number(r.duplicated)],
  ['create errors', (r) => number(r.unacknowledged)],
  ['overlapping live runs (longest)', (r) => withLongest(r.overlaps, r.overlapMs)],
  ['runs working past their lease (longest)', (r) => withLongest(r.pastLease, r.pastLeaseMs)],
  ['stale delete / extend that succeeded', (r) => number(r.staleWrites)],
  ['completions reported as lost', (r) => number(r.completionsReportedLost)],
  ['runs after the delete was acknowledged', (r) => number(r.rerunsAfterDone)],
  ['claims nobody ran', (r) => number(r.claimsNotRun)],
  ['left in the queue', (r) => number(r.left)],
  [
    'kill → re-run p50 / p99',
    (r) => {
      const p50 = percentile(r.rerunMs, 50);
      return p50 === undefined ? '–' : `${number(p50)} / ${number(percentile(r.rerunMs, 99))} ms`;
    },
  ],
  ['duration', (r) => `${number(r.seconds)} s`],
];

/** reportTable renders the results ({ name, ...counts } per scenario) as a Markdown table. */
export function reportTable(results) {
  return table(
    ['', ...results.map(({ name }) => name)],
    rows.map(([label, cell]) => [label, ...results.map(cell)]),
  );
}

/** scenarioTable says what each scenario does (from scenarios.js). */
export function scenarioTable(names) {
  return table(
    ['scenario', 'what it does'],
    names.map((name) => [name, scenarios[name].what]),
  );
}
