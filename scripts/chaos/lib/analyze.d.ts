// Types of analyze.js, for the spec that tests the counting (spec/chaos/analyze.spec.ts).

/** ChaosRecord is one line of a process's log: `p` the process, `t` what happened, `at` when (wall-clock ms). */
export interface ChaosRecord {
  p: string;
  t: string;
  at: number;
  [field: string]: unknown;
}

export interface ChaosCounts {
  created: number;
  completed: number;
  lost: number;
  duplicated: number;
  unacknowledged: number;
  left: number;
  runs: number;
  overlaps: number;
  overlapMs: number;
  pastLease: number;
  pastLeaseMs: number;
  staleWrites: number;
  completionsReportedLost: number;
  rerunsAfterDone: number;
  claimsNotRun: number;
  rerunMs: number[];
  notRerun: number;
  lostNs: string[];
}

export function analyze(records: ChaosRecord[]): ChaosCounts;
export function subtract(
  intervals: [number, number][],
  gaps: [number, number][],
): [number, number][];
export function intersect(
  first: [number, number][],
  second: [number, number][],
): [number, number][];
export function length(intervals: [number, number][]): number;
export function percentile(sorted: number[], p: number): number | undefined;
