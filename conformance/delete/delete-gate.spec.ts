import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import { creationTime } from '../../lib/task/object-id.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// delete, step 5 of docs/semantics.md §3.3: gate accounting. Deleting a trigger task
// flips the matching keys of every gate template; a template with no waiting
// key left emits a child and waits again.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

/** childrenOf lists the children of a template (lister may not query a reserved root key, L5). */
async function childrenOf(engine: Engine, id: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter((task) => task.root?.[Label.Object] === id);
}

/** completed lets eon claim the trigger task with the given meta and delete it, with changes to the copy. */
async function complete(
  eon: Engine,
  meta: Record<string, string>,
  change: (copy: Task) => void = () => {},
): Promise<void> {
  const copy = await eon.search({ meta });
  if (copy === undefined) throw new Error(`no task ${JSON.stringify(meta)} to claim`);
  change(copy);
  await eon.delete(copy);
}

describe('delete: gate accounting', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('follows the gate example of docs/semantics.md §3.3', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const a = await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'foo' }, sync: { zer: '0' } });
    q.clock.set('2023-10-20T00:00:02Z');
    const b = await eon.create({ gate: { g1: 'trigger' }, meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:03Z');
    const t = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'bar' },
      sync: { zer: 'n/a', one: 'n/a' },
    });
    const copyA = await eon.search();
    expect(idOf(copyA)).toBe(idOf(a));
    q.clock.set('2023-10-20T00:00:04Z');
    await eon.delete(copyA!);
    const afterA = await stored(eon, idOf(t));
    expect(afterA?.gate).toEqual({ g0: 'deleted', g1: 'waiting' });
    expect(afterA?.sync).toEqual({ zer: '0', one: 'n/a' });
    expect(await childrenOf(eon, idOf(t))).toEqual([]);
    const copyB = await eon.search();
    expect(idOf(copyB)).toBe(idOf(b));
    q.clock.set('2023-10-20T00:00:05Z');
    await eon.delete(copyB!);
    const [e] = await childrenOf(eon, idOf(t));
    expect(e).toEqual({
      core: { [Label.Object]: idOf(e) },
      meta: { k: 'bar' },
      node: { [Label.Method]: 'any' },
      root: { [Label.Object]: idOf(t) },
      sync: { zer: '0', one: 'n/a' },
    });
    expect(creationTime(idOf(e))?.toISOString()).toBe('2023-10-20T00:00:05.000Z');
    expect((await stored(eon, idOf(t)))?.gate).toEqual({ g0: 'waiting', g1: 'waiting' });
    expect(idOf(await eon.search())).toBe(idOf(e));
  });

  it('does not let a trigger key k-1 flip a template key k-10', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { 'k-1': 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { 'k-10': 'waiting', 'k-1': 'waiting' },
      meta: { k: 'template' },
    });
    await complete(eon, { k: 'trigger' });
    expect((await stored(eon, idOf(template)))?.gate).toEqual({
      'k-10': 'waiting',
      'k-1': 'deleted',
    });
  });

  it("updates only the template's sync keys that the copy's sync also has", async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' }, sync: { lat: 'old' } });
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'template' },
      sync: { lat: 'x', latest: 'y' },
    });
    const bare = await eon.create({ gate: { g0: 'waiting', g1: 'waiting' }, meta: { k: 'bare' } });
    const empty = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'empty' },
      sync: {},
    });
    await complete(eon, { k: 'trigger' }, (copy) => {
      copy.sync = { lat: 'new', other: 'z' };
    });
    expect((await stored(eon, idOf(template)))?.sync).toEqual({ lat: 'new', latest: 'y' });
    const bareNow = await stored(eon, idOf(bare));
    expect(bareNow?.gate).toEqual({ g0: 'deleted', g1: 'waiting' });
    expect(bareNow && 'sync' in bareNow).toBe(false);
    expect((await stored(eon, idOf(empty)))?.sync).toEqual({});
  });

  it("leaves the template's sync alone when the copy has no sync", async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'template' },
      sync: { lat: 'x' },
    });
    await complete(eon, { k: 'trigger' });
    const now = await stored(eon, idOf(template));
    expect(now?.gate).toEqual({ g0: 'deleted', g1: 'waiting' });
    expect(now?.sync).toEqual({ lat: 'x' });
  });

  it("counts every key of the copy's gate, whatever its value", async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting', g2: 'waiting', g3: 'waiting' },
      meta: { k: 'template' },
    });
    await complete(eon, { k: 'trigger' }, (copy) => {
      copy.gate = { g0: 'trigger', g1: 'waiting', g2: '' };
    });
    expect((await stored(eon, idOf(template)))?.gate).toEqual({
      g0: 'deleted',
      g1: 'deleted',
      g2: 'deleted',
      g3: 'waiting',
    });
  });

  it('lets a trigger key * flip every key of every gate template', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { '*': 'trigger' }, meta: { k: 'trigger' } });
    const one = await eon.create({ gate: { a: 'waiting', b: 'waiting' }, meta: { k: 'one' } });
    const two = await eon.create({ gate: { c: 'waiting' }, meta: { k: 'two' } });
    await complete(eon, { k: 'trigger' });
    expect(await childrenOf(eon, idOf(one))).toHaveLength(1);
    expect(await childrenOf(eon, idOf(two))).toHaveLength(1);
    expect((await stored(eon, idOf(one)))?.gate).toEqual({ a: 'waiting', b: 'waiting' });
  });

  it('lets trigger key patterns g* and *-1 flip the template keys they match', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { 'g*': 'trigger', '*-1': 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting', h0: 'waiting', 'k-1': 'waiting', 'k-10': 'waiting' },
      meta: { k: 'template' },
    });
    await complete(eon, { k: 'trigger' });
    expect((await stored(eon, idOf(template)))?.gate).toEqual({
      g0: 'deleted',
      g1: 'deleted',
      h0: 'waiting',
      'k-1': 'deleted',
      'k-10': 'waiting',
    });
  });

  it('fires several gate templates in one delete, oldest first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const older = await eon.create({ gate: { g: 'waiting' }, meta: { k: 'older' } });
    q.clock.set('2023-10-20T00:00:02Z');
    const newer = await eon.create({ gate: { g: 'waiting' }, meta: { k: 'newer' } });
    await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } });
    q.clock.set('2023-10-20T00:00:03Z');
    await complete(eon, { k: 'trigger' });
    const children = (await eon.lister(everything)).filter((task) => task.root !== undefined);
    expect(children.map((child) => child.root?.[Label.Object])).toEqual([idOf(older), idOf(newer)]);
    expect(children.map((child) => creationTime(idOf(child))?.toISOString())).toEqual([
      '2023-10-20T00:00:03.000Z',
      '2023-10-20T00:00:03.000Z',
    ]);
  });

  it('keeps a flipped key deleted when another trigger flips it again', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'first' } });
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'second' } });
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'template' },
    });
    await complete(eon, { k: 'first' });
    await complete(eon, { k: 'second' });
    expect((await stored(eon, idOf(template)))?.gate).toEqual({ g0: 'deleted', g1: 'waiting' });
    expect(await childrenOf(eon, idOf(template))).toEqual([]);
  });

  it("emits a child with copies of the template's meta, node and sync, its root, and no gate or cron, then waits again", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { g0: 'waiting' },
      meta: { k: 'template', x: 'y' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      sync: { s: '1' },
    });
    await complete(eon, { k: 'trigger' });
    const [child] = await childrenOf(eon, idOf(template));
    expect(child).toEqual({
      core: { [Label.Object]: idOf(child) },
      meta: { k: 'template', x: 'y' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      root: { [Label.Object]: idOf(template) },
      sync: { s: '1' },
    });
    expect(idOf(child) > idOf(template)).toBe(true);
    expect((await stored(eon, idOf(template)))?.gate).toEqual({ g0: 'waiting' });
    expect(idOf(await etw.search())).toBe(idOf(child));
  });

  it('emits a child without sync from a template without sync', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' }, sync: { s: '1' } });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await complete(eon, { k: 'trigger' });
    const [child] = await childrenOf(eon, idOf(template));
    expect(child).toEqual({
      core: { [Label.Object]: idOf(child) },
      meta: { k: 'template' },
      node: { [Label.Method]: 'any' },
      root: { [Label.Object]: idOf(template) },
    });
  });

  it('fires the template again once every key is flipped again', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'first' } });
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'second' } });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await complete(eon, { k: 'first' });
    await complete(eon, { k: 'second' });
    expect(await childrenOf(eon, idOf(template))).toHaveLength(2);
  });

  it('never fires a gate template {}', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ gate: { '*': 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({ gate: {}, meta: { k: 'template' } });
    await complete(eon, { k: 'trigger' });
    expect(await eon.lister(everything)).toEqual([template]);
  });

  it('does no gate accounting for a copy whose gate has no trigger value', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await complete(eon, { k: 'trigger' }, (copy) => {
      copy.gate = { g0: 'done' };
    });
    expect(await eon.lister(everything)).toEqual([template]);
  });

  it('does no gate accounting when a gate template is deleted with bypass', async () => {
    const eon = queue().engine('eon');
    const doomed = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'doomed' } });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await eon.delete({ ...doomed, core: { ...doomed.core, [Label.Bypass]: 'true' } });
    expect(await eon.lister(everything)).toEqual([template]);
  });

  it('performs gate accounting when a cron template whose gate holds trigger values is deleted with bypass', async () => {
    const eon = queue().engine('eon');
    const cron = await eon.create({
      cron: { [Label.Every]: 'hour' },
      gate: { g0: 'trigger' },
      meta: { k: 'cron' },
    });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await eon.delete({ ...cron, core: { ...cron.core, [Label.Bypass]: 'true' } });
    expect(await stored(eon, idOf(cron))).toBeUndefined();
    expect(await childrenOf(eon, idOf(template))).toHaveLength(1);
  });

  it('performs gate accounting when a trigger child of a cron template is deleted', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({
      cron: { [Label.Every]: 'hour' },
      gate: { g0: 'trigger' },
      meta: { k: 'cron' },
    });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const child = await eon.search();
    expect(child?.gate).toEqual({ g0: 'trigger' });
    await eon.delete(child!);
    expect(await childrenOf(eon, idOf(template))).toHaveLength(1);
  });

  it('flips nothing when the delete of a trigger task is rejected', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const trigger = await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(trigger)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.delete({
          ...trigger,
          core: { [Label.Object]: '1697760001000-000000000999', [Label.Bypass]: 'true' },
        }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  it("counts the copy's gate, not the stored one: a plain task whose copy carries a trigger value flips the template", async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'template' } });
    await eon.create({ meta: { k: 'plain' } });
    await complete(eon, { k: 'plain' }, (copy) => {
      copy.gate = { g0: 'trigger' };
    });
    expect(await childrenOf(eon, idOf(template))).toHaveLength(1);
    expect(await eon.exists({ meta: { k: 'plain' } })).toBe(false); // deleted, not requeued
  });

  it('re-arms after firing and fires again with the sync the second round of triggers carried over', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'template' },
      sync: { round: 'none', by: 'none' },
    });
    for (const round of ['1', '2']) {
      await eon.create({ gate: { g0: 'trigger' }, meta: { k: `a${round}` }, sync: { round } });
      await eon.create({ gate: { g1: 'trigger' }, meta: { k: `b${round}` }, sync: { by: 'b' } });
      await complete(eon, { k: `a${round}` });
      expect((await stored(eon, idOf(template)))?.gate).toEqual({ g0: 'deleted', g1: 'waiting' });
      await complete(eon, { k: `b${round}` });
      expect((await stored(eon, idOf(template)))?.gate).toEqual({ g0: 'waiting', g1: 'waiting' });
    }
    const children = await childrenOf(eon, idOf(template));
    expect(children.map((child) => child.sync)).toEqual([
      { round: '1', by: 'b' },
      { round: '2', by: 'b' },
    ]);
  });
});
