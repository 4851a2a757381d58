import type { Engine } from '../lib/engine/engine.js';
import { createManyChunk } from '../lib/engine/create-many.js';
import { splitRequest } from '../lib/engine/create.js';
import { layoutVersion } from '../lib/engine/keys.js';
import { run } from '../lib/engine/run.js';
import { engineContext, filterList, searchFor } from '../lib/engine/runtime.js';
import { TaskLimitError, TaskMetaEmptyError } from '../lib/errors.js';
import { encodeStored } from '../lib/task/codec.js';
import { Label, Method } from '../lib/task/label.js';
import type { Task } from '../lib/task/task.js';
import { expectUnchanged, queueContents } from './harness/queue-state.js';
import { idOf, useQueue, type TestQueue } from './harness/queue.js';

// engine.createMany stores many tasks, one create-many.lua call per chunk:
// the queue ends as after a create of each task in turn (docs/semantics.md
// §3.1), every task is validated before anything is written, and a chunk is
// stored whole or not at all.

const mixed: Task[] = [
  { meta: { n: 'a' } },
  { meta: { n: 'due' }, cron: { [Label.Exact]: '2023-10-20T01:00:00Z' } },
  { meta: { n: 'b' }, core: { [Label.Cancel]: '2' } },
  { meta: { n: 'all' }, node: { [Label.Method]: Method.All } },
  { meta: { n: 'uni' }, node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' } },
  { meta: { n: 'hourly' }, cron: { [Label.Every]: 'hour' } },
  { meta: { n: 'leaf' }, root: { n: 'a' } },
  { meta: { n: 'wild' }, root: { n: '*', o: 'x' } },
  { meta: { n: 'c' } },
];

describe('engine.createMany', () => {
  const many = useQueue('2023-10-20T00:00:01Z');
  const each = useQueue('2023-10-20T00:00:01Z');

  /** both sets the same queue up twice, then createMany on one and create of each task on the other. */
  async function both(
    tasks: Task[],
    setUp: (q: TestQueue, eon: Engine) => Promise<void> = async () => {},
  ) {
    const [a, b] = [many(), each()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    await setUp(a, eonA);
    await setUp(b, eonB);
    const stored = await eonA.createMany(tasks.map((task) => structuredClone(task)));
    const created: Task[] = [];
    for (const task of tasks) created.push(await eonB.create(structuredClone(task)));
    expect(stored).toEqual(created);
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    return { a, stored };
  }

  it('stores plain tasks in order, as creating each does', async () => {
    const tasks = Array.from({ length: 5 }, (_, n) => ({ meta: { n: String(n) } }));
    const { stored } = await both(tasks);
    expect(stored.map((task) => task.meta)).toEqual(tasks.map((task) => task.meta));
  });

  it('stores tasks of every kind, as creating each does', async () => {
    const { stored } = await both(mixed);
    expect(stored.map((task) => task.meta?.['n'])).toEqual(mixed.map((task) => task.meta?.['n']));
  });

  it('in a queue whose features send plain tasks to the general path (a parked slot, the events stream)', async () => {
    const { a } = await both(
      Array.from({ length: 3 }, (_, n) => ({ meta: { n: String(n) } })),
      async (q, eon) => {
        await eon.events();
        await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
      },
    );
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(0); // the slot was woken
  });

  it('stores more tasks than a chunk holds, in order, one call a chunk', async () => {
    const q = many();
    const count = 2 * createManyChunk + 7;
    const tasks = Array.from({ length: count }, (_, n) => ({ meta: { n: String(n) } }));
    const before = Number((await q.redis.get(q.key.sequence)) ?? '0');
    const stored = await q.engine('eon').createMany(tasks);
    expect(stored.map((task) => task.meta?.['n'])).toEqual(tasks.map((task) => task.meta.n));
    expect(new Set(stored.map(idOf)).size).toBe(count);
    expect(stored.map(idOf)).toEqual([...stored.map(idOf)].sort());
    expect(Number(await q.redis.get(q.key.sequence))).toBe(before + count);
    // one kept answer a chunk: the last chunk's request holds its ids
    const kept = Object.values(await q.redis.hgetall(q.key.requests));
    expect(kept).toHaveLength(1);
    expect(
      kept[0]?.endsWith(
        stored
          .slice(2 * createManyChunk)
          .map(idOf)
          .join(','),
      ),
    ).toBe(true);
  });

  it('answers [] for no tasks, and writes nothing', async () => {
    const q = many();
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await q.engine('eon').createMany([])).toEqual([]);
    });
  });

  it('rejects the call when one task is invalid: the typed error names its index, nothing is written', async () => {
    const q = many();
    const eon = q.engine('eon');
    await eon.create({ meta: { n: 'first' } });
    const tasks = [
      ...Array.from({ length: createManyChunk + 2 }, (_, n) => ({ meta: { n: String(n) } })),
      { meta: {} },
    ];
    await expectUnchanged(q.redis, q.prefix, async () => {
      const error: unknown = await eon.createMany(tasks).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(TaskMetaEmptyError);
      expect((error as Error).message).toMatch(/^createMany: task 102: create: /);
    });
  });

  it('rejects a list that is not an array', async () => {
    const eon = many().engine('eon');
    await expect(eon.createMany({ meta: { n: 'a' } } as unknown as Task[])).rejects.toThrow(
      /^createMany: tasks must be an array/,
    );
  });

  it('stores a chunk whole or not at all: a root of patterns beyond the cap refuses the chunk before any write', async () => {
    const q = many();
    const eon = q.engine('eon');
    // 255 groups of roots with patterns; the cap is 256 (include/roots.lua)
    await eon.createMany(
      Array.from({ length: 255 }, (_, n) => ({
        meta: { n: 'leaf' },
        root: { k: '*', i: String(n) },
      })),
    );
    const chunk = [
      { meta: { n: 'a' } },
      { meta: { n: 'leaf' }, root: { k: '*', i: 'new-1' } },
      { meta: { n: 'leaf' }, root: { k: '*', i: 'new-2' } },
    ];
    await expectUnchanged(q.redis, q.prefix, async () => {
      const error: unknown = await eon.createMany(chunk).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(TaskLimitError);
      expect((error as Error).message).toMatch(
        /createMany: task 2: the queue has 256 roots with patterns/,
      );
    });
    expect(await eon.createMany(chunk.slice(0, 2))).toHaveLength(2);
  });

  it('answers a chunk sent again with the same ids, and writes nothing twice', async () => {
    const q = many();
    const context = engineContext(q.engine('eon'));
    const now = context.clock();
    const args = [
      now.getTime(),
      layoutVersion,
      ...splitRequest('me:0:7'),
      ...['a', 'b'].flatMap((n) => ['l', encodeStored({ meta: { n } }), '', '', '']),
    ];
    const answer = await run(context, 'createMany', args);
    const before = await queueContents(q.redis, q.prefix);
    expect(await run(context, 'createMany', args)).toBe(answer);
    expect(await queueContents(q.redis, q.prefix)).toEqual(before);
    expect(await q.redis.zrange(q.key.ready, 0, -1)).toEqual(String(answer).split(','));
  });
});
