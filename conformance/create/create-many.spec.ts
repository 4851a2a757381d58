import type { Engine } from '../../lib/engine/engine.js';
import { createManyChunk } from '../../lib/engine/create-many.js';
import { prepareCreate, splitRequest } from '../../lib/engine/create.js';
import { layoutVersion } from '../../lib/engine/keys.js';
import { argv } from '../../lib/engine/lua/arguments.js';
import { run, runRequest } from '../../lib/engine/run.js';
import { engineContext, filterList, searchFor } from '../../lib/engine/runtime.js';
import { TaskCronError, TaskLimitError, TaskMetaEmptyError } from '../../lib/errors.js';
import type { UniqueCreate, UniqueOptions } from '../../lib/engine/unique.js';
import { encodeStored } from '../../lib/task/codec.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged, queueContents } from '../harness/queue-state.js';
import { idOf, useQueue, type TestQueue } from '../harness/queue.js';

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

  it('wakes a parked slot a task from the lean store, as creating each does (parked slots alone)', async () => {
    const { a } = await both(
      Array.from({ length: 3 }, (_, n) => ({ meta: { n: String(n) } })),
      async (q, eon) => {
        for (const slot of ['s1', 's2', 's3', 's4'])
          await searchFor(eon, filterList([]), [], { slot, forMs: 60_000 });
      },
    );
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(1); // three woken, one a task
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

  it.each(['l', 'g'])(
    'answers a chunk sent again with the same ids, and writes nothing twice (form %s)',
    async (form) => {
      // sent again, its form is prefixed with `r` (lib/engine/run.ts
      // runRequest): only then does create-many.lua look for the answer kept
      const q = many();
      const context = engineContext(q.engine('eon'));
      const now = context.clock();
      const tasks = ['a', 'b'].flatMap((n) =>
        form === 'l'
          ? argv('create_many_plain', { record: encodeStored({ meta: { n } }) })
          : argv('create_many_task', {
              kind: 'l',
              task: encodeStored({ meta: { n } }),
              due_ms: '',
              tick_p1_ms: '',
              check_ms: '',
            }),
      );
      const args = (mark: string) =>
        argv('create_many', {
          now_ms: now.getTime(),
          form: mark + form,
          layout: layoutVersion,
          ...splitRequest('me:0:7'),
        }).concat(tasks);
      const answer = await run(context, 'createMany', args(''));
      const before = await queueContents(q.redis, q.prefix);
      expect(await run(context, 'createMany', args('r'))).toBe(answer);
      expect(await queueContents(q.redis, q.prefix)).toEqual(before);
      expect(await q.redis.zrange(q.key.ready, 0, -1)).toEqual(String(answer).split(','));
    },
  );
});

/** createManyGeneral stores tasks through create-many.lua's general form, every task decoded ('g'). */
async function createManyGeneral(engine: Engine, tasks: Task[]): Promise<string[]> {
  const context = engineContext(engine);
  const now = context.clock();
  const taskArgs = tasks.flatMap((task) =>
    argv('create_many_task', { ...prepareCreate(task, now).args, kind: 'g' }),
  );
  const answer = (await runRequest(context, 'createMany', (request) =>
    argv('create_many', {
      now_ms: now.getTime(),
      form: 'g',
      layout: layoutVersion,
      ...splitRequest(request),
    }).concat(taskArgs),
  )) as string;
  return answer.split(',');
}

// create-many.lua's lean form (a chunk of plain tasks: one INCRBY, HSET and
// ZADD, include/create.lua lean_store_many) and its general form (each task
// through reindex) leave the same keys.
describe('createMany: the lean form and the general one agree', () => {
  const lean = useQueue('2023-10-20T00:00:01Z');
  const general = useQueue('2023-10-20T00:00:01Z');
  const plain = (count: number): Task[] =>
    Array.from({ length: count }, (_, n): Task =>
      n % 3 === 1
        ? { meta: { n: String(n), o: 'x' }, core: { [Label.Cancel]: '3' } }
        : { meta: { n: String(n) } },
    );

  /** both sets the same queue up twice, stores the tasks each way, and compares every key. */
  async function both(
    tasks: Task[],
    setUp: (q: TestQueue, eon: Engine) => Promise<void> = async () => {},
  ) {
    const [a, b] = [lean(), general()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    await setUp(a, eonA);
    await setUp(b, eonB);
    const stored = await eonA.createMany(tasks.map((task) => structuredClone(task)));
    expect(stored.map(idOf)).toEqual(
      await createManyGeneral(
        eonB,
        tasks.map((task) => structuredClone(task)),
      ),
    );
    // every key but the answers kept for requests (each engine has its own instance)
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    return { a, stored, eonA };
  }

  it('in a plain queue', async () => {
    const { a } = await both(plain(5));
    expect(await a.redis.exists(a.key.features)).toBe(0);
  });

  it('a whole chunk, its ids across hundreds of the sequence', async () => {
    const { stored } = await both(plain(createManyChunk), async (q) => {
      await q.redis.set(q.key.sequence, '37');
    });
    expect(stored.map((task) => idOf(task).slice(-3))).toEqual(
      Array.from({ length: createManyChunk }, (_, n) => String(38 + n).padStart(3, '0')),
    );
  });

  it('past a sequence number of 12 digits (the id grows a digit)', async () => {
    const { stored } = await both(plain(12), async (q) => {
      await q.redis.set(q.key.sequence, '999999999995');
    });
    expect(stored.map((task) => idOf(task).split('-')[1])).toEqual([
      ...['999999999996', '999999999997', '999999999998', '999999999999'],
      ...Array.from({ length: 8 }, (_, n) => String(1_000_000_000_000 + n)),
    ]);
  });

  it('with parked slots to wake (parked-slots)', async () => {
    const { a } = await both(plain(3), async (q, eon) => {
      for (const slot of ['s1', 's2', 's3', 's4'])
        await searchFor(eon, filterList([]), [], { slot, forMs: 60_000 });
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(1); // three woken, one a task
  });

  it('with a known filter and its parked slot (filters)', async () => {
    const { a } = await both(plain(3), async (q, eon) => {
      await searchFor(eon, filterList([{ meta: { n: '2' } }]), [], { slot: 's1', forMs: 60_000 });
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(0); // woken by task 2
  });

  it('while someone reads the events stream (events)', async () => {
    const { eonA } = await both(plain(3), async (q, eon) => {
      await eon.events();
    });
    expect((await eonA.events()).filter((event) => event.kind === 'created')).toHaveLength(3);
  });

  it('with a root some leaf has (roots, watched)', async () => {
    const { a } = await both(plain(3), async (q, eon) => {
      await eon.create({ meta: { k: 'leaf' }, root: { n: '1' } });
    });
    expect(await a.redis.zcard(a.key['meta-tasks'])).toBeGreaterThan(0); // 1 listed by its meta
  });
});

// createMany with `unique` (docs/semantics.md §3.11): each task is what
// create(task, { unique }) would do, in order, inside the chunk's one step.
describe('engine.createMany with unique', () => {
  const many = useQueue('2023-10-20T00:00:01Z');
  const each = useQueue('2023-10-20T00:00:01Z');
  const meta = { kind: 'sync-account' };

  /** both: createMany with unique on one queue, create of each task in turn on the other. */
  async function both(tasks: Task[], unique: (UniqueOptions | undefined)[]) {
    const [a, b] = [many(), each()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    const answers = await eonA.createMany(
      tasks.map((task) => structuredClone(task)),
      { unique },
    );
    const created: UniqueCreate[] = [];
    for (const [index, task] of tasks.entries()) {
      const options = unique[index];
      created.push(
        options === undefined
          ? await eonB.create(structuredClone(task)).then((stored) => ({
              action: 'created' as const,
              id: idOf(stored),
              task: stored,
            }))
          : await eonB.create(structuredClone(task), { unique: options }),
      );
    }
    // a skipped task's holder is read once the call is done (the same after one chunk of creates)
    const ids = (list: UniqueCreate[]) =>
      list.map((answer) =>
        answer.action === 'skipped' ? { ...answer, task: 'read after' } : answer,
      );
    expect(ids(answers)).toEqual(ids(created));
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    return { a, answers };
  }

  it('answers created, skipped and replaced per task, as creates in order would, two tasks of a key in one chunk included', async () => {
    const { answers } = await both(
      [
        { meta: { ...meta, n: '1' }, payload: 1 },
        { meta: { n: 'plain' } },
        { meta: { ...meta, n: '2' }, payload: 2 },
        { meta: { ...meta, n: '3' }, payload: 3 },
        { meta: { ...meta, n: '4' } },
        { meta: { ...meta, n: '5' }, payload: 5 },
        { meta: { ...meta, n: '6' }, payload: 6 },
      ],
      [
        { key: 'a' },
        undefined,
        { key: 'a' }, // skipped: task 0 holds it
        { key: 'a', mode: 'replace' }, // replaces task 0
        { key: 'b', ttl: 5_000 },
        { key: 'c', mode: 'debounce', delay: 1_000 },
        { key: 'c', mode: 'debounce', delay: 1_000 }, // replaces task 5
      ],
    );
    expect(answers.map(({ action }) => action)).toEqual([
      'created',
      'created',
      'skipped',
      'replaced',
      'created',
      'created',
      'replaced',
    ]);
    const [first, , skipped, replaced] = answers;
    expect(skipped).toMatchObject({ id: first?.id, task: { payload: 3 } }); // the holder as stored now
    expect(replaced).toMatchObject({ id: first?.id, task: { payload: 3 } });
    expect(answers[6]?.task?.cron).toEqual({ [Label.Exact]: '2023-10-20T00:00:02Z' });
  });

  it('skips a key held before the call, and keeps the existing call shape answering tasks', async () => {
    const q = many();
    const eon = q.engine('eon');
    const holder = await eon.create({ meta, payload: 'old' }, { unique: { key: 'a' } });
    const answers = await eon.createMany([{ meta }, { meta }], {
      unique: [{ key: 'a' }, undefined],
    });
    expect(answers[0]).toMatchObject({
      action: 'skipped',
      id: holder.id,
      task: { payload: 'old' },
    });
    expect(answers[1]?.action).toBe('created');
    const plain = await eon.createMany([{ meta }]);
    expect(plain[0]?.meta).toEqual(meta); // a task, not an answer
    expect(await eon.lister({ meta })).toHaveLength(3);
  });

  it('holds a key across chunks: one task stored of a key given more times than a chunk holds', async () => {
    const q = many();
    const count = createManyChunk + 3;
    const answers = await q.engine('eon').createMany(
      Array.from({ length: count }, (_, n) => ({ meta, payload: n })),
      { unique: Array.from({ length: count }, () => ({ key: 'a' })) },
    );
    expect(answers.filter(({ action }) => action === 'created')).toHaveLength(1);
    expect(new Set(answers.map(({ id }) => id)).size).toBe(1);
    expect(await q.engine('eon').lister({ meta })).toHaveLength(1);
  });

  it('gives exactly one task to createMany calls of several engines at once', async () => {
    const q = many();
    const engines = ['a', 'b', 'c', 'd'].map((name) => q.engine(name));
    const answers = await Promise.all(
      engines.map((engine, index) =>
        engine.createMany([{ meta: { n: String(index) } }, { meta, payload: index }], {
          unique: [undefined, { key: 'a' }],
        }),
      ),
    );
    const keyed = answers.map((answer) => answer[1]);
    expect(keyed.filter((answer) => answer?.action === 'created')).toHaveLength(1);
    expect(new Set(keyed.map((answer) => answer?.id)).size).toBe(1);
    expect(await engines[0]?.lister({ meta })).toHaveLength(1);
  });

  it('refuses a bad unique option before any write, naming the task', async () => {
    const q = many();
    const eon = q.engine('eon');
    await expectUnchanged(q.redis, q.prefix, async () => {
      const error: unknown = await eon
        .createMany([{ meta }, { meta, cron: { [Label.Every]: 'hour' } }], {
          unique: [{ key: 'a' }, { key: 'b' }],
        })
        .catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(TaskCronError);
      expect((error as Error).message).toMatch(/^createMany: task 1: create: a cron template/);
      await expect(eon.createMany([{ meta }], { unique: [{ key: '' }] })).rejects.toThrow(
        /^createMany: task 0: create: unique "key"/,
      );
      await expect(
        eon.createMany([{ meta }, { meta }], { unique: [{ key: 'a' }] }),
      ).rejects.toThrow(/^createMany: option "unique" must be an array of one entry a task \(2\)/);
    });
  });

  it('answers a chunk with unique tasks sent again the same, and writes nothing twice', async () => {
    const q = many();
    const context = engineContext(q.engine('eon'));
    const now = context.clock();
    const task = (n: string) =>
      JSON.stringify({
        core: { [Label.Unique]: 'a' },
        meta: { n },
        node: { [Label.Method]: 'any' },
      });
    const args = (form: string) =>
      argv('create_many', {
        now_ms: now.getTime(),
        form,
        layout: layoutVersion,
        ...splitRequest('me:0:8'),
      }).concat(
        ['u', 'v'].flatMap((n) =>
          argv('create_many_task', {
            kind: 'uskip\0' + '0',
            task: task(n),
            due_ms: '',
            tick_p1_ms: '',
            check_ms: '',
          }),
        ),
      );
    const answer = String(await run(context, 'createMany', args('g')));
    const [created, skipped] = answer.split(',');
    expect(created).toMatch(/^created /);
    expect(skipped).toBe(created?.replace('created', 'skipped'));
    const before = await queueContents(q.redis, q.prefix);
    expect(await run(context, 'createMany', args('rg'))).toBe(answer);
    expect(await queueContents(q.redis, q.prefix)).toEqual(before);
  });
});
