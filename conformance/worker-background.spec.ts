import { has } from '../lib/matcher/matcher.js';
import { Label } from '../lib/task/label.js';
import type { Task } from '../lib/task/task.js';
import type { Worker } from '../lib/worker/worker.js';
import { idOf, next, until, useWorkerQueue, resolved } from './harness/worker.js';

/** Events of one kind across workers: who emitted them, and when (performance.now()). */
function watch(
  workers: Worker[],
  name: 'expire:done' | 'ticker:done',
): { by: Worker; at: number }[] {
  const seen: { by: Worker; at: number }[] = [];
  for (const worker of workers)
    worker.on(name, () => seen.push({ by: worker, at: performance.now() }));
  return seen;
}

/** clockBefore is a system clock shifted so that it reads `leadMs` before the instant now. */
function clockBefore(instant: string, leadMs: number): () => Date {
  const offset = Date.parse(instant) - leadMs - Date.now();
  return () => new Date(Date.now() + offset);
}

describe('Worker background loops', () => {
  const queue = useWorkerQueue();

  it.each(['expire:done', 'ticker:done'] as const)(
    'runs the chore behind %s on only one of three workers per interval',
    async (name) => {
      const interval = 100;
      const options = { background: true, expireInterval: interval, tickerInterval: interval };
      const workers = ['eon', 'etw', 'eth'].map((id) =>
        queue().worker(queue().live(id), [], options),
      );
      const seen = watch(workers, name);
      await Promise.all(workers.map((worker) => worker.start()));
      await until(() => seen.length >= 8, 3_000, `eight ${name} events`);

      // Runs are at least one interval apart across the fleet (the lease lasts
      // one interval); were every worker running it, 8 runs would take under
      // three intervals. A slow machine only spreads them further apart.
      const span = seen[7]!.at - seen[0]!.at;
      expect(span).toBeGreaterThanOrEqual(7 * interval * 0.9);
    },
  );

  it('hands the loops to another worker within an interval when the holder stops', async () => {
    const interval = 100;
    const options = { background: true, expireInterval: interval, tickerInterval: interval };
    const workers = ['eon', 'etw', 'eth'].map((id) =>
      queue().worker(queue().live(id), [], options),
    );
    const expires = watch(workers, 'expire:done');
    const tickers = watch(workers, 'ticker:done');
    await Promise.all(workers.map((worker) => worker.start()));
    await until(() => expires.length > 0 && tickers.length > 0, 3_000, 'first runs');
    const holders = new Set([expires[0]!.by, tickers[0]!.by]);
    for (const holder of holders) await holder.stop();
    const stoppedAt = { expire: expires.length, ticker: tickers.length };

    await until(
      () => expires.length > stoppedAt.expire + 1 && tickers.length > stoppedAt.ticker + 1,
      3_000,
      'two more runs of each chore',
    );
    const after = [...expires.slice(stoppedAt.expire), ...tickers.slice(stoppedAt.ticker)];
    expect(after.some(({ by }) => holders.has(by))).toBe(false);
  });

  it('releases the loop leases on stop(), so a worker started next runs expire and ticker at once', async () => {
    // an interval far longer than the test: only a released lease lets the second worker run now
    const options = { background: true, expireInterval: 60_000, tickerInterval: 60_000 };
    const first = queue().worker(queue().live('eon'), [], options);
    const firstRuns = Promise.all([
      next(first, 'expire:done', 3_000),
      next(first, 'ticker:done', 3_000),
    ]);
    await first.start();
    await firstRuns;
    await first.stop();

    const second = queue().worker(queue().live('etw'), [], options);
    const secondRuns = Promise.all([
      next(second, 'expire:done', 3_000),
      next(second, 'ticker:done', 3_000),
    ]);
    await second.start();
    await expect(secondRuns).resolves.toHaveLength(2);
  });

  it('runs ticker at a template’s next tick when it comes before the interval, and a worker ensures the child', async () => {
    // engine time one second before a minute boundary: the `minute` template is due in ~1 s
    const eon = queue().live('eon', { clock: clockBefore('2030-01-01T00:00:00Z', 1_000) });
    const template = await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { kind: 'tick' },
    });
    expect(template.cron?.[Label.TickP1]).toBe('2030-01-01T00:00:00Z');
    const children: Task[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: (task) => has(task.meta, { kind: 'tick' }),
          ensure: (task) => resolved(children.push(structuredClone(task))),
        },
      ],
      { background: true, tickerInterval: 60_000, expireInterval: 60_000, pollInterval: 60_000 },
    );
    await worker.start();
    await next(worker, 'task:ensured', 3_000);

    expect(children).toHaveLength(1);
    expect(children[0]!.root).toEqual({ [Label.Object]: idOf(template) });
    const [stored] = await eon.lister({ cron: { [Label.Every]: '*' } });
    expect(stored?.cron?.[Label.TickP1]).toBe('2030-01-01T00:01:00Z');
  });

  it('runs ticker at the next tick of a template created after its last run, before the interval', async () => {
    const eon = queue().live('eon', { clock: clockBefore('2030-01-01T00:00:00Z', 1_200) });
    const children: Task[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: (task) => has(task.meta, { kind: 'tick' }),
          ensure: (task) => resolved(children.push(structuredClone(task))),
        },
      ],
      { background: true, tickerInterval: 60_000, expireInterval: 60_000, pollInterval: 60_000 },
    );
    const ran = next(worker, 'ticker:done', 3_000);
    await worker.start();
    await ran; // the loop ran with no template; its next planned run is an interval away
    const template = await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { kind: 'tick' },
    });
    expect(template.cron?.[Label.TickP1]).toBe('2030-01-01T00:00:00Z');
    await next(worker, 'task:ensured', 3_000);

    expect(children.map((child) => child.root)).toEqual([{ [Label.Object]: idOf(template) }]);
  });
});
