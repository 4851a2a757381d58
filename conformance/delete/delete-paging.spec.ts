import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// delete, steps 4 and 7 of docs/semantics.md §3.3 for paging copies, and paging(x) of
// docs/semantics.md §1.4: a paging task is requeued instead of deleted.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

/** withoutCore drops core, for "x ≡ y" comparisons (docs/semantics.md §0). */
function withoutCore(task: Task | undefined): Task | undefined {
  if (task === undefined) return undefined;
  const rest: Task = { ...task };
  delete rest.core;
  return rest;
}

describe('delete: paging', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('follows the paging example of docs/semantics.md §3.3', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const a = await eon.create({ meta: { k: 'foo' }, sync: { one: 'n/a' } });
    q.clock.set('2023-10-20T00:00:02Z');
    const b = await eon.create({ meta: { k: 'bar' }, sync: { [Label.Paging]: '0' } });
    q.clock.set('2023-10-20T00:00:03Z');
    const copyA = await eon.search();
    expect(idOf(copyA)).toBe(idOf(a));
    q.clock.set('2023-10-20T00:00:04Z');
    await eon.delete(copyA!);
    expect(await stored(eon, idOf(a))).toBeUndefined();
    const copyB = await eon.search();
    expect(idOf(copyB)).toBe(idOf(b));
    copyB!.sync![Label.Paging] = '233';
    q.clock.set('2023-10-20T00:00:05Z');
    await eon.delete(copyB!);
    const requeued = await stored(eon, idOf(b));
    expect(withoutCore(requeued)).toEqual({
      meta: { k: 'bar' },
      node: { [Label.Method]: 'any' },
      sync: { [Label.Paging]: '233' },
    });
    expect(requeued?.core).toEqual({ [Label.Object]: idOf(b), [Label.Cycles]: '1' });
    const again = await eon.search();
    expect(idOf(again)).toBe(idOf(b));
    expect(again?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:35Z');
    again!.sync![Label.Paging] = '0';
    q.clock.set('2023-10-20T00:00:06Z');
    await eon.delete(again!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it.each([
    ["'0'", '0'],
    ["'' (empty)", ''],
    ["'  ' (blanks)", '  '],
  ])('deletes a task whose copy has the paging value %s (done)', async (_name, value) => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' }, sync: { [Label.Paging]: '1' } });
    const copy = await eon.search();
    copy!.sync = { [Label.Paging]: value };
    await eon.delete(copy!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it.each([
    ["'1'", '1'],
    ["'foo'", 'foo'],
    ["' 0' (not exactly '0')", ' 0'],
  ])('requeues a task whose copy has the paging value %s (page again)', async (_name, value) => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.sync = { [Label.Paging]: value };
    await eon.delete(copy!);
    const requeued = await stored(eon, idOf(copy));
    expect(requeued?.sync).toEqual({ [Label.Paging]: value });
    expect(requeued?.core).toEqual({ [Label.Object]: idOf(copy), [Label.Cycles]: '1' });
  });

  it('deletes a task whose stored sync pages when the copy no longer does', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' }, sync: { [Label.Paging]: '1' } });
    const copy = await eon.search();
    delete copy!.sync;
    await eon.delete(copy!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it("keeps the stored core on requeue: cycles + 1 from the stored count, cancel kept, worker and expiry removed, the copy's core ignored", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ core: { [Label.Cancel]: '5' }, meta: { k: 'foo' } });
    await eon.search();
    q.clock.advance(30_000);
    await eon.expire();
    const copy = await eon.search();
    expect(copy?.core?.[Label.Cycles]).toBe('1');
    copy!.core = {
      ...copy!.core,
      [Label.Cycles]: '7',
      [Label.Cancel]: '9',
      [Label.Expiry]: '2030-01-01T00:00:00Z',
      extra: 'label',
    };
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect((await stored(eon, idOf(created)))?.core).toEqual({
      [Label.Object]: idOf(created),
      [Label.Cancel]: '5',
      [Label.Cycles]: '2',
    });
  });

  it('takes cron, meta, node and sync from the copy on requeue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ meta: { k: 'foo' }, sync: { a: '1' } });
    const copy = await eon.search();
    copy!.cron = { foo: 'bar' };
    copy!.meta = { k: 'new' };
    copy!.node = { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' };
    copy!.sync = { b: '2', [Label.Paging]: 'next' };
    await eon.delete(copy!);
    expect(await stored(eon, idOf(created))).toEqual({
      core: { [Label.Object]: idOf(created), [Label.Cycles]: '1' },
      cron: { foo: 'bar' },
      meta: { k: 'new' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      sync: { b: '2', [Label.Paging]: 'next' },
    });
    // the new node decides delivery: a unicast task for etw
    expect(await eon.search()).toBeUndefined();
    expect(idOf(await etw.search())).toBe(idOf(created));
  });

  it('leaves maps absent on requeue that the copy does not have', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-20T00:00:10Z');
    const copy = await eon.search();
    expect(copy?.cron).toBeDefined();
    delete copy!.cron;
    delete copy!.node;
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect(await stored(eon, idOf(created))).toEqual({
      core: { [Label.Object]: idOf(created), [Label.Cycles]: '1' },
      meta: { k: 'foo' },
      sync: { [Label.Paging]: '1' },
    });
    // no longer an exact task, and without node a task counts as method any
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it("waits for a future @exact that the worker put in the copy's cron", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.cron = { [Label.Exact]: '2023-10-20T01:00:00Z' };
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect((await stored(eon, idOf(created)))?.cron).toEqual({
      [Label.Exact]: '2023-10-20T01:00:00Z',
    });
    q.clock.set('2023-10-20T00:59:59.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T01:00:00Z');
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it("treats an unreadable @exact that the worker put in the copy's cron as reached", async () => {
    const eon = queue().engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.cron = { [Label.Exact]: 'tomorrow' };
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect((await stored(eon, idOf(created)))?.cron).toEqual({ [Label.Exact]: 'tomorrow' });
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it('drops the stored gate on requeue and does no gate accounting', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const trigger = await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    const copy = await eon.search();
    expect(idOf(copy)).toBe(idOf(trigger));
    delete copy!.gate;
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect(await stored(eon, idOf(trigger))).toEqual({
      core: { [Label.Object]: idOf(trigger), [Label.Cycles]: '1' },
      meta: { k: 'trigger' },
      node: { [Label.Method]: 'any' },
      sync: { [Label.Paging]: '1' },
    });
    expect((await stored(eon, idOf(template)))?.gate).toEqual({ g0: 'waiting' });
    expect(await eon.lister(everything)).toHaveLength(2);
  });

  it('drops the stored root on requeue, so the task is no longer a leaf', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const leaf = await eon.create({ meta: { k: 'leaf' }, root: { k: 'done' } });
    const copy = await eon.search();
    delete copy!.root;
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect((await stored(eon, idOf(leaf)))?.root).toBeUndefined();
    await eon.create({ meta: { k: 'done' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it('halts a paging task with cancel 2 after two requeues', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      core: { [Label.Cancel]: '2' },
      meta: { k: 'foo' },
      sync: { [Label.Paging]: '1' },
    });
    await eon.delete((await eon.search())!);
    const second = await eon.search();
    expect(second?.core?.[Label.Cycles]).toBe('1');
    await eon.delete(second!);
    expect(await eon.search()).toBeUndefined();
    expect((await stored(eon, idOf(created)))?.core).toEqual({
      [Label.Object]: idOf(created),
      [Label.Cancel]: '2',
      [Label.Cycles]: '2',
    });
  });

  it('deletes a paging trigger task instead of requeueing it', async () => {
    const eon = queue().engine('eon');
    await eon.create({
      gate: { g0: 'trigger' },
      meta: { k: 'foo' },
      sync: { [Label.Paging]: '1' },
    });
    await eon.delete((await eon.search())!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('deletes a paging leaf instead of requeueing it', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' }, root: { k: 'nothing' }, sync: { [Label.Paging]: '1' } });
    await eon.delete((await eon.search())!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('deletes a paging child of a cron template instead of requeueing it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'foo' },
      sync: { [Label.Paging]: '1' },
    });
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const child = await eon.search();
    expect(child?.root).toEqual({ [Label.Object]: idOf(template) });
    expect(child?.sync).toEqual({ [Label.Paging]: '1' });
    await eon.delete(child!);
    expect((await eon.lister(everything)).map(idOf)).toEqual([idOf(template)]);
  });

  it('deletes a paging child of a gate template instead of requeueing it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { g0: 'waiting' },
      meta: { k: 'foo' },
      sync: { [Label.Paging]: '1' },
    });
    await eon.delete((await eon.search())!);
    const child = await eon.search();
    expect(child?.root).toEqual({ [Label.Object]: idOf(template) });
    expect(child?.sync).toEqual({ [Label.Paging]: '1' });
    await eon.delete(child!);
    expect((await eon.lister(everything)).map(idOf)).toEqual([idOf(template)]);
  });

  it('keeps a past @exact on requeue, so the task is due again at once', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-20T00:00:10Z');
    const copy = await eon.search();
    copy!.sync = { [Label.Paging]: '1' };
    q.clock.set('2023-10-20T00:00:20Z');
    await eon.delete(copy!);
    expect((await stored(eon, idOf(created)))?.cron).toEqual({
      [Label.Exact]: '2023-10-20T00:00:10Z',
    });
    const again = await eon.search();
    expect(idOf(again)).toBe(idOf(created));
    expect(again?.core?.[Label.Cycles]).toBe('1');
  });

  it.each([
    ['a cron with only tick+1', { [Label.TickP1]: '2023-10-20T05:00:00Z' }],
    ['a cron with a user label', { foo: 'bar' }],
    ['an empty cron', {}],
  ])('keeps %s on requeue without computing a tick+1', async (_name, cron) => {
    const eon = queue().engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.cron = { ...cron };
    copy!.sync = { [Label.Paging]: '1' };
    await eon.delete(copy!);
    expect((await stored(eon, idOf(created)))?.cron).toEqual(cron);
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it('makes a requeued task searchable again by any worker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ meta: { k: 'foo' }, sync: { [Label.Paging]: '1' } });
    await eon.delete((await eon.search())!);
    const claimed = await etw.search();
    expect(idOf(claimed)).toBe(idOf(created));
    expect(claimed?.core?.[Label.Worker]).toBe('etw');
    expect(claimed?.core?.[Label.Cycles]).toBe('1');
  });
});
