// The chaos suite's table: one row per scenario, the counts of analyze.js.
import { number, table } from '../../bench/lib/report.js';
import { percentile } from './analyze.js';

const header = [
  'scenario',
  'faults injected',
  'created (acked)',
  'completed',
  'lost',
  'duplicated creates',
  'create errors',
  'overlapping live runs (longest)',
  'runs past their lease (longest)',
  'stale delete / extend ok',
  'completions reported lost',
  'runs after done',
  'claims nobody ran',
  'left in queue',
  'kill → re-run p50 / p99',
  'time',
];

/** row turns a scenario's result into the cells of its table row. */
export function row(name, result) {
  const faults = Object.entries(result.faults)
    .map(([kind, count]) => `${number(count)} ${kind}`)
    .join(', ');
  const p50 = percentile(result.rerunMs, 50);
  const p99 = percentile(result.rerunMs, 99);
  return [
    name,
    faults || 'none',
    number(result.created),
    number(result.completed),
    number(result.lost),
    number(result.duplicated),
    number(result.unacknowledged),
    withLongest(result.overlaps, result.overlapMs),
    withLongest(result.pastLease, result.pastLeaseMs),
    number(result.staleWrites),
    number(result.completionsReportedLost),
    number(result.rerunsAfterDone),
    number(result.claimsNotRun),
    number(result.left),
    p50 === undefined ? '–' : `${number(p50)} / ${number(p99)} ms`,
    `${number(result.seconds)} s`,
  ];
}

function withLongest(count, ms) {
  return count === 0 ? '0' : `${number(count)} (${number(ms)} ms)`;
}

export function reportTable(rows) {
  return table(header, rows);
}
