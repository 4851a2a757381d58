import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.2 phase 2 rule 7 (root obsolescence) and its notes, §1.7 (leaf and
// emitted child), §5.2 item 1.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, task: Task): Promise<boolean> {
  return engine.exists({ core: { [Label.Object]: idOf(task) } });
}

async function names(engine: Engine): Promise<(string | undefined)[]> {
  return (await engine.lister(everything)).map((task) => task.meta?.['name']);
}

function bypass(task: Task): Task {
  return { core: { [Label.Object]: idOf(task), [Label.Bypass]: 'true' } };
}

describe('search deletes obsolete leaves', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('follows the obsolescence example of docs/semantics.md §3.2', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:01Z');
    const leaf = await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:02Z');
    const copy = await etw.search();
    expect(idOf(copy)).toBe(idOf(leaf));
    q.clock.set('2023-10-20T00:00:03Z');
    const r = await eon.create({ meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:04Z');
    expect(idOf(await eon.search())).toBe(idOf(r));
    expect(await stored(eon, leaf)).toBe(false);
    await expect(etw.delete(copy!)).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("makes the owner's later extend throw TaskNotFoundError", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } });
    const copy = await etw.search();
    await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    await expect(etw.extend(copy!)).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('hands out a leaf that no other task matches, like any candidate', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { k: 'bar' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it('deletes a leaf even when the search returns undefined because the share is used up', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    expect(await eon.search()).toBeDefined();
    expect(await etw.search()).toBeDefined();
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    // after the deletion n = 3 (a, b, r): etw share 1, own 1
    expect(await etw.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('deletes a leaf even when there is no candidate left to claim', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('does not count a deleted leaf in n or in its owner’s own', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a' } });
    expect((await eon.search())?.meta).toEqual({ name: 'a' });
    await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    expect((await etw.search())?.meta).toEqual({ name: 'leaf' });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    // the leaf is gone: n = 2 (a, r), W = [eon, etw], etw share 1, own 0
    expect((await etw.search())?.meta).toEqual({ name: 'r', k: 'foo' });
  });

  it('drops no other candidate: the task after the leaf is still claimed in order', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    await eon.create({ meta: { name: 'p' } });
    expect((await eon.search())?.meta?.['name']).toBe('r');
    expect((await eon.search())?.meta?.['name']).toBe('p');
    expect(await names(eon)).toEqual(['r', 'p']);
  });

  it('never deletes a halted leaf, and deletes it at the next search once cycles resets it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const leaf = await eon.create({
      core: { [Label.Cancel]: '1' },
      meta: { name: 'leaf' },
      root: { k: 'foo' },
    });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.expire(); // cycles 1: halted
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    expect((await eon.search())?.meta?.['name']).toBe('r');
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(true);
    const [halted] = await eon.lister({ meta: { name: 'leaf' } });
    expect(halted?.core?.[Label.Cycles]).toBe('1');
    await eon.cycles(halted!);
    expect(await stored(eon, leaf)).toBe(true);
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('never deletes a broadcast leaf, and delivers it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const leaf = await eon.create({
      meta: { name: 'leaf' },
      node: { [Label.Method]: Method.All },
      root: { k: 'foo' },
    });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    expect(await eon.search()).toEqual(leaf);
    expect((await eon.search())?.meta?.['name']).toBe('r');
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(true);
  });

  it('deletes a unicast leaf for another worker', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({
      meta: { name: 'leaf' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      root: { k: 'foo' },
    });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    expect((await eon.search())?.meta?.['name']).toBe('r');
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is not made obsolete by its own meta', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { k: 'foo' }, root: { k: 'foo' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it('is made obsolete by another task with the same meta as its own', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { k: 'foo' }, root: { k: 'foo' } });
    const other = await eon.create({ meta: { k: 'foo' } });
    expect(idOf(await eon.search())).toBe(idOf(other));
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('treats an empty root as no leaf: never obsolete', async () => {
    const eon = queue().engine('eon');
    const task = await eon.create({ meta: { name: 'empty-root' }, root: {} });
    await eon.create({ meta: { name: 'other' } });
    expect(idOf(await eon.search())).toBe(idOf(task));
  });

  it.each<[string, Record<string, string>, Record<string, string>, Record<string, string>]>([
    ["{ '*': 'foo' } by any key with the value foo", { '*': 'foo' }, { any: 'foo' }, { foo: 'x' }],
    ["{ 'k*': '*' } by a key starting with k", { 'k*': '*' }, { kind: 'x' }, { xk: 'x' }],
    ["{ '*k': '*' } by a key ending with k", { '*k': '*' }, { 'job.k': 'x' }, { 'k.job': 'x' }],
    [
      "{ '*b-k*': 'v' } by a key containing b-k",
      { '*b-k*': 'v' },
      { 'job-kind': 'v' },
      { 'job-kind': 'w' },
    ],
    ["{ k: '*' } by any value of k", { k: '*' }, { k: '' }, { kk: 'x' }],
    ["{ 'k-1': 'v' } by exactly that key", { 'k-1': 'v' }, { 'k-1': 'v' }, { 'k-10': 'v' }],
  ])('matches a root pattern %s', async (_name, root, matching, other) => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root });
    await eon.create({ meta: { name: 'other', ...other } });
    expect(idOf(await eon.search())).toBe(idOf(leaf)); // not obsolete yet
    await eon.create({ meta: { name: 'matching', ...matching } });
    expect((await eon.search())?.meta?.['name']).toBe('other');
    expect(await stored(eon, leaf)).toBe(false);
  });

  it("makes a { '*': '*' } root obsolete as soon as any other task exists", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { '*': '*' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf)); // alone: a candidate
    q.clock.set('2023-10-20T00:00:01Z');
    const second = await eon.create({ meta: { name: 'lonely' }, root: { '*': '*' } });
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { name: 'template' } });
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(false);
    expect(await stored(eon, second)).toBe(false);
  });

  it('needs one other task holding every pair of a multi-pair root', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf', a: '1' }, root: { a: '1', b: '2' } });
    await eon.create({ meta: { name: 'has-a', a: '1' } });
    await eon.create({ meta: { name: 'has-b', b: '2' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
    await eon.create({ meta: { name: 'has-both', a: '1', b: '2', c: '3' } });
    expect((await eon.search())?.meta?.['name']).toBe('has-a');
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('does not combine its own meta with another task to cover a multi-pair root', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf', a: '1' }, root: { a: '1', b: '2' } });
    await eon.create({ meta: { name: 'has-b', b: '2' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it('deletes two leaves that make each other obsolete in one step', async () => {
    const eon = queue().engine('eon');
    const one = await eon.create({ meta: { k: 'one' }, root: { k: 'two' } });
    const two = await eon.create({ meta: { k: 'two' }, root: { k: 'one' } });
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, one)).toBe(false);
    expect(await stored(eon, two)).toBe(false);
  });

  it('deletes a chain of leaves in one step: judged against the queue as found', async () => {
    const eon = queue().engine('eon');
    // first is obsolete through second, which is itself obsolete through r
    const first = await eon.create({ meta: { name: 'first' }, root: { name: 'second' } });
    const second = await eon.create({ meta: { name: 'second' }, root: { name: 'r' } });
    await eon.create({ meta: { name: 'r' } });
    expect((await eon.search())?.meta?.['name']).toBe('r');
    expect(await stored(eon, first)).toBe(false);
    expect(await stored(eon, second)).toBe(false);
  });

  it('is made obsolete by another leaf that is itself not obsolete', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'one', k: 'a' }, root: { k: 'zzz' } });
    const two = await eon.create({ meta: { name: 'two' }, root: { k: 'a' } });
    expect((await eon.search())?.meta?.['name']).toBe('one');
    expect(await stored(eon, two)).toBe(false);
  });

  it('is not deleted when its matching task is deleted before any search', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    const r = await eon.create({ meta: { name: 'r', k: 'foo' } });
    await eon.delete(bypass(r));
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it('is still deleted when one of two matching tasks was deleted before the search', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo', j: 'bar' } });
    const r1 = await eon.create({ meta: { name: 'r1', k: 'foo', j: 'bar' } });
    await eon.create({ meta: { name: 'r2', k: 'foo', j: 'bar' } });
    await eon.delete(bypass(r1));
    expect((await eon.search())?.meta?.['name']).toBe('r2');
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('reads a * inside a root key literally', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { 'a*b': 'v' } });
    await eon.create({ meta: { name: 'axb', axb: 'v' } });
    expect(idOf(await eon.search())).toBe(idOf(leaf));
    await eon.create({ meta: { name: 'literal', 'a*b': 'v' } });
    expect((await eon.search())?.meta?.['name']).toBe('axb');
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is not deleted when its matching task was removed by retention', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    q.clock.set('2023-10-24T00:00:00Z');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    q.clock.set('2023-10-27T00:00:01Z');
    await eon.expire(); // r is older than 7 days, the leaf is not
    expect(await names(eon)).toEqual(['leaf']);
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it.each<[string, Task]>([
    ['a cron template', { cron: { [Label.Every]: 'hour' } }],
    ['an @exact task not yet due', { cron: { [Label.Exact]: '2023-10-21T00:00:00Z' } }],
    ['a gate template', { gate: { g0: 'waiting' } }],
    ['a trigger task', { gate: { g0: 'trigger' } }],
    ['a broadcast task', { node: { [Label.Method]: Method.All } }],
    [
      'a unicast task for another worker',
      { node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' } },
    ],
    ['a task with a sync map', { sync: { k: 'foo' } }],
  ])('is made obsolete by %s', async (_name, kind) => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ ...kind, meta: { name: 'matching', k: 'foo' } });
    await eon.search({ meta: { name: 'nothing' } });
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is not made obsolete by a matching sync, gate or root: only meta counts', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { name: 'other' }, sync: { k: 'foo' }, gate: { k: 'trigger' } });
    await eon.create({ meta: { name: 'rooted' }, root: { k: 'foo' } }); // another leaf, same root
    expect(idOf(await eon.search())).toBe(idOf(leaf));
  });

  it('is made obsolete by an owned task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    expect((await q.engine('etw').search())?.meta?.['name']).toBe('r');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is made obsolete by a halted task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ core: { [Label.Cancel]: '1' }, meta: { name: 'r', k: 'foo' } });
    await eon.search();
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.expire(); // r halted
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    expect(await eon.search()).toBeUndefined();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is made obsolete by a matching task created after it, at the next search', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    expect(await stored(eon, leaf)).toBe(true); // create deletes nothing
    await eon.search();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is made obsolete by a matching task created before it', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.search();
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is made obsolete by a meta that arrives through a paging requeue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'r', k: 'bar' }, sync: { [Label.Paging]: '0' } });
    const copy = await eon.search();
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.delete({ ...copy, meta: { name: 'r', k: 'foo' }, sync: { [Label.Paging]: '1' } });
    expect(await stored(eon, leaf)).toBe(true);
    expect((await eon.search())?.meta).toEqual({ name: 'r', k: 'foo' });
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is no longer obsolete once a paging requeue takes the matching meta away', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'r', k: 'foo' }, sync: { [Label.Paging]: '0' } });
    const copy = await eon.search();
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.delete({ ...copy, meta: { name: 'r', k: 'bar' }, sync: { [Label.Paging]: '1' } });
    expect(idOf(await eon.search({ meta: { name: 'leaf' } }))).toBe(idOf(leaf));
  });

  it('is made obsolete by a child that ticker emitted', async () => {
    const q = queue();
    const eon = q.engine('eon');
    // the leaf is halted while the template exists, so only the child can
    // make it obsolete once the template is gone and cycles resumes it
    const leaf = await eon.create({
      core: { [Label.Cancel]: '1' },
      meta: { name: 'leaf' },
      root: { k: 'foo' },
    });
    await eon.search();
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.expire();
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    await eon.delete(bypass(template));
    const [child] = await eon.lister({ root: { '*': '*' }, meta: { k: 'foo' } });
    expect(child?.root).toEqual({ [Label.Object]: idOf(template) });
    const [halted] = await eon.lister({ meta: { name: 'leaf' } });
    await eon.cycles(halted!);
    expect(idOf(await eon.search())).toBe(idOf(child));
    expect(await stored(eon, leaf)).toBe(false);
  });

  it('is made obsolete by a child that a gate template emitted', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { name: 'gate' } });
    await eon.create({ gate: { g0: 'trigger' }, meta: { name: 'trigger' } });
    const trigger = await eon.search();
    // the template's own meta would make the leaf obsolete too: it is deleted
    // before the next search, so only the emitted child can
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { name: 'gate' } });
    await eon.delete(trigger!); // the template fires and emits the child
    await eon.delete(bypass(template));
    expect((await eon.search())?.root).toEqual({ [Label.Object]: idOf(template) });
    expect(await stored(eon, leaf)).toBe(false);
  });

  // The same witness changes for roots with patterns, which the engine checks
  // by reading the queue rather than through counted meta pairs.
  describe.each<[string, Record<string, string>]>([
    ["{ 'k*': 'v' }", { 'k*': 'v' }],
    ["{ '*': 'v' }", { '*': 'v' }],
    ["{ '*1': '*' }", { '*1': '*' }],
  ])('with the pattern root %s', (_name, root) => {
    it('is still deleted when one of two witnesses was deleted before the search', async () => {
      const eon = queue().engine('eon');
      const leaf = await eon.create({ meta: { name: 'leaf' }, root });
      const first = await eon.create({ meta: { k1: 'v' } });
      await eon.create({ meta: { k1: 'v', name: 'second' } });
      await eon.delete(bypass(first));
      expect(await stored(eon, leaf)).toBe(true);
      await eon.search({ meta: { name: 'nothing' } });
      expect(await stored(eon, leaf)).toBe(false);
    });

    it('is not deleted once a paging requeue took the meta of its only witness away', async () => {
      const eon = queue().engine('eon');
      await eon.create({ meta: { k1: 'v' } });
      const copy = await eon.search();
      const leaf = await eon.create({ meta: { name: 'leaf' }, root });
      await eon.delete({ ...copy, meta: { other: 'x' }, sync: { [Label.Paging]: '1' } });
      expect(idOf(await eon.search({ meta: { name: 'leaf' } }))).toBe(idOf(leaf));
    });

    it('is not deleted when retention removed its only witness', async () => {
      const q = queue();
      const eon = q.engine('eon');
      await eon.create({ meta: { k1: 'v' } });
      q.clock.set('2023-10-24T00:00:00Z');
      const leaf = await eon.create({ meta: { name: 'leaf' }, root });
      q.clock.set('2023-10-27T00:00:01Z');
      await eon.expire();
      expect(await names(eon)).toEqual(['leaf']);
      expect(idOf(await eon.search())).toBe(idOf(leaf));
    });

    it('is not deleted when its only witness was a template deleted with bypass', async () => {
      const eon = queue().engine('eon');
      const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k1: 'v' } });
      const leaf = await eon.create({ meta: { name: 'leaf' }, root });
      await eon.delete(bypass(template));
      expect(idOf(await eon.search())).toBe(idOf(leaf));
    });
  });
});
