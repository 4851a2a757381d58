import {
  TaskLimitError,
  TaskNotFoundError,
  TaskCronError,
  TaskGateError,
  TaskMetaEmptyError,
} from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { rescue } from '../harness/cli.js';
import { idOf, laterMillisecond, next, signal, useWorkerQueue } from '../harness/worker.js';

// context.spawn(task): follow-up work created by a running handler joins the
// queue in the step that completes its parent, never for a parent that fails.
// create(task, { after }): a task held until another completes.

const everything: Task = { meta: { '*': '*' } };

describe('context.spawn', () => {
  const queue = useWorkerQueue();

  it('keeps spawned tasks out of the queue until the parent completes, then stores them in the same step', async () => {
    const q = queue();
    const eon = q.live('eon');
    const spawnedOnce = signal();
    const release = signal();
    const worker = q.worker(eon, [
      {
        filter: (task) => task.meta?.['k'] === 'parent',
        ensure: async (_task, context) => {
          context.spawn({ meta: { k: 'child', n: '1' } });
          context.spawn({ meta: { k: 'child', n: '2' } });
          spawnedOnce.resolve();
          await release.promise;
        },
      },
    ]);
    await worker.start();
    const parent = await eon.create({ meta: { k: 'parent' } });
    await spawnedOnce.promise;
    expect(await eon.lister({ meta: { k: 'child' } })).toEqual([]);
    const outcome = eon.wait(idOf(parent));
    release.resolve();
    const { children, state } = await outcome;
    expect(state).toBe('completed');
    const stored = await eon.lister({ meta: { k: 'child' } });
    expect(stored.map((task) => task.meta?.['n'])).toEqual(['1', '2']);
    expect(children).toEqual(stored.map(idOf));
    expect(await eon.exists({ meta: { k: 'parent' } })).toBe(false);
  });

  it('stores what a broadcast task spawns on each engine that runs it, once per engine', async () => {
    const q = queue();
    const engines = ['eon', 'etw'].map((name) => q.live(name));
    const workers = engines.map((engine) =>
      q.worker(engine, [
        {
          filter: (task) => task.meta?.['k'] === 'parent',
          ensure: (_task, context) => {
            context.spawn({ meta: { k: 'child', by: engine.worker } });
            return Promise.resolve();
          },
        },
      ]),
    );
    await Promise.all(workers.map((worker) => worker.start()));
    await laterMillisecond();
    const parent = await engines[0]!.create({
      meta: { k: 'parent' },
      node: { [Label.Method]: Method.All },
    });
    await Promise.all(
      workers.map((worker) =>
        next(worker, 'task:ensured', 3_000, (task) => idOf(task) === idOf(parent)),
      ),
    );
    await Promise.all(workers.map((worker) => worker.stop()));
    const children = await engines[0]!.lister({ meta: { k: 'child' } });
    expect(children.map((task) => task.meta?.['by']).sort()).toEqual(['eon', 'etw']);
    // the broadcast task itself stays in the queue for the engines to come
    expect(await engines[0]!.exists({ meta: { k: 'parent' } })).toBe(true);
  });

  it('never stores what a failed parent spawned', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: () => true,
        ensure: (_task, context) => {
          context.spawn({ meta: { k: 'child' } });
          return Promise.reject(new Error('parent failed'));
        },
      },
    ]);
    const failed = next(worker, 'task:failed', 3_000);
    await worker.start();
    await eon.create({ meta: { k: 'parent' } });
    await failed;
    await worker.stop();
    expect(await eon.lister(everything)).toHaveLength(1); // the parent, until its lease ends
    expect(await eon.exists({ meta: { k: 'child' } })).toBe(false);
  });

  it('throws create’s errors at spawn, and TaskLimitError beyond 100 tasks a run', async () => {
    const q = queue();
    const eon = q.live('eon');
    const errors: unknown[] = [];
    const worker = q.worker(eon, [
      {
        filter: (task) => task.meta?.['k'] === 'parent',
        ensure: (_task, context) => {
          for (const bad of [{}, { meta: { k: 'x' }, cron: { [Label.Every]: 'never' } }]) {
            try {
              context.spawn(bad);
            } catch (error) {
              errors.push(error);
            }
          }
          try {
            for (let n = 0; n <= 100; n++) context.spawn({ meta: { n: String(n) } });
          } catch (error) {
            errors.push(error);
          }
          return Promise.resolve();
        },
      },
    ]);
    await worker.start();
    const outcome = await eon.run({ meta: { k: 'parent' } }, { timeout: 3_000 });
    expect(errors.map((error) => (error as Error).constructor)).toEqual([
      TaskMetaEmptyError,
      TaskCronError,
      TaskLimitError,
    ]);
    expect(outcome.children).toHaveLength(100);
  });
});

describe('create(task, { after })', () => {
  const queue = useWorkerQueue();

  it('holds the task until its predecessor completes, then it joins the queue in that step', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.create({ meta: { k: 'a' } });
    const second = await eon.create({ meta: { k: 'b' } }, { after: idOf(first) });
    expect(await eon.status(idOf(second))).toEqual({
      id: idOf(second),
      state: 'held',
      task: second,
      after: idOf(first),
    });
    expect(await eon.exists({ meta: { k: 'b' } })).toBe(false);
    const claimed = (await eon.search()) as Task;
    expect(idOf(claimed)).toBe(idOf(first));
    expect(await eon.search()).toBeUndefined(); // b is not claimable yet
    await eon.delete(claimed);
    expect(await eon.status(idOf(second))).toMatchObject({ state: 'queued' });
    expect(idOf(await eon.search())).toBe(idOf(second));
  });

  it('releases at once after a task that completed, and refuses one that is unknown or did not complete', async () => {
    const eon = queue().engine('eon');
    const done = await eon.create({ meta: { k: 'a' } });
    await eon.delete((await eon.search()) as Task);
    const follower = await eon.create({ meta: { k: 'b' } }, { after: idOf(done) });
    expect(await eon.status(idOf(follower))).toMatchObject({ state: 'queued' });

    const cancelled = await eon.create({ meta: { k: 'c' } });
    await eon.cancel(idOf(cancelled));
    await expect(
      eon.create({ meta: { k: 'd' } }, { after: idOf(cancelled) }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      eon.create({ meta: { k: 'd' } }, { after: '1697760001000-000000000042' }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(await eon.exists({ meta: { k: 'd' } })).toBe(false);
  });

  it('cancels the held tasks with their predecessor, and a held task alone', async () => {
    const eon = queue().engine('eon');
    const first = await eon.create({ meta: { k: 'a' } });
    const second = await eon.create({ meta: { k: 'b' } }, { after: idOf(first) });
    const third = await eon.create({ meta: { k: 'c' } }, { after: idOf(first) });
    expect(await eon.cancel(idOf(third))).toBe(true);
    expect(await eon.status(idOf(third))).toMatchObject({ state: 'cancelled' });
    await eon.cancel(idOf(first));
    expect(await eon.status(idOf(second))).toMatchObject({
      state: 'cancelled',
      outcome: { error: { code: 'TASK_CANCELLED' } },
    });
  });

  it('drops the held tasks of a predecessor that leaves the queue without completing', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 1_000 });
    const first = await eon.create({ meta: { k: 'a' } });
    const second = await eon.create({ meta: { k: 'b' } }, { after: idOf(first) });
    q.clock.advance(1_001);
    await eon.expire();
    expect(await eon.status(idOf(second))).toBeUndefined();
    expect(await q.redis.exists(q.key.held, q.key.followers)).toBe(0);
  });

  it('refuses cron and gate templates after another task, and more than 100 held after one', async () => {
    const eon = queue().engine('eon');
    const first = await eon.create({ meta: { k: 'a' } });
    await expect(
      eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 't' } }, { after: idOf(first) }),
    ).rejects.toBeInstanceOf(TaskCronError);
    for (let n = 0; n < 100; n++)
      await eon.create({ meta: { n: String(n) } }, { after: idOf(first) });
    await expect(eon.create({ meta: { k: 'x' } }, { after: idOf(first) })).rejects.toBeInstanceOf(
      TaskLimitError,
    );
  });

  it('refuses a task after a cron or gate template, which never completes, and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const cron = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'cron' } });
    const gate = await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await expect(eon.create({ meta: { k: 'x' } }, { after: idOf(cron) })).rejects.toBeInstanceOf(
      TaskCronError,
    );
    await expect(eon.create({ meta: { k: 'x' } }, { after: idOf(gate) })).rejects.toBeInstanceOf(
      TaskGateError,
    );
    expect(await q.redis.exists(q.key.held, q.key.followers)).toBe(0);
  });

  it('shows held tasks: stats, tasks({ state: held }), rescue tasks show; a delete with bypass removes one', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.create({ meta: { k: 'a' } });
    const mail = await eon.create({ meta: { k: 'mail' } }, { after: idOf(first) });
    const sms = await eon.create({ meta: { k: 'sms' } }, { after: idOf(first) });
    expect(await eon.stats()).toMatchObject({ tasks: 1, held: 2 });
    const page = await eon.tasks({ state: 'held' });
    expect(page.tasks.map(idOf).sort()).toEqual([idOf(mail), idOf(sms)].sort());
    expect(page.cursor).toBeUndefined();
    expect((await eon.tasks({ state: 'held', query: { meta: { k: 'sms' } } })).tasks).toEqual([
      sms,
    ]);
    const shown = await rescue(['tasks', 'show', idOf(mail), '--queue', q.name]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `is held: it joins the queue when task ${idOf(first)} completes`,
    );
    expect(shown.stdout).toContain('meta  k = mail');
    const waiting = eon.wait(idOf(mail));
    await eon.delete({ core: { [Label.Object]: idOf(mail), [Label.Bypass]: 'true' } });
    expect(await waiting).toMatchObject({ state: 'removed' });
    expect(await eon.stats()).toMatchObject({ held: 1 });
    await eon.delete((await eon.search()) as Task); // first completes: sms is released
    expect(await eon.stats()).toMatchObject({ held: 0, claimable: 1 });
  });

  it('expire removes a held task whose predecessor is gone or is a template (held before create refused that)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const gone = await eon.create({ meta: { k: 'gone' } });
    const orphan = await eon.create({ meta: { k: 'orphan' } }, { after: idOf(gone) });
    const kept = await eon.create({ meta: { k: 'kept' } }, { after: idOf(gone) });
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 't' } });
    const plain = await eon.create({ meta: { k: 'plain' } });
    const stuck = await eon.create({ meta: { k: 'stuck' } }, { after: idOf(plain) });
    // a record something else deleted, and a hold written before create refused templates
    const held = q.key.held;
    await q.redis.hdel(q.key.tasks, idOf(gone));
    const value = (await q.redis.hget(held, idOf(stuck))) ?? '';
    await q.redis.hset(held, idOf(stuck), `${idOf(template)}${value.slice(idOf(plain).length)}`);
    await q.redis.hdel(held, idOf(kept));
    await eon.create({ meta: { k: 'kept' } }, { after: idOf(plain) }); // a hold that stays
    await eon.expire();
    expect((await eon.status(idOf(orphan)))?.state).toBe('removed');
    expect((await eon.status(idOf(stuck)))?.state).toBe('removed');
    expect(await eon.stats()).toMatchObject({ held: 1 });
  });
});
