import type { Engine } from '../../lib/engine/engine.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// delete, step 6 of docs/semantics.md §3.3: an emitted child hands its (non-empty)
// sync to its template, replacing the template's sync; the next child
// copies it.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

async function childrenOf(engine: Engine, id: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter((task) => task.root?.[Label.Object] === id);
}

describe('delete: sync propagation', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  /** cronChild creates an hourly template with the given sync, ticks at 01:00:01 and claims the child. */
  async function cronChild(
    eon: Engine,
    sync?: Record<string, string>,
  ): Promise<{ template: Task; child: Task }> {
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'foo' },
      ...(sync === undefined ? {} : { sync }),
    });
    queue().clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const child = await eon.search();
    if (child === undefined) throw new Error('no child emitted');
    expect(child.root).toEqual({ [Label.Object]: idOf(template) });
    return { template, child };
  }

  /** gateChild creates a trigger and a gate template with the given sync, fires it and claims the child. */
  async function gateChild(
    eon: Engine,
    sync?: Record<string, string>,
  ): Promise<{ template: Task; child: Task }> {
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({
      gate: { g0: 'waiting' },
      meta: { k: 'foo' },
      ...(sync === undefined ? {} : { sync }),
    });
    await eon.delete((await eon.search({ meta: { k: 'trigger' } }))!);
    const child = await eon.search();
    if (child === undefined) throw new Error('no child emitted');
    expect(child.root).toEqual({ [Label.Object]: idOf(template) });
    return { template, child };
  }

  it("replaces a cron template's sync with its child's non-empty sync", async () => {
    const eon = queue().engine('eon');
    const { template, child } = await cronChild(eon, { a: '1', b: '2' });
    expect(child.sync).toEqual({ a: '1', b: '2' });
    child.sync = { lat: 'updated' };
    await eon.delete(child);
    expect((await stored(eon, idOf(template)))?.sync).toEqual({ lat: 'updated' });
    expect(await stored(eon, idOf(child))).toBeUndefined();
  });

  it('gives a cron template without sync the sync of its child', async () => {
    const eon = queue().engine('eon');
    const { template, child } = await cronChild(eon);
    expect(child.sync).toBeUndefined();
    child.sync = { lat: 'updated' };
    await eon.delete(child);
    expect((await stored(eon, idOf(template)))?.sync).toEqual({ lat: 'updated' });
  });

  it("replaces a gate template's sync with its child's non-empty sync", async () => {
    const eon = queue().engine('eon');
    const { template, child } = await gateChild(eon, { a: '1', b: '2' });
    child.sync = { lat: 'updated' };
    await eon.delete(child);
    const now = await stored(eon, idOf(template));
    expect(now?.sync).toEqual({ lat: 'updated' });
    expect(now?.gate).toEqual({ g0: 'waiting' });
  });

  it("leaves the template's sync alone when the child's sync is empty", async () => {
    const eon = queue().engine('eon');
    const { template, child } = await cronChild(eon, { a: '1' });
    child.sync = {};
    await eon.delete(child);
    expect((await stored(eon, idOf(template)))?.sync).toEqual({ a: '1' });
  });

  it("leaves the template's sync alone when the child's copy has no sync", async () => {
    const eon = queue().engine('eon');
    const { template, child } = await gateChild(eon, { a: '1' });
    delete child.sync;
    await eon.delete(child);
    expect((await stored(eon, idOf(template)))?.sync).toEqual({ a: '1' });
  });

  it('lets the next child of a cron template copy the handed-over sync', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const { template, child } = await cronChild(eon, { a: '1' });
    child.sync = { lat: 'updated' };
    await eon.delete(child);
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    const [next] = await childrenOf(eon, idOf(template));
    expect(next?.sync).toEqual({ lat: 'updated' });
    expect(idOf(next)).not.toBe(idOf(child));
  });

  it('lets the next child of a gate template copy the handed-over sync', async () => {
    const eon = queue().engine('eon');
    const { template, child } = await gateChild(eon, { a: '1' });
    child.sync = { lat: 'updated' };
    await eon.delete(child);
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    await eon.delete((await eon.search({ meta: { k: 'trigger' } }))!);
    const [next] = await childrenOf(eon, idOf(template));
    expect(next?.sync).toEqual({ lat: 'updated' });
  });

  it('deletes a child whose template is gone without recreating the template', async () => {
    const eon = queue().engine('eon');
    const { template, child } = await cronChild(eon, { a: '1' });
    await eon.delete({ ...template, core: { ...template.core, [Label.Bypass]: 'true' } });
    child.sync = { lat: 'updated' };
    await eon.delete(child);
    expect(await eon.exists(everything)).toBe(false);
  });

  it("hands the copy's sync to whatever stored task its root names, and deletes the task instead of requeueing it", async () => {
    const eon = queue().engine('eon');
    const target = await eon.create({ meta: { k: 'target' }, sync: { a: '1' } });
    await eon.create({ meta: { k: 'worked' } });
    const copy = await eon.search({ meta: { k: 'worked' } });
    await eon.delete({
      ...copy,
      root: { [Label.Object]: idOf(target), other: 'label' },
      sync: { b: '2', [Label.Paging]: '1' },
    });
    // the root makes step 4 delete rather than requeue, and step 6 replaces the target's sync
    expect(await eon.lister(everything)).toEqual([
      { ...target, sync: { b: '2', [Label.Paging]: '1' } },
    ]);
  });
});
