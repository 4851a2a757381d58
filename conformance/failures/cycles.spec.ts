import type { Engine } from '../../lib/engine/engine.js';
import { TaskCoreError, TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Labels, Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// The circuit breaker: cycles(x) and halted(x) of docs/semantics.md §1.4, cycles() of
// §3.8, and §5.2 items 1 and 5 (revocations and requeues count, nothing else).

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

function withCore(task: Task, changes: Record<string, string | undefined>): Task {
  const core: Labels = { ...task.core };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) Reflect.deleteProperty(core, key);
    else core[key] = value;
  }
  return { ...task, core };
}

describe('cycles and the circuit breaker', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  /** revokeOnce lets eon claim a task and lets its lease end and be revoked by expire. */
  async function revokeOnce(eon: Engine): Promise<Task> {
    const copy = await eon.search();
    if (copy === undefined) throw new Error('nothing to claim');
    queue().clock.advance(30_000);
    await eon.expire();
    return copy;
  }

  /** halted creates a task with cancel '2' and revokes it twice. */
  async function halted(
    eon: Engine,
    task: Task = { core: { [Label.Cancel]: '2' }, meta: { k: 'foo' } },
  ): Promise<Task> {
    const created = await eon.create(task);
    await revokeOnce(eon);
    await revokeOnce(eon);
    return created;
  }

  it('halts a task with cancel 2 once two expire revocations count 2 cycles', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ core: { [Label.Cancel]: '2' }, meta: { k: 'foo' } });
    await revokeOnce(eon);
    expect((await stored(eon, idOf(created)))?.core?.[Label.Cycles]).toBe('1');
    const second = await eon.search();
    expect(second?.core?.[Label.Cycles]).toBe('1');
    q.clock.advance(30_000);
    await eon.expire();
    expect((await stored(eon, idOf(created)))?.core).toEqual({
      [Label.Object]: idOf(created),
      [Label.Cancel]: '2',
      [Label.Cycles]: '2',
    });
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toBeUndefined();
  });

  it('offers a task whose owner disappeared to another worker once expire revoked its ended lease', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    q.clock.set('2023-10-20T00:00:30.999Z');
    await etw.expire();
    expect(await etw.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:31Z');
    await etw.expire();
    const claimed = await etw.search();
    expect(idOf(claimed)).toBe(idOf(created));
    expect(claimed?.core?.[Label.Cycles]).toBe('1');
  });

  it('keeps a halted task without cron map until retention removes it, cleanup after it halted (haltedRetention)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await halted(eon);
    const haltedAt = q.clock().getTime(); // the second revocation halted it
    const week = 7 * 24 * 60 * 60 * 1000;
    q.clock.set(new Date(haltedAt + week).toISOString()); // past cleanup from its creation
    await eon.expire();
    expect((await stored(eon, idOf(created)))?.core?.[Label.Cycles]).toBe('2');
    expect(await eon.search()).toBeUndefined();
    q.clock.set(new Date(haltedAt + week + 1).toISOString());
    await eon.expire();
    expect(await eon.exists(everything)).toBe(false);
  });

  it('keeps a halted task with a cron map beyond retention', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      core: { [Label.Cancel]: '1' },
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-20T00:00:10Z');
    await revokeOnce(eon);
    q.clock.set('2023-11-20T00:00:00Z');
    await eon.expire();
    expect((await stored(eon, idOf(created)))?.core?.[Label.Cycles]).toBe('1');
    expect(await eon.search()).toBeUndefined();
  });

  it('follows the cycles example of docs/semantics.md §3.8: a halted task reset from a lister copy is searchable without cycles', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await halted(eon);
    const [copy] = await eon.lister({ meta: { k: 'foo' } });
    expect(copy?.core?.[Label.Cycles]).toBe('2');
    expect(await eon.search()).toBeUndefined();
    await eon.cycles(copy!);
    const found = await eon.search();
    expect(idOf(found)).toBe(idOf(created));
    expect(found?.core).toEqual({
      [Label.Object]: idOf(created),
      [Label.Cancel]: '2',
      [Label.Worker]: 'eon',
      [Label.Expiry]: '2023-10-20T00:01:31Z',
      [Label.Token]: '3',
    });
  });

  it('halts a resumed task again after another cancel-many cycles', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await halted(eon);
    await eon.cycles(created);
    await revokeOnce(eon);
    expect(await eon.search()).toBeDefined();
    q.clock.advance(30_000);
    await eon.expire();
    expect(await eon.search()).toBeUndefined();
    expect((await stored(eon, idOf(created)))?.core?.[Label.Cycles]).toBe('2');
  });

  it('revokes a live lease, so that the owner gets TaskOutdatedError from delete and extend', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({
      core: { [Label.Cancel]: '3' },
      meta: { k: 'foo' },
      sync: { s: '1' },
    });
    const copy = await eon.search();
    await eon.cycles(copy!);
    expect(await stored(eon, idOf(created))).toEqual({
      core: { [Label.Object]: idOf(created), [Label.Cancel]: '3' },
      meta: { k: 'foo' },
      node: { [Label.Method]: 'any' },
      sync: { s: '1' },
    });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
      await expect(eon.extend(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    expect(idOf(await etw.search())).toBe(idOf(created));
  });

  it('removes worker, expiry and cycles and changes nothing else', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({
      core: { [Label.Cancel]: '5' },
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'foo' },
      sync: { s: '1' },
    });
    q.clock.set('2023-10-20T00:00:10Z');
    await revokeOnce(eon);
    const copy = await eon.search();
    const before = await stored(eon, idOf(copy));
    expect(before?.core?.[Label.Cycles]).toBe('1');
    await eon.cycles({ ...copy, meta: { k: 'ignored' }, sync: { s: 'ignored' } });
    expect(await stored(eon, idOf(copy))).toEqual({
      ...before,
      core: { [Label.Object]: idOf(copy), [Label.Cancel]: '5' },
    });
  });

  it("resets another worker's task: there is no ownership check", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ core: { [Label.Cancel]: '3' }, meta: { k: 'foo' } });
    const copy = await eon.search();
    await etw.cycles(withCore(copy!, { [Label.Worker]: 'etw' }));
    expect((await stored(eon, idOf(created)))?.core).toEqual({
      [Label.Object]: idOf(created),
      [Label.Cancel]: '3',
    });
    await eon.search();
    await etw.cycles(withCore(created, {}));
    expect((await stored(eon, idOf(created)))?.core).toEqual({
      [Label.Object]: idOf(created),
      [Label.Cancel]: '3',
    });
  });

  it('rejects an unknown id with TaskNotFoundError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await halted(eon);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.cycles({ core: { [Label.Object]: '1697760001000-000000000999', [Label.Cancel]: '2' } }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  it('rejects a copy without cancel with TaskCoreError even when the stored task has one, and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await halted(eon);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.cycles(withCore(created, { [Label.Cancel]: undefined })),
      ).rejects.toBeInstanceOf(TaskCoreError);
    });
    // Y4 comes before Y5
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.cycles({ core: { [Label.Object]: '1697760001000-000000000999' } }),
      ).rejects.toBeInstanceOf(TaskCoreError);
    });
  });

  it("checks neither the copy's cancel value nor the stored cancel", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    await revokeOnce(eon);
    expect((await stored(eon, idOf(created)))?.core?.[Label.Cycles]).toBe('1');
    await eon.cycles(withCore(created, { [Label.Cancel]: 'not a number' }));
    expect((await stored(eon, idOf(created)))?.core).toEqual({ [Label.Object]: idOf(created) });
    await revokeOnce(eon);
    await eon.cycles(withCore(created, { [Label.Cancel]: '' }));
    expect((await stored(eon, idOf(created)))?.core).toEqual({ [Label.Object]: idOf(created) });
  });

  it('keeps a not-yet-due @exact task waiting after cycles', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      core: { [Label.Cancel]: '1' },
      cron: { [Label.Exact]: '2023-10-20T00:01:00Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.cycles(created);
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:01:00Z');
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it('lets a halted deferred task reset by cycles wait for its tick+1', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.cron = { [Label.Defer]: 'hour' };
    await eon.delete(copy!);
    const deferred = await stored(eon, idOf(created));
    expect(deferred?.core?.[Label.Cycles]).toBe('1');
    q.clock.set('2023-10-20T01:00:01Z');
    expect(await eon.search()).toBeUndefined(); // halted
    q.clock.set('2023-10-20T00:30:00Z');
    await eon.cycles(deferred!);
    expect((await stored(eon, idOf(created)))?.cron).toEqual(deferred?.cron);
    expect(await eon.search()).toBeUndefined(); // reset, but not due
    q.clock.set('2023-10-20T01:00:01Z');
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it('counts revocations and requeues, and neither claims, extends nor rejected calls', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ meta: { k: 'foo' } });
    const cyclesNow = async () => (await stored(eon, idOf(created)))?.core?.[Label.Cycles];
    const copy = await eon.search();
    await eon.extend(copy!);
    await expect(etw.delete(withCore(copy!, { [Label.Worker]: 'etw' }))).rejects.toBeInstanceOf(
      TaskOutdatedError,
    );
    await expect(etw.extend(withCore(copy!, { [Label.Worker]: 'etw' }))).rejects.toBeInstanceOf(
      TaskOutdatedError,
    );
    await eon.expire();
    expect(await cyclesNow()).toBeUndefined();
    q.clock.advance(30_000);
    await eon.expire();
    await eon.expire();
    expect(await cyclesNow()).toBe('1');
    await expect(eon.delete(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    expect(await cyclesNow()).toBe('1');
    const again = await eon.search();
    again!.sync = { [Label.Paging]: '1' };
    await eon.delete(again!);
    expect(await cyclesNow()).toBe('2');
  });
});
