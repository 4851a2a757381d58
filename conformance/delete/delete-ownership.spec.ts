import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Labels, Task } from '../../lib/task/task.js';
import { releaseTask } from '../../lib/engine/runtime.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// delete, steps 1 to 3 of docs/semantics.md §3.3: who may complete a task, and what a
// rejected delete leaves behind (nothing; 3.0, 5.2 items 3 and 5).

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

/** childrenOf lists the children of a template (lister may not query a reserved root key, L5). */
async function childrenOf(engine: Engine, id: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter((task) => task.root?.[Label.Object] === id);
}

/** withCore returns a copy of task whose core is changed by the given labels (undefined removes a key). */
function withCore(task: Task, changes: Record<string, string | undefined>): Task {
  const core: Labels = { ...task.core };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) Reflect.deleteProperty(core, key);
    else core[key] = value;
  }
  return { ...task, core };
}

describe('delete: ownership', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('deletes a task when its owner completes it', async () => {
    const eon = queue().engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    expect(copy?.core?.[Label.Worker]).toBe('eon');
    await eon.delete(copy!);
    expect(await stored(eon, idOf(created))).toBeUndefined();
    expect(await eon.exists(everything)).toBe(false);
  });

  it('rejects an unowned task with TaskOutdatedError, writes nothing and adds no cycle', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(created)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    // a copy that names a worker does not make an unowned task its own
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(withCore(created, { [Label.Worker]: 'eon' }))).rejects.toBeInstanceOf(
        TaskOutdatedError,
      );
    });
    expect((await stored(eon, idOf(created)))?.core).toEqual({ [Label.Object]: idOf(created) });
  });

  it("rejects another worker's copy with TaskOutdatedError and writes nothing", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(etw.delete(withCore(copy!, { [Label.Worker]: 'etw' }))).rejects.toBeInstanceOf(
        TaskOutdatedError,
      );
    });
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Worker]).toBe('eon');
  });

  it('rejects the old copy of a worker whose task was revoked and claimed by another worker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'foo' } });
    const old = await eon.search();
    q.clock.advance(30_000);
    await eon.expire();
    const fresh = await etw.search();
    expect(fresh?.core?.[Label.Worker]).toBe('etw');
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(old!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    expect((await stored(eon, idOf(old)))?.core?.[Label.Cycles]).toBe('1');
    await etw.delete(fresh!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('rejects a copy without a worker label with TaskOutdatedError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    for (const worker of [undefined, '']) {
      await expectUnchanged(q.redis, q.prefix, async () => {
        await expect(
          eon.delete(withCore(copy!, { [Label.Worker]: worker })),
        ).rejects.toBeInstanceOf(TaskOutdatedError);
      });
    }
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Worker]).toBe('eon');
  });

  it('rejects the copy of a revoked lease with TaskOutdatedError, writes nothing and leaves cycles at 1', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();
    const revoked = await stored(eon, idOf(copy));
    expect(revoked?.core).toEqual({ [Label.Object]: idOf(copy), [Label.Cycles]: '1' });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Cycles]).toBe('1');
  });

  it('rejects an unknown id with TaskNotFoundError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.delete({
          core: { [Label.Object]: '1697760001000-000000000999', [Label.Worker]: 'eon' },
          meta: { k: 'foo' },
        }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
    });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.delete({
          core: { [Label.Object]: '1697760001000-000000000999', [Label.Bypass]: 'true' },
        }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  it('rejects a second delete of the same copy with TaskNotFoundError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    await eon.create({ meta: { k: 'bar' } });
    const copy = await eon.search();
    await eon.delete(copy!);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy!)).rejects.toBeInstanceOf(TaskNotFoundError);
    });
    expect((await eon.lister(everything)).map((task) => task.meta)).toEqual([{ k: 'bar' }]);
  });

  it('lets one of two concurrent deletes of the same copy succeed and rejects the other with TaskNotFoundError', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    const results = await Promise.allSettled([eon.delete(copy!), etw.delete(copy!)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const [rejected] = results.filter((result) => result.status === 'rejected');
    expect(rejected?.reason).toBeInstanceOf(TaskNotFoundError);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('rejects the second of two concurrent paging deletes with TaskOutdatedError, counting one cycle', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.sync = { [Label.Paging]: '1' };
    const results = await Promise.allSettled([eon.delete(copy!), etw.delete(copy!)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const [rejected] = results.filter((result) => result.status === 'rejected');
    expect(rejected?.reason).toBeInstanceOf(TaskOutdatedError);
    expect((await stored(eon, idOf(created)))?.core?.[Label.Cycles]).toBe('1');
  });

  it('lets the owner delete after its lease ended as long as expire has not revoked it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    expect(copy?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:31Z');
    q.clock.set('2023-10-20T00:05:00Z');
    await eon.delete(copy!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it("lets any engine holding a copy with the owner's worker label delete the task", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    const [listed] = await etw.lister({ meta: { k: 'foo' } });
    expect(listed?.core?.[Label.Worker]).toBe('eon');
    await etw.delete(listed!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('refuses an old copy of the same worker after it claimed the task again: the fencing token differs', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const old = await eon.search();
    q.clock.advance(30_000);
    await eon.expire();
    const again = await eon.search();
    expect(again?.core?.[Label.Worker]).toBe('eon');
    expect(Number(again?.core?.[Label.Token])).toBeGreaterThan(Number(old?.core?.[Label.Token]));
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(old!)).rejects.toBeInstanceOf(TaskOutdatedError);
      await expect(eon.extend(old!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    await eon.delete(again!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('refuses a copy without the fencing token, even with the owner label', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const claimed = await eon.search();
    const core = Object.fromEntries(
      Object.entries(claimed!.core!).filter(([key]) => key !== Label.Token),
    );
    await expect(eon.delete({ ...claimed, core })).rejects.toBeInstanceOf(TaskOutdatedError);
    await expect(eon.extend({ ...claimed, core })).rejects.toBeInstanceOf(TaskOutdatedError);
  });

  it("deletes an unowned task, and another worker's task, with bypass 'true'", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const free = await eon.create({ meta: { k: 'free' } });
    await eon.create({ meta: { k: 'owned' } });
    await eon.search({ meta: { k: 'owned' } });
    await etw.delete(withCore(free, { [Label.Bypass]: 'true' }));
    const [owned] = await etw.lister({ meta: { k: 'owned' } });
    await etw.delete(withCore(owned!, { [Label.Worker]: undefined, [Label.Bypass]: 'true' }));
    expect(await eon.exists(everything)).toBe(false);
  });

  it("deletes cron and gate templates with bypass 'true'", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const cron = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'cron' } });
    const gate = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'gate' } });
    await expect(eon.delete(cron)).rejects.toBeInstanceOf(TaskOutdatedError);
    await expect(eon.delete(gate)).rejects.toBeInstanceOf(TaskOutdatedError);
    await eon.delete(withCore(cron, { [Label.Bypass]: 'true' }));
    await eon.delete(withCore(gate, { [Label.Bypass]: 'true' }));
    expect(await eon.exists(everything)).toBe(false);
  });

  it("treats bypass 'false' like no bypass", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const free = await eon.create({ meta: { k: 'free' } });
    await eon.create({ meta: { k: 'owned' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(withCore(free, { [Label.Bypass]: 'false' }))).rejects.toBeInstanceOf(
        TaskOutdatedError,
      );
    });
    const copy = await eon.search({ meta: { k: 'owned' } });
    await eon.delete(withCore(copy!, { [Label.Bypass]: 'false' }));
    expect((await eon.lister(everything)).map((task) => task.meta)).toEqual([{ k: 'free' }]);
  });

  it("sends a broadcast copy with bypass 'false' to Redis, where it is outdated, instead of completing it locally", async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.create({ meta: { k: 'foo' }, node: { [Label.Method]: Method.All } });
    const copy = await eon.search();
    expect(copy?.core?.[Label.Worker]).toBeUndefined();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(withCore(copy!, { [Label.Bypass]: 'false' }))).rejects.toBeInstanceOf(
        TaskOutdatedError,
      );
    });
    // the rejected delete left the ledger as it was: the broadcast task comes back after the local lease
    q.clock.set('2023-10-20T00:00:32Z');
    expect(idOf(await eon.search())).toBe(idOf(copy));
    // while a plain delete completes it locally: nothing written, never delivered to eon again
    await expectUnchanged(q.redis, q.prefix, () => eon.delete(copy!));
    q.clock.set('2023-10-20T00:01:10Z');
    expect(await eon.search()).toBeUndefined();
    expect(await eon.exists(everything)).toBe(true);
  });

  it('completes a received broadcast copy locally, writing nothing, also when deleted twice', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:02Z');
    const created = await eon.create({ meta: { k: 'foo' }, node: { [Label.Method]: Method.All } });
    const copy = await eon.search();
    expect(idOf(copy)).toBe(idOf(created));
    await expectUnchanged(q.redis, q.prefix, async () => {
      await eon.delete(copy!);
      await eon.delete(copy!);
    });
    // completed for eon only: etw still receives it
    expect(idOf(await etw.search())).toBe(idOf(created));
  });

  it('sends a broadcast copy to Redis from an engine that never received it, where it is outdated', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.create({ meta: { k: 'foo' }, node: { [Label.Method]: Method.All } });
    const copy = await eon.search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(etw.delete(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });

  it('sends a received broadcast copy with a gate map to Redis, where it is outdated', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.create({
      gate: { g0: 'trigger' },
      meta: { k: 'foo' },
      node: { [Label.Method]: Method.All },
    });
    const copy = await eon.search();
    expect(copy?.gate).toEqual({ g0: 'trigger' });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });

  it("deletes a received broadcast task from the queue for every engine with bypass 'true'", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.create({ meta: { k: 'foo' }, node: { [Label.Method]: Method.All } });
    const copy = await eon.search();
    await eon.delete(withCore(copy!, { [Label.Bypass]: 'true' }));
    expect(await eon.exists(everything)).toBe(false);
    expect(await etw.search()).toBeUndefined();
  });

  it('does not delete the children of a cron template deleted with bypass', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const [child] = await childrenOf(eon, idOf(template));
    expect(child).toBeDefined();
    await eon.delete(withCore(template, { [Label.Bypass]: 'true' }));
    expect(await eon.lister(everything)).toEqual([child]);
  });

  it('does not delete the children of a gate template deleted with bypass', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'gate' } });
    await eon.delete((await eon.search())!);
    const [child] = await childrenOf(eon, idOf(template));
    expect(child?.meta).toEqual({ k: 'gate' });
    const current = await stored(eon, idOf(template));
    expect(current?.gate).toEqual({ g0: 'waiting' });
    await eon.delete(withCore(current!, { [Label.Bypass]: 'true' }));
    expect(await eon.lister(everything)).toEqual([child]);
  });

  it("does not modify the caller's copy when it deletes", async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' }, sync: { s: '1' } });
    const copy = await eon.search();
    const before = structuredClone(copy);
    await eon.delete(copy!);
    expect(copy).toEqual(before);

    const free = await eon.create({ meta: { k: 'bar' } });
    const bypassing = withCore(free, { [Label.Bypass]: 'true' });
    const beforeBypass = structuredClone(bypassing);
    await eon.delete(bypassing);
    expect(bypassing).toEqual(beforeBypass);
  });

  it("does not modify the caller's copy when it requeues", async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const paging = await eon.search();
    paging!.sync = { [Label.Paging]: '1' };
    const beforePaging = structuredClone(paging);
    await eon.delete(paging!);
    expect(paging).toEqual(beforePaging);
    expect((await stored(eon, idOf(paging)))?.core?.[Label.Cycles]).toBe('1');

    const deferring = await eon.search();
    deferring!.sync = { [Label.Paging]: '0' };
    deferring!.cron = { [Label.Defer]: 'hour' };
    const beforeDeferring = structuredClone(deferring);
    await eon.delete(deferring!);
    expect(deferring).toEqual(beforeDeferring);
    expect((await stored(eon, idOf(deferring)))?.cron?.[Label.TickP1]).toBe('2023-10-20T01:00:01Z');
  });
});

describe("release: the worker runtime's give-back (fencing)", () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('releases only the claim the copy carries, not a later claim of the task by the same worker id', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'a' } });
    const first = await eon.search();
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire(); // the first claim's lease ended
    const second = await eon.search(); // the same worker id claims again: a new token
    expect(second?.core?.[Label.Token]).not.toBe(first?.core?.[Label.Token]);

    expect(await releaseTask(eon, first!)).toBe(false);
    const [stored] = await eon.lister({ meta: { '*': '*' } });
    expect(stored?.core?.[Label.Token]).toBe(second?.core?.[Label.Token]);
    expect(await releaseTask(eon, second!)).toBe(true);
    expect((await eon.lister({ meta: { '*': '*' } }))[0]?.core?.[Label.Worker]).toBeUndefined();
  });
});
