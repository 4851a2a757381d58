import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { engineContext } from '../../lib/engine/runtime.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { Worker } from '../../lib/worker/worker.js';
import { storeUnreadableTemplate } from '../harness/probes.js';
import { childTarget } from '../harness/redis.js';
import { idOf, next, until, useWorkerQueue, resolved } from '../harness/worker.js';

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

  it('hands the loops to another worker once the leases of a holder that died without releasing them ran out', async () => {
    const interval = 1_000;
    const { name } = queue();
    // the holder is another process, killed with SIGKILL: it cannot release anything
    const child = spawn(
      process.execPath,
      [
        new URL('../harness/background-worker.js', import.meta.url).pathname,
        childTarget(),
        name,
        'eon',
        String(interval),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    const lines: string[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => lines.push(...chunk.split('\n')));
    try {
      await until(
        () => lines.includes('expire:done') && lines.includes('ticker:done'),
        10_000,
        'the holder process ran expire and ticker',
      );
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const etw = queue().live('etw');
    const { expireLock, tickerLock } = engineContext(etw).keys;
    const killedAt = performance.now();
    const [expireTtl, tickerTtl] = await Promise.all([
      queue().redis.pttl(expireLock),
      queue().redis.pttl(tickerLock),
    ]);
    // the dead holder's leases are still in Redis
    expect(expireTtl).toBeGreaterThan(0);
    expect(tickerTtl).toBeGreaterThan(0);

    const taker = queue().worker(etw, [], {
      background: true,
      expireInterval: interval,
      tickerInterval: interval,
    });
    const firstRun = (event: 'expire:done' | 'ticker:done') =>
      next(taker, event, 5_000).then(() => performance.now());
    const runs = Promise.all([firstRun('expire:done'), firstRun('ticker:done')]);
    await taker.start();
    const [expireAt, tickerAt] = await runs;

    // it took over, and not before the dead holder's leases ran out (Redis
    // measures them in whole ms: 2 ms of slack)
    expect(expireAt).toBeGreaterThanOrEqual(killedAt + expireTtl - 2);
    expect(tickerAt).toBeGreaterThanOrEqual(killedAt + tickerTtl - 2);
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

  it('does not run ticker more often than its interval because of a template whose @every cannot be read', async () => {
    const q = queue();
    await storeUnreadableTemplate(q.live('eon'));
    const worker = q.worker(q.live('w'), [], {
      background: true,
      tickerInterval: 5_000,
      expireInterval: 5_000,
    });
    let runs = 0;
    worker.on('ticker:done', () => runs++);
    await worker.start();
    // no event marks "nothing more happened": watch the loop for a tenth of its interval
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);
  });
});
