import type { Engine } from '../../lib/engine/engine.js';
import type { UniqueOptions } from '../../lib/engine/unique.js';
import { TaskCronError, TaskGateError, TaskLimitError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';
import { until, useWorkerQueue, within } from '../harness/worker.js';

// Unique tasks (docs/semantics.md §3.11): no two tasks of a queue hold the
// same unique key; skip, replace and debounce; the key held while its task
// lives and, with a ttl, that long after; all decided inside the create
// script, so engines that create at once cannot both store a task.

const meta = { kind: 'sync-account' };
const key = 'account-42';

describe('create with unique', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  async function claimAndComplete(engine: Engine): Promise<void> {
    const copy = await engine.search();
    if (copy === undefined) throw new Error('nothing to claim');
    await engine.delete(copy);
  }

  it('skip: a second create stores nothing and answers the task that holds the key', async () => {
    const eon = queue().engine('eon');
    const first = await eon.create({ meta, payload: 1 }, { unique: { key } });
    expect(first.action).toBe('created');
    expect(first.task?.core?.[Label.Unique]).toBe(key);
    const second = await eon.create({ meta, payload: 2 }, { unique: { key } });
    expect(second).toMatchObject({ action: 'skipped', id: first.id, task: { payload: 1 } });
    expect(await eon.lister({ meta })).toHaveLength(1);
    const other = await eon.create({ meta }, { unique: { key: 'account-43' } });
    expect(other.action).toBe('created');
  });

  it('gives exactly one task to creates from several engines at once', async () => {
    const q = queue();
    const engines = ['a', 'b', 'c', 'd', 'e'].map((name) => q.engine(name));
    const answers = await Promise.all(
      engines.flatMap((engine, index) =>
        [0, 1, 2].map((round) =>
          engine.create({ meta, payload: { index, round } }, { unique: { key } }),
        ),
      ),
    );
    expect(answers.filter((answer) => answer.action === 'created')).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1);
    expect(await engines[0]?.lister({ meta })).toHaveLength(1);
  });

  it('frees the key when its task completes, is cancelled, removed or expires by retention', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 60_000 });
    const ids = new Set<string>();
    const create = async () => {
      // the task that ended gave the key back (not only found gone at the next create)
      expect(await q.redis.hlen(q.key.unique)).toBe(0);
      const answer = await eon.create({ meta }, { unique: { key } });
      expect(answer.action).toBe('created');
      ids.add(answer.id);
      return answer.id;
    };
    await create();
    await claimAndComplete(eon); // completed (the worker's delete)
    await eon.cancel(await create()); // cancelled before a claim
    const removed = await create();
    await eon.delete({ core: { [Label.Object]: removed, [Label.Bypass]: 'true' } }); // an operator's remove
    await create();
    q.clock.advance(61_000);
    await eon.expire(); // retention
    await create();
    expect(ids.size).toBe(5);
    expect((await eon.create({ meta }, { unique: { key } })).action).toBe('skipped');
  });

  it('keeps the key for ttl after its task ended (throttle), and expire drops it then', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.create({ meta }, { unique: { key, ttl: 10_000 } });
    await claimAndComplete(eon);
    q.clock.advance(9_999);
    expect(await eon.create({ meta }, { unique: { key } })).toEqual({
      action: 'skipped',
      id: first.id,
      task: undefined,
    });
    expect(await q.redis.zcard(q.key['unique-expiry'])).toBe(1);
    q.clock.advance(1);
    await eon.expire();
    expect(await q.redis.hlen(q.key.unique)).toBe(0);
    expect(await q.redis.zcard(q.key['unique-expiry'])).toBe(0);
    expect((await eon.create({ meta }, { unique: { key } })).action).toBe('created');
  });

  it('replace: a queued holder takes the new content and keeps its id; an owned one is left alone', async () => {
    const eon = queue().engine('eon');
    const first = await eon.create({ meta, payload: 'old' }, { unique: { key } });
    const replaced = await eon.create(
      { meta: { ...meta, v: '2' }, payload: 'new' },
      { unique: { key, mode: 'replace' } },
    );
    expect(replaced).toMatchObject({ action: 'replaced', id: first.id, task: { payload: 'new' } });
    expect(idOf(replaced.task)).toBe(first.id);
    const listed = await eon.lister({ meta });
    expect(listed.map((task) => [idOf(task), task.meta?.['v'], task.payload])).toEqual([
      [first.id, '2', 'new'],
    ]);
    expect(await eon.exists({ meta: { v: '2' } })).toBe(true);

    const owned = await eon.search();
    expect(owned?.payload).toBe('new');
    const skipped = await eon.create(
      { meta, payload: 'newer' },
      { unique: { key, mode: 'replace' } },
    );
    expect(skipped).toMatchObject({ action: 'skipped', id: first.id });
    expect((await eon.lister({ meta }))[0]?.payload).toBe('new');
  });

  it('debounce: each create pushes the due time back; the task runs once, with the last payload', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const debounce: UniqueOptions = { key, mode: 'debounce', delay: 1_000 };
    const first = await eon.create({ meta, payload: 1 }, { unique: debounce });
    expect(first.task?.cron).toEqual({ [Label.Exact]: '2023-10-20T00:00:01Z' });
    q.clock.advance(600);
    const second = await eon.create({ meta, payload: 2 }, { unique: debounce });
    expect(second).toMatchObject({ action: 'replaced', id: first.id });
    q.clock.advance(600); // 1.2 s: past the first due time, not the second
    expect(await eon.search()).toBeUndefined();
    q.clock.advance(400);
    const claimed = await eon.search();
    expect([idOf(claimed), claimed?.payload]).toEqual([first.id, 2]);
    expect(await eon.lister({ meta })).toHaveLength(1);
  });

  const refused: [string, Task, unknown, new (message: string) => Error, string][] = [
    ['an empty key', { meta }, { key: '' }, TypeError, 'unique "key" must be a non-empty string'],
    ['a key of another kind', { meta }, { key: 42 }, TypeError, 'got number 42'],
    ['a key over the limit', { meta }, { key: 'k'.repeat(1_025) }, TaskLimitError, 'the limit'],
    ['an unknown mode', { meta }, { key, mode: 'merge' }, TypeError, 'must be "skip"'],
    ['a negative ttl', { meta }, { key, ttl: -1 }, TypeError, 'unique "ttl"'],
    ['debounce without delay', { meta }, { key, mode: 'debounce' }, TypeError, 'needs "delay"'],
    ['a delay without debounce', { meta }, { key, delay: 5 }, TypeError, 'for mode "debounce"'],
    [
      'a cron template',
      { cron: { [Label.Every]: 'hour' }, meta },
      { key },
      TaskCronError,
      'engine.schedule',
    ],
    [
      'a debounced task with cron',
      { cron: { [Label.Exact]: '2023-10-21T00:00:00Z' }, meta },
      { key, mode: 'debounce', delay: 10 },
      TaskCronError,
      'debounce sets its due time',
    ],
    [
      'a gate template',
      { gate: { g: 'waiting' }, meta },
      { key },
      TaskGateError,
      'cannot be unique',
    ],
  ];

  it.each(refused)('refuses %s, writing nothing', async (_name, task, unique, error, text) => {
    const eon = queue().engine('eon');
    await eon.create({ meta }, { unique: { key } });
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      const reason = await eon
        .create(task, { unique: unique as UniqueOptions })
        .catch((rejected: unknown) => rejected);
      expect(reason).toBeInstanceOf(error);
      expect((reason as Error).message).toContain(text);
    });
  });

  it('refuses unique with after, writing nothing', async () => {
    const eon = queue().engine('eon');
    const first = await eon.create({ meta: { k: 'first' } });
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(
        eon.create({ meta }, { unique: { key }, after: idOf(first) }),
      ).rejects.toBeInstanceOf(TypeError);
    });
  });
});

describe('create with unique, and a worker', () => {
  const queue = useWorkerQueue();

  it('gives the key back when the worker completes the task (its completion and next claim in one step)', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [{ filter: () => true, ensure: () => Promise.resolve() }], {
      concurrency: 1,
    });
    const first = await eon.create({ meta }, { unique: { key, ttl: 3_600_000 } });
    await eon.create({ meta: { kind: 'plain' } });
    await worker.start();
    await within(eon.wait(first.id), 10_000, 'the completion');
    await until(
      async () => (await eon.stats()).claimable === 0 && (await eon.stats()).owned === 0,
      10_000,
      'the queue drained',
    );
    // held for its ttl: the completion recorded when the hold ends
    expect(await q.redis.zcard(q.key['unique-expiry'])).toBe(1);
    expect((await eon.create({ meta }, { unique: { key } })).action).toBe('skipped');
  });
});
