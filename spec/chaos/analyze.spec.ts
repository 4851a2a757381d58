import {
  analyze,
  intersect,
  length,
  percentile,
  subtract,
  type ChaosRecord,
} from '../../scripts/chaos/lib/analyze.js';

// The chaos suite's counting (scripts/chaos/lib/analyze.js) on hand-made
// records: what docs/reliability.md reports is only as good as this.

const expiryMs = 3_000;

/** A producer acknowledgement of create n as task id, at ms. */
const ack = (n: string, id: string, at: number): ChaosRecord => ({
  p: 'producer',
  t: 'ack',
  n,
  id,
  at,
});

/** A run of task id (create n) on worker p: started at `at` with its lease until `lease`. */
const start = (p: string, run: string, id: string, n: string, at: number, lease = at + expiryMs) =>
  ({ p, t: 'start', run, id, n, at, lease }) as ChaosRecord;

const event = (p: string, t: string, run: string, id: string, at: number): ChaosRecord => ({
  p,
  t,
  run,
  id,
  at,
});

/** The last record of a run (end or abort) with the times its steps began. */
const last = (p: string, t: string, run: string, id: string, at: number, steps: number[]) => ({
  ...event(p, t, run, id, at),
  steps,
});

/** A run that ran from..to and whose delete was acknowledged right after. */
function completedRun(p: string, run: string, id: string, n: string, from: number, to: number) {
  return [
    start(p, run, id, n, from),
    event(p, 'end', run, id, to),
    event(p, 'done', run, id, to + 1),
  ];
}

describe('chaos analysis', () => {
  it('counts a clean run: created, completed, nothing else', () => {
    const counts = analyze([
      ack('0', 'a', 0),
      ...completedRun('w0', 'w0#1', 'a', '0', 5, 20),
      ack('1', 'b', 1),
      ...completedRun('w1', 'w1#1', 'b', '1', 6, 30),
    ]);
    expect(counts).toMatchObject({
      created: 2,
      completed: 2,
      lost: 0,
      duplicated: 0,
      overlaps: 0,
      staleWrites: 0,
      claimsNotRun: 0,
      left: 0,
    });
  });

  it('counts an acknowledged create that never ran and is gone as lost, and one left in the queue as left', () => {
    const counts = analyze([
      ack('0', 'a', 0),
      ack('1', 'b', 0),
      { p: 'chaos', t: 'left', id: 'b', n: '1', at: 100 },
    ]);
    expect(counts).toMatchObject({ created: 2, completed: 0, lost: 1, left: 1, lostNs: ['0'] });
  });

  it('counts a second task for one create, and a task stored for a create that failed, as duplicated', () => {
    const counts = analyze([
      ack('0', 'b', 10),
      ...completedRun('w0', 'w0#1', 'a', '0', 5, 20), // the first execution of a resent create
      ...completedRun('w0', 'w0#2', 'b', '0', 15, 30),
      { p: 'producer', t: 'create-error', n: '1', at: 12 },
      ...completedRun('w1', 'w1#1', 'c', '1', 6, 25),
    ]);
    expect(counts).toMatchObject({ created: 1, completed: 1, duplicated: 2, unacknowledged: 1 });
  });

  it('counts two runs of a task when the older one worked while both were live', () => {
    const records = (staleStep: number) => [
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 10),
      start('w1', 'w1#1', 'a', '0', 3_100),
      event('w0', 'told', 'w0#1', 'a', 3_400), // told late: 300 ms in which both were live
      last('w0', 'abort', 'w0#1', 'a', 3_405, [10, 1_000, staleStep]),
      last('w1', 'end', 'w1#1', 'a', 3_500, [3_100, 3_300]),
      event('w1', 'done', 'w1#1', 'a', 3_501),
    ];
    expect(analyze(records(3_200))).toMatchObject({ overlaps: 1, overlapMs: 300, completed: 1 });
    // only the new owner's steps fall in the shared time: the older run did
    // nothing meanwhile (a frozen process yet to notice), so no double work
    expect(analyze(records(2_000)).overlaps).toBe(0);
  });

  it('does not count a shared live time in which neither run began a step', () => {
    const counts = analyze([
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 10),
      start('w1', 'w1#1', 'a', '0', 3_100),
      event('w0', 'told', 'w0#1', 'a', 3_102),
      last('w0', 'abort', 'w0#1', 'a', 3_140, [10, 2_000]),
      last('w1', 'end', 'w1#1', 'a', 3_500, [3_110, 3_300]),
    ]);
    expect(counts.overlaps).toBe(0);
  });

  it('counts a run that began a step after its lease ended, unless a renewal came first', () => {
    const records = (renewal: ChaosRecord[]) => [
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 0, 1_200), // a late claim: 1.2 s of lease left
      ...renewal,
      last('w0', 'end', 'w0#1', 'a', 1_600, [0, 500, 1_000, 1_500]),
    ];
    expect(analyze(records([]))).toMatchObject({ pastLease: 1, pastLeaseMs: 300 });
    const renewed = {
      p: 'w0',
      t: 'extend',
      id: 'a',
      run: 'w0#1',
      sent: 900,
      at: 901,
      ok: true,
      lease: 3_900,
    };
    expect(analyze(records([renewed])).pastLease).toBe(0);
  });

  it('ends a run in a killed process at the kill, and measures the time to its re-run', () => {
    const counts = analyze([
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 10),
      { p: 'chaos', t: 'kill', worker: 'w0', at: 500 },
      ...completedRun('w1', 'w1#1', 'a', '0', 3_600, 3_700),
    ]);
    expect(counts).toMatchObject({ overlaps: 0, rerunMs: [3_100], notRerun: 0, completed: 1 });
  });

  it('does not count time a process spent stopped (SIGSTOP) as live', () => {
    const records = (resumedAt: number) => [
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 10),
      { p: 'chaos', t: 'sigstop', worker: 'w0', at: 100 },
      { p: 'chaos', t: 'sigcont', worker: 'w0', at: resumedAt },
      event('w0', 'told', 'w0#1', 'a', resumedAt + 5),
      last('w0', 'abort', 'w0#1', 'a', resumedAt + 6, [10, resumedAt + 1]),
      ...completedRun('w1', 'w1#1', 'a', '0', 3_600, 4_800),
    ];
    // resumed after the other run ended: no overlap; resumed during it (and a step begun): 5 ms
    expect(analyze(records(5_000)).overlaps).toBe(0);
    expect(analyze(records(4_000))).toMatchObject({ overlaps: 1, overlapMs: 5 });
  });

  it('counts a delete that succeeded after another run started past the lease as stale, and one in time as not', () => {
    const records = (renewedLease: number) => [
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 0, 3_000),
      {
        p: 'w0',
        t: 'extend',
        id: 'a',
        run: 'w0#1',
        sent: 1_500,
        at: 1_501,
        ok: true,
        lease: renewedLease,
      },
      start('w1', 'w1#1', 'a', '0', 3_500),
      event('w0', 'end', 'w0#1', 'a', 3_600),
      event('w0', 'done', 'w0#1', 'a', 3_601),
    ];
    expect(analyze(records(2_000)).staleWrites).toBe(1);
    expect(analyze(records(4_500)).staleWrites).toBe(0);
  });

  it('counts a completion the worker was told it lost, and a run after a done', () => {
    const counts = analyze([
      ack('0', 'a', 0),
      start('w0', 'w0#1', 'a', '0', 10),
      event('w0', 'end', 'w0#1', 'a', 20),
      event('w0', 'lost', 'w0#1', 'a', 30),
      ack('1', 'b', 0),
      ...completedRun('w1', 'w1#1', 'b', '1', 10, 20),
      ...completedRun('w1', 'w1#2', 'b', '1', 5_000, 5_010),
    ]);
    expect(counts).toMatchObject({ completed: 2, completionsReportedLost: 1, rerunsAfterDone: 1 });
  });

  it('counts revocations no run explains as claims nobody ran', () => {
    const cycled = (p: string, run: string, at: number, cycles: number) => ({
      ...start(p, run, 'a', '0', at),
      cycles,
    });
    const counts = analyze([
      ack('0', 'a', 0),
      cycled('w0', 'w0#1', 3_100, 1), // one revocation before the first run: an orphan claim
      event('w0', 'told', 'w0#1', 'a', 6_000),
      cycled('w1', 'w1#1', 6_200, 2), // the first run's own revocation
      event('w1', 'told', 'w1#1', 'a', 9_100),
      cycled('w2', 'w2#1', 12_300, 4), // its own, and one more
      event('w2', 'end', 'w2#1', 'a', 12_400),
    ]);
    expect(counts.claimsNotRun).toBe(2);
  });

  it('subtracts gaps from intervals, intersects interval lists, and takes nearest-rank percentiles', () => {
    expect(subtract([[0, 10]], [[3, 5]])).toEqual([
      [0, 3],
      [5, 10],
    ]);
    expect(subtract([[0, 10]], [[-5, 20]])).toEqual([]);
    const shared = intersect(
      [
        [0, 3],
        [5, 10],
      ],
      [[2, 6]],
    );
    expect(shared).toEqual([
      [2, 3],
      [5, 6],
    ]);
    expect(length(shared)).toBe(2);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 99)).toBe(4);
    expect(percentile([], 50)).toBeUndefined();
  });
});
