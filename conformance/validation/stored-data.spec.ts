import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { countsInN, storeUnreadableTemplate } from '../harness/probes.js';
import { idOf, type TestQueue, useQueue } from '../harness/queue.js';

// docs/semantics.md §1.10: records that are not tasks (written to Redis by
// something else) are skipped by every operation, and removed by retention
// once the creation instant in their id is older than cleanup; readable tasks
// with unreadable labels are read as §1.10 says.

const everything: Task = { meta: { '*': '*' } };

/** copyTask deep-copies a task's label maps (structuredClone would give objects of another realm under Jest). */
function copyTask(task: Task): Task {
  return Object.fromEntries(Object.entries(task).map(([name, labels]) => [name, { ...labels }]));
}

/** An id whose creation instant is 2023-10-20T00:00:01Z. */
const badId = '1697760001000-000000009999';

const badRecords: [string, string][] = [
  [
    'a record that is not JSON',
    '{"core": {"task.rescue.io/object": "1697760001000-000000009999"}, "meta": ',
  ],
  ['a JSON string', '"task"'],
  ['a JSON number', '42'],
  ['JSON null', 'null'],
  ['a JSON array', `[{"core":{"task.rescue.io/object":"${badId}"},"meta":{"k":"v"}}]`],
  ['a map that is not an object', `{"core":{"task.rescue.io/object":"${badId}"},"meta":"k=v"}`],
  ['a map that is an array', `{"core":{"task.rescue.io/object":"${badId}"},"meta":["k","v"]}`],
  ['a number label', `{"core":{"task.rescue.io/object":"${badId}"},"meta":{"k":1}}`],
  ['a nested label', `{"core":{"task.rescue.io/object":"${badId}"},"meta":{"k":{"v":"w"}}}`],
  [
    'a core object id that differs from its field',
    `{"core":{"task.rescue.io/object":"1697760001000-000000009998"},"meta":{"k":"v"}}`,
  ],
  // A record without core is not on this list: the tasks hash keeps records in
  // a compact form (lib/task/codec.ts encodeStored) that leaves out the object
  // id, so `{"meta":{"k":"v"}}` is a task whose core holds only its id.
];

describe('stored records that are not tasks (docs/semantics.md §1.10)', () => {
  const queue = useQueue('2023-10-20T00:00:02Z');

  async function write(json: string, id = badId): Promise<void> {
    await queue().redis.hset(queue().key.tasks, id, json);
  }

  async function present(id = badId): Promise<boolean> {
    return (await queue().redis.hexists(queue().key.tasks, id)) === 1;
  }

  it.each(badRecords)('skips %s in lister, exists and search', async (_name, json) => {
    const eon = queue().engine('eon');
    const good = await eon.create({ meta: { k: 'v' } });
    await write(json);
    expect(await eon.lister(everything)).toEqual([good]);
    expect(await eon.lister({ meta: { k: 'v' } })).toEqual([good]);
    expect(await eon.exists({ core: { [Label.Object]: badId } })).toBe(false);
    expect(await eon.exists({ core: { [Label.Object]: '1697760001000-000000009998' } })).toBe(
      false,
    );
    expect(idOf(await eon.search())).toBe(idOf(good));
    expect(await eon.search()).toBeUndefined();
    expect(await present()).toBe(true);
  });

  it.each(badRecords)(
    'throws TaskNotFoundError for delete, extend and cycles on the id of %s',
    async (_name, json) => {
      const eon = queue().engine('eon');
      await write(json);
      const copy: Task = {
        core: { [Label.Object]: badId, [Label.Worker]: 'eon', [Label.Cancel]: '1' },
        meta: { k: 'v' },
      };
      await expect(eon.delete(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(
        eon.delete({ ...copy, core: { ...copy.core, [Label.Bypass]: 'true' } }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(eon.extend(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(eon.cycles(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
      expect(await queue().redis.hget(queue().key.tasks, badId)).toBe(json);
    },
  );

  it.each(badRecords)(
    'keeps %s until its id is older than cleanup, then expire removes it',
    async (_name, json) => {
      const q = queue();
      const eon = q.engine('eon');
      await write(json);
      await eon.expire();
      expect(await present()).toBe(true);
      q.clock.set('2023-10-27T00:00:01Z'); // exactly cleanup after the instant in the id
      await eon.expire();
      expect(await present()).toBe(true);
      q.clock.set('2023-10-27T00:00:01.001Z');
      await eon.expire();
      expect(await present()).toBe(false);
    },
  );

  it('removes every record that is not a task past retention, a bounded number per expire call', async () => {
    const q = queue();
    const eon = q.engine('eon');
    // 1000 records that are not tasks, with ids created 2023-10-20T00:00:01Z
    const fields: string[] = [];
    for (let n = 0; n < 1000; n++)
      fields.push(`1697760001000-${String(100_000 + n).padStart(12, '0')}`, `not json ${n}`);
    await q.redis.hset(q.key.tasks, ...fields);
    q.clock.set('2023-10-28T00:00:00Z');
    const young = await eon.create({ meta: { k: 'young' } }); // retention keeps it
    // The sweep reads a bounded slice of the queue per call (docs/redis-layout.md),
    // so expire's cost does not grow with the queue; repeated calls get them all.
    await eon.expire();
    const afterOne = await q.redis.hlen(q.key.tasks);
    expect(afterOne).toBeGreaterThan(1);
    expect(afterOne).toBeLessThan(1001);
    for (let call = 0; call < 100 && (await q.redis.hlen(q.key.tasks)) > 1; call++)
      await eon.expire();
    expect(await q.redis.hlen(q.key.tasks)).toBe(1);
    expect(await eon.lister(everything)).toEqual([young]);
  });

  it('does not crash any operation while such records are in the queue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const [index, [, json]] of badRecords.entries()) {
      await write(json, `1697760001000-00000000${String(9000 + index).padStart(4, '0')}`);
    }
    await write('{"meta":{"k":"v"}}', 'not-an-id');
    await write('', '');
    q.clock.set('2023-10-20T00:00:03Z'); // after the engines' start, so etw receives the broadcast task
    const template = await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { k: 'template' },
    });
    const gate = await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    const trigger = await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } });
    const broadcast = await eon.create({
      meta: { k: 'broadcast' },
      node: { [Label.Method]: Method.All },
    });
    await eon.create({ meta: { k: 'leaf' }, root: { k: 'trigger' } }); // obsolete: trigger's meta has it
    q.clock.set('2023-10-20T00:01:00.5Z');
    await eon.ticker();
    expect(await eon.exists({ root: { [Label.Object]: idOf(template) } })).toBe(true);
    expect(await etw.search()).toEqual(broadcast);
    const claimed = await eon.search({ meta: { k: 'trigger' } });
    expect(idOf(claimed)).toBe(idOf(trigger));
    expect(await eon.exists({ meta: { k: 'leaf' } })).toBe(false); // the leaf went as obsolete
    await eon.delete(claimed!);
    expect(
      (await eon.lister({ meta: { k: 'gate' } })).filter(
        (task) => task.root?.[Label.Object] === idOf(gate),
      ),
    ).toHaveLength(1);
    await eon.expire();
    q.clock.set('2023-10-28T00:00:00Z');
    await eon.expire();
    await eon.ticker();
    // every bad record with an id went; the ones without a readable id stay and stay invisible
    const fields = (await q.redis.hkeys(q.key.tasks)).filter((field) =>
      field.startsWith('1697760001000-00000000'),
    );
    expect(fields).toEqual([]);
    expect(
      (await eon.lister(everything)).every((task) => task.core?.[Label.Object] !== 'not-an-id'),
    ).toBe(true);
  });
});

describe('readable tasks with unreadable labels (docs/semantics.md §1.10)', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  /** requeue stores the claimed task's copy, changed by `change`, through a paging delete. */
  async function requeue(engine: Engine, change: (copy: Task) => Task): Promise<Task> {
    const claimed = await engine.search();
    if (claimed === undefined) throw new Error('nothing to claim');
    const copy = change(copyTask(claimed));
    await engine.delete({ ...copy, sync: { ...copy.sync, [Label.Paging]: '1' } });
    const [stored] = await engine.lister({ meta: { k: 'foo' } });
    if (stored === undefined) throw new Error('the requeued task is gone');
    return stored;
  }

  it('counts a stored task without a node as `any`', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({ core: copy.core, meta: copy.meta }));
    expect(stored.node).toBeUndefined();
    expect(stored.core?.[Label.Worker]).toBeUndefined();
    const again = await etw.search();
    expect(idOf(again)).toBe(idOf(stored));
    expect(again?.core?.[Label.Worker]).toBe('etw'); // owned, so not delivered as broadcast
    expect(again?.node).toBeUndefined();
  });

  it('counts a stored task with an invalid method as `any`', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({ ...copy, node: { [Label.Method]: 'mny' } }));
    expect(stored.node).toEqual({ [Label.Method]: 'mny' });
    const etw = q.engine('etw');
    const again = await etw.search();
    expect(idOf(again)).toBe(idOf(stored));
    expect(again?.core?.[Label.Worker]).toBe('etw');
  });

  it('counts an unreadable @exact as reached', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({
      ...copy,
      cron: { [Label.Exact]: 'next tuesday' },
    }));
    expect(stored.cron).toEqual({ [Label.Exact]: 'next tuesday' });
    expect(idOf(await q.engine('etw').search())).toBe(idOf(stored));
  });

  it('ticks a cron template stored by a paging requeue like any other template', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({
      ...copy,
      cron: {
        [Label.Every]: 'hour',
        [Label.TickM1]: '2023-10-19T23:00:00Z',
        [Label.TickP1]: '2023-10-20T00:00:00Z',
      },
    }));
    await eon.ticker(); // due since 00:00
    const children = (await eon.lister(everything)).filter(
      (task) => task.root?.[Label.Object] === idOf(stored),
    );
    expect(children).toHaveLength(1);
  });

  it('treats a template whose tick+1 is unreadable as overdue: ticker emits at once and rewrites tick+1', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({
      ...copy,
      cron: { [Label.Every]: 'hour', [Label.TickM1]: 'garbage', [Label.TickP1]: 'garbage' },
    }));
    expect(stored.cron?.[Label.TickP1]).toBe('garbage');
    expect(await eon.search()).toBeUndefined(); // a cron template is never searchable
    await eon.ticker();
    const children = (await eon.lister(everything)).filter(
      (task) => task.root?.[Label.Object] === idOf(stored),
    );
    expect(children).toHaveLength(1);
    const [template] = (await eon.lister(everything)).filter((task) => idOf(task) === idOf(stored));
    expect(template?.cron?.[Label.TickP1]).toBe('2023-10-20T01:00:00Z');
  });

  it('treats a template without tick+1 as overdue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({ ...copy, cron: { [Label.Every]: 'hour' } }));
    await eon.ticker();
    const children = (await eon.lister(everything)).filter(
      (task) => task.root?.[Label.Object] === idOf(stored),
    );
    expect(children).toHaveLength(1);
  });

  it('moves an unreadable tick-1 of a template that is not overdue and has no child', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({
      ...copy,
      cron: {
        [Label.Every]: 'hour',
        [Label.TickM1]: 'garbage',
        [Label.TickP1]: '2023-10-20T01:00:00Z',
      },
    }));
    await eon.ticker();
    const [template] = (await eon.lister(everything)).filter((task) => idOf(task) === idOf(stored));
    expect(template?.cron).toEqual({
      [Label.Every]: 'hour',
      [Label.TickM1]: '2023-10-20T00:00:00Z',
      [Label.TickP1]: '2023-10-20T01:00:00Z',
    });
  });

  it('skips a template whose @every cannot be read, which stays unsearchable', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const stored = await requeue(eon, (copy) => ({
      ...copy,
      cron: { [Label.Every]: 'every blue moon' },
    }));
    q.clock.set('2023-10-21T00:00:00Z');
    await eon.ticker();
    expect(await eon.lister(everything)).toEqual([stored]);
    expect(await eon.search()).toBeUndefined();
    expect(await q.engine('etw').search()).toBeUndefined();
  });
});

// Tasks with labels the engine itself never writes can only come from
// something else writing the queue's tasks hash (§1.10: "written to Redis by
// something else, or an old format"). They are well formed JSON with their own
// id, so every operation must see them and read their labels as §1.10 says.
// Deliberate limit (docs/redis-layout.md, "Records written by something else"):
// search, expire and ticker work from the engine's indexes, which only the
// engine's scripts fill. A well-formed task written into the tasks hash by
// something else is read by lister and exists, and can be deleted with bypass,
// but is never handed out, revoked or ticked.
describe("tasks written by something else (outside the engine's indexes)", () => {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const id = '1697760000000-000000009999'; // created 2023-10-20T00:00:00Z

  async function writeTask(task: Task): Promise<void> {
    const q = queue();
    await q.redis.hset(
      q.key.tasks,
      id,
      JSON.stringify({ ...task, core: { ...task.core, [Label.Object]: id } }),
    );
  }

  it('lists such a task and finds it with exists', async () => {
    const eon = queue().engine('eon');
    await writeTask({ meta: { k: 'v' }, node: { [Label.Method]: Method.Any } });
    expect(await eon.lister(everything)).toEqual([
      { core: { [Label.Object]: id }, meta: { k: 'v' }, node: { [Label.Method]: Method.Any } },
    ]);
    expect(await eon.exists({ core: { [Label.Object]: id } })).toBe(true);
  });

  it('does not hand out, revoke or tick it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await writeTask({ cron: { [Label.Every]: 'hour' }, meta: { k: 'v' } });
    const before = await eon.lister(everything);
    expect(await eon.search()).toBeUndefined();
    await eon.expire();
    q.clock.set('2023-10-21T00:00:00Z');
    await eon.ticker();
    expect(await eon.lister(everything)).toEqual(before);
  });

  it('deletes it with bypass', async () => {
    const eon = queue().engine('eon');
    await writeTask({ meta: { k: 'v' } });
    await eon.delete({ core: { [Label.Object]: id, [Label.Bypass]: 'true' } });
    expect(await eon.exists(everything)).toBe(false);
  });
});

// §1.10 for records of tasks the engine stored and indexed, replaced in place
// by something that is not a task (another program, an old format): every
// operation goes on, and the record is skipped everywhere until retention.
describe('a stored task whose record is replaced by something that is not a task', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const notATask = '{"meta": {"k": "x"'; // cut off: not JSON

  /** Each kind is stored (and put in its state) by the engine `aux`, then its record is replaced. */
  const kinds: [string, (q: TestQueue) => Promise<Task>][] = [
    ['an unowned plain task', (q) => q.engine('aux').create({ meta: { k: 'x' } })],
    [
      'an owned plain task',
      async (q) => {
        const task = await q.engine('aux').create({ meta: { k: 'x' } });
        expect(idOf(await q.engine('aux').search())).toBe(idOf(task));
        return task;
      },
    ],
    [
      'a unicast task',
      (q) =>
        q.engine('aux').create({
          meta: { k: 'x' },
          node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
        }),
    ],
    [
      'an @exact task not yet due',
      (q) =>
        q
          .engine('aux')
          .create({ cron: { [Label.Exact]: '2023-10-20T00:00:05Z' }, meta: { k: 'x' } }),
    ],
    [
      'a deferred task',
      async (q) => {
        const aux = q.engine('aux');
        const task = await aux.create({ meta: { k: 'x' } });
        await aux.delete({ ...(await aux.search()), cron: { [Label.Defer]: 'minute' } });
        return task;
      },
    ],
    [
      'a cron template',
      (q) => q.engine('aux').create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'x' } }),
    ],
    [
      'a gate template',
      (q) => q.engine('aux').create({ gate: { g: 'waiting' }, meta: { k: 'x' } }),
    ],
    [
      'a broadcast task',
      (q) => q.engine('aux').create({ meta: { k: 'x' }, node: { [Label.Method]: Method.All } }),
    ],
    ['a leaf', (q) => q.engine('aux').create({ meta: { k: 'x' }, root: { r: 'y' } })],
    [
      'a child of a cron template',
      async (q) => {
        const aux = q.engine('aux');
        const template = await aux.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 't' } });
        q.clock.set('2023-10-20T00:01:00.5Z');
        await aux.ticker();
        const child = (await aux.lister(everything)).find(
          (task) => task.root?.[Label.Object] === idOf(template),
        );
        if (child === undefined) throw new Error('no child emitted');
        return child;
      },
    ],
  ];

  it.each(kinds)(
    'skips what was %s in every operation, without failing one, until retention removes it',
    async (_name, store) => {
      const q = queue();
      const eon = q.engine('eon');
      const etw = q.engine('etw');
      const x = await store(q);
      const field = idOf(x);
      await q.redis.hset(q.key.tasks, field, notATask);
      const isX = (task: Task | undefined) => task !== undefined && idOf(task) === field;

      // a few tasks of other kinds for the operations to work on
      const plain = await eon.create({ meta: { r: 'y' } }); // makes the leaf obsolete, were it one
      await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } });
      q.clock.advance(60_000); // the @exact and deferred instants and the template tick have passed

      for (let round = 0; round < 3; round++) {
        for (const engine of [eon, etw]) expect(isX(await engine.search())).toBe(false);
        await eon.ticker();
        await etw.expire();
      }
      expect((await eon.lister(everything)).some(isX)).toBe(false);
      expect(await eon.exists({ core: { [Label.Object]: field } })).toBe(false);
      expect(await eon.exists({ root: { [Label.Object]: field } })).toBe(false);

      // delete, extend and cycles cannot find it, with or without bypass or the owner's label
      const copy: Task = {
        core: { [Label.Object]: field, [Label.Worker]: 'aux', [Label.Cancel]: '1' },
        meta: { k: 'x' },
      };
      await expect(eon.delete(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(
        eon.delete({ core: { [Label.Object]: field, [Label.Bypass]: 'true' } }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(q.engine('aux').extend(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(eon.cycles(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
      expect(await q.redis.hget(q.key.tasks, field)).toBe(notATask);

      // the queue goes on working around it
      const more = await eon.create({ meta: { k: 'more' } });
      expect(await eon.exists({ core: { [Label.Object]: idOf(more) } })).toBe(true);
      expect(await eon.exists({ core: { [Label.Object]: idOf(plain) } })).toBe(true);

      // retention removes the record once the instant in its id is older than cleanup
      q.clock.set('2023-10-28T00:00:00Z');
      for (let call = 0; call < 5; call++) {
        await eon.expire();
        await eon.ticker();
        await eon.search();
      }
      expect(await q.redis.hexists(q.key.tasks, field)).toBe(0);
    },
  );
});

// §1.10 for labels another program wrote into a stored task in place.
describe('a stored task whose labels another program made unreadable', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  /** rewrite replaces the stored record of a task by its decoded form changed by `change`. */
  async function rewrite(q: TestQueue, id: string, change: (task: Task) => Task): Promise<void> {
    const [stored] = (await q.engine('aux').lister(everything)).filter((task) => idOf(task) === id);
    if (stored === undefined) throw new Error(`no task ${id}`);
    await q.redis.hset(q.key.tasks, id, JSON.stringify(change(copyTask(stored))));
  }

  function withCore(task: Task, labels: Record<string, string>): Task {
    return { ...task, core: { ...task.core, ...labels } };
  }

  it.each(['abc', ''])(
    'counts a cycles value %j as 0: a revocation and a requeue each make it 1',
    async (cycles) => {
      const q = queue();
      const eon = q.engine('eon');
      const revoked = await eon.create({ meta: { k: 'revoked' } });
      const requeued = await eon.create({ meta: { k: 'requeued' } });
      await eon.search();
      const copy = await eon.search();
      await rewrite(q, idOf(revoked), (task) => withCore(task, { [Label.Cycles]: cycles }));
      await rewrite(q, idOf(requeued), (task) => withCore(task, { [Label.Cycles]: cycles }));

      await eon.delete({ ...copy, sync: { [Label.Paging]: '1' } });
      q.clock.set('2023-10-20T00:00:31Z');
      await eon.expire();
      const cores = (await eon.lister(everything)).map((task) => task.core);
      expect(cores).toEqual([
        { [Label.Object]: idOf(revoked), [Label.Cycles]: '1' },
        { [Label.Object]: idOf(requeued), [Label.Cycles]: '1' },
      ]);
    },
  );

  it.each(['x', 'two', ''])(
    'lets a cancel value %j disable the circuit breaker: the task is handed out and revoked at any cycles',
    async (cancel) => {
      const q = queue();
      const eon = q.engine('eon');
      const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'x' } });
      await rewrite(q, idOf(task), (stored) =>
        withCore(stored, { [Label.Cancel]: cancel, [Label.Cycles]: '5' }),
      );
      const first = await eon.search();
      expect(idOf(first)).toBe(idOf(task));
      q.clock.set('2023-10-20T00:00:31Z');
      await eon.expire();
      const again = await q.engine('etw').search();
      expect(idOf(again)).toBe(idOf(task));
      expect(again?.core?.[Label.Cycles]).toBe('6');
      expect(again?.core?.[Label.Cancel]).toBe(cancel);
    },
  );
});

describe('records that are not tasks are never counted (docs/semantics.md §1.10, §3.2 phase 3)', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const notATask = '{"meta": {"k": "x"'; // cut off: not JSON

  it('lets its worker claim a new task after the record of the task it owned was replaced and its lease ended', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const a = await eon.create({ meta: { k: 'a' } });
    expect((await eon.search())?.core?.[Label.Object]).toBe(idOf(a));
    await q.redis.hset(q.key.tasks, idOf(a), notATask);
    q.clock.set('2023-10-20T00:01:00Z'); // a's lease ended at :31
    await eon.expire();
    const d = await eon.create({ meta: { k: 'd' } });
    // the queue holds one task, d, and nobody owns anything: n = 1, W = [eon], share 1
    expect((await eon.search())?.core?.[Label.Object]).toBe(idOf(d));
  });

  it('lets anybody claim new tasks once retention removed the record of a task a worker owned', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const a = await eon.create({ meta: { k: 'a' } });
    await eon.search();
    await q.redis.hset(q.key.tasks, idOf(a), notATask);
    q.clock.set('2023-10-28T00:00:00Z');
    for (let call = 0; call < 3; call++) await eon.expire();
    expect(await q.redis.hexists(q.key.tasks, idOf(a))).toBe(0);
    const d = await eon.create({ meta: { k: 'd' } });
    expect((await q.engine('etw').search())?.core?.[Label.Object]).toBe(idOf(d));
  });

  it('does not count an unowned task whose record was replaced in n', async () => {
    const q = queue();
    const x = await q.engine('aux').create({ meta: { k: 'x' } });
    await q.redis.hset(q.key.tasks, idOf(x), notATask);
    expect(await countsInN(q)).toBe(false);
  });

  it('does not count a unicast task whose record was replaced in n, also after retention removed the record', async () => {
    const q = queue();
    const x = await q.engine('aux').create({
      meta: { k: 'x' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'someone' },
    });
    await q.redis.hset(q.key.tasks, idOf(x), notATask);
    q.clock.set('2023-10-28T00:00:00Z');
    for (let call = 0; call < 3; call++) await q.engine('aux').expire();
    expect(await q.redis.hexists(q.key.tasks, idOf(x))).toBe(0);
    expect(await countsInN(q)).toBe(false);
  });
});

describe('index entries of records that are not tasks any more (docs/semantics.md §1.10)', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const notATask = '{"meta": {"k": "x"'; // cut off: not JSON

  it('drops a template whose record was replaced from the ticker, which goes on ticking the others', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const broken = await eon.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'broken' } });
    const kept = await eon.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'kept' } });
    await q.redis.hset(q.key.tasks, idOf(broken), notATask);
    q.clock.set('2023-10-20T00:01:00.5Z');
    await eon.ticker();

    expect(await q.redis.zscore(q.key.templates, idOf(broken))).toBeNull();
    const children = (await eon.lister(everything)).filter((task) => task.root !== undefined);
    expect(children.map((child) => child.root?.[Label.Object])).toEqual([idOf(kept)]);
  });

  it('parks a template whose @every cannot be read: ticker stops reading it, and it stays in the queue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const id = await storeUnreadableTemplate(eon);
    expect(await q.redis.zscore(q.key.templates, id)).toBe('-inf'); // overdue: ticker looks at it

    await eon.ticker();
    expect(await q.redis.zscore(q.key.templates, id)).toBe('inf');
    expect((await eon.lister(everything)).map(idOf)).toEqual([id]);
    expect(await eon.search()).toBeUndefined();
  });
});
