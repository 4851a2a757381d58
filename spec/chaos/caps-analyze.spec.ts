import type { ChaosRecord } from '../../scripts/chaos/lib/analyze.js';
import { analyzeCaps, tenantOf } from '../../scripts/chaos/lib/caps-analyze.js';

// The caps scenario's counting (scripts/chaos/lib/caps-analyze.js) on
// hand-made records: runs live at once per tenant and in all, against the
// caps of docs/semantics.md §3.15.

const caps = { queue: 3, tenant: 1 };
const ack = (n: string, id: string): ChaosRecord => ({ p: 'producer', t: 'ack', n, id, at: 0 });
const start = (p: string, run: string, id: string, at: number, tenant?: string): ChaosRecord => ({
  p,
  t: 'start',
  run,
  id,
  at,
  ...(tenant === undefined ? {} : { tenant }),
});
const mark = (p: string, t: string, run: string, id: string, at: number): ChaosRecord => ({
  p,
  t,
  run,
  id,
  at,
});
/** A run of a tenant's task from..to that completed. */
const ran = (p: string, run: string, id: string, from: number, to: number, tenant?: string) => [
  start(p, run, id, from, tenant),
  mark(p, 'end', run, id, to),
  mark(p, 'done', run, id, to + 1),
];

describe('caps chaos analysis', () => {
  it('counts runs of one tenant one after another, and of others beside them, as within the caps', () => {
    const counts = analyzeCaps(
      [
        ack('0', 'a'),
        ack('1', 'b'),
        ack('2', 'c'),
        ack('3', 'd'),
        ...ran('w0', 'w0#1', 'a', 10, 20, 'hot'),
        ...ran('w1', 'w1#1', 'b', 20, 30, 'hot'), // starts as the first ends
        ...ran('w2', 'w2#1', 'c', 12, 28, 'cold'),
        ...ran('w3', 'w3#1', 'd', 13, 25),
      ],
      caps,
    );
    expect(counts).toEqual({
      runs: 4,
      created: 4,
      lost: 0,
      left: 0,
      runsOverQueueCap: 0,
      runsOverTenantCap: 0,
      mostRuns: { queue: 3, hot: 1, cold: 1 },
    });
  });

  it('counts a tenant over its cap, and the queue over its cap', () => {
    const counts = analyzeCaps(
      [
        ...ran('w0', 'w0#1', 'a', 10, 20, 'hot'),
        ...ran('w1', 'w1#1', 'b', 15, 30, 'hot'),
        ...ran('w2', 'w2#1', 'c', 16, 30),
        ...ran('w3', 'w3#1', 'd', 17, 30),
      ],
      caps,
    );
    expect(counts).toMatchObject({ runsOverQueueCap: 1, runsOverTenantCap: 1 });
    expect(counts.mostRuns).toEqual({ queue: 4, hot: 2 });
  });

  it('ends a run when it is told it lost the task, aborts, or its process is killed', () => {
    const counts = analyzeCaps(
      [
        start('w0', 'w0#1', 'a', 10, 'hot'),
        { p: 'chaos', t: 'kill', worker: 'w0', at: 15 },
        ...ran('w1', 'w1#1', 'a', 15, 30, 'hot'),
        start('w2', 'w2#1', 'b', 31, 'hot'),
        mark('w2', 'told', 'w2#1', 'b', 40),
        mark('w2', 'abort', 'w2#1', 'b', 44),
        ...ran('w3', 'w3#1', 'b', 40, 50, 'hot'),
      ],
      caps,
    );
    expect(counts).toMatchObject({ runsOverTenantCap: 0, mostRuns: { queue: 1, hot: 1 } });
  });

  it('counts an acknowledged create whose task never completed as lost', () => {
    const counts = analyzeCaps(
      [ack('0', 'a'), ack('1', 'b'), ...ran('w0', 'w0#1', 'a', 1, 2)],
      caps,
    );
    expect(counts).toMatchObject({ created: 2, lost: 1 });
  });

  it('gives 3 tasks in 10 to the hot tenant and 1 in 10 to none', () => {
    const tenants = Array.from({ length: 1_000 }, (_, n) => tenantOf(n) ?? 'none');
    const share = (name: string) => tenants.filter((tenant) => tenant === name).length;
    expect([share('hot'), share('t1'), share('t4'), share('none')]).toEqual([300, 150, 150, 100]);
  });
});
