import { has } from '../../lib/matcher/matcher.js';
import { Label, Method } from '../../lib/task/label.js';
import { formatTime } from '../../lib/task/time.js';
import { idOf, laterMillisecond, next, useWorkerQueue, within } from '../harness/worker.js';

describe('Worker broadcast tasks', () => {
  const queue = useWorkerQueue();

  it('ensures a broadcast task once on every worker, completing it locally: it stays in the queue', async () => {
    const expiry = 200;
    const engines = ['eon', 'etw', 'eth'].map((id) => queue().live(id, { expiry }));
    const seen = new Map<string, string[]>();
    const workers = engines.map((engine) =>
      queue().worker(engine, [
        {
          filter: (task) => has(task.meta, { kind: '*' }),
          ensure: async (task) => {
            seen.set(engine.worker, [...(seen.get(engine.worker) ?? []), idOf(task)]);
            await Promise.resolve();
          },
        },
      ]),
    );
    await Promise.all(workers.map((worker) => worker.start()));
    // created after every engine started (strictly later instant)
    await laterMillisecond();
    const broadcast = await engines[0]!.create({
      meta: { kind: 'news' },
      node: { [Label.Method]: Method.All },
    });
    const everyone = Promise.all(
      workers.map((worker) =>
        next(worker, 'task:ensured', 3_000, (task) => idOf(task) === idOf(broadcast)),
      ),
    );
    await everyone;

    // it stays in Redis: completing a broadcast task deletes nothing
    const left = await engines[0]!.lister({ meta: { kind: 'news' } });
    expect(left.map(idOf)).toEqual([idOf(broadcast)]);
    expect(left[0]!.core?.[Label.Worker]).toBeUndefined();

    // Let more than a local lease pass, measured by a task due after it: had
    // a worker not completed its copy, its next search would deliver it again.
    const markerDue = new Date(Date.now() + 3 * expiry);
    const marker = await engines[0]!.create({
      cron: { [Label.Exact]: formatTime(markerDue) },
      meta: { kind: 'marker' },
    });
    await within(
      Promise.race(
        workers.map((worker) =>
          next(worker, 'task:ensured', 3_000, (task) => idOf(task) === idOf(marker)),
        ),
      ),
      3_000,
      'the marker ensured',
    );
    await Promise.all(workers.map((worker) => worker.stop()));
    for (const engine of engines) {
      expect(seen.get(engine.worker)?.filter((id) => id === idOf(broadcast))).toEqual([
        idOf(broadcast),
      ]);
    }
    expect(workers.flatMap((worker) => queue().log(worker).errors)).toEqual([]);
  });

  it('delivers a broadcast task to the same worker again after its local lease when the ensure failed', async () => {
    const expiry = 200;
    const eon = queue().live('eon', { expiry });
    const attempts: string[] = [];
    const worker = queue().worker(eon, [
      {
        filter: (task) => has(task.meta, { kind: 'news' }),
        ensure: async (task) => {
          attempts.push(idOf(task));
          if (attempts.length === 1) throw new Error('first delivery fails');
          await Promise.resolve();
        },
      },
    ]);
    await worker.start();
    await laterMillisecond();
    const failed = next(worker, 'task:failed', 3_000);
    const ensured = next(worker, 'task:ensured', 3_000);
    const broadcast = await eon.create({
      meta: { kind: 'news' },
      node: { [Label.Method]: Method.All },
    });
    await failed;
    const [task] = await ensured;

    expect(idOf(task)).toBe(idOf(broadcast));
    expect(attempts).toEqual([idOf(broadcast), idOf(broadcast)]);
    expect((await eon.lister({ meta: { kind: 'news' } })).map(idOf)).toEqual([idOf(broadcast)]);
  });

  it('declines a broadcast task no handler takes once: it does not come back after the local lease', async () => {
    const expiry = 200;
    const eon = queue().live('eon', { expiry });
    const worker = queue().worker(eon, [
      { filter: (task) => has(task.meta, { kind: 'mine' }), ensure: () => Promise.resolve() },
    ]);
    await worker.start();
    await laterMillisecond();
    const declined = next(worker, 'task:declined', 3_000);
    const broadcast = await eon.create({
      meta: { kind: 'news' },
      node: { [Label.Method]: Method.All },
    });
    expect(idOf((await declined)[0])).toBe(idOf(broadcast));
    // a task due after several local leases: by then a second delivery would have come
    const marker = await eon.create({
      cron: { [Label.Exact]: formatTime(new Date(Date.now() + 4 * expiry)) },
      meta: { kind: 'mine' },
    });
    await next(worker, 'task:ensured', 3_000, (task) => idOf(task) === idOf(marker));
    expect(queue().log(worker).declined.map(idOf)).toEqual([idOf(broadcast)]);
  });
});
