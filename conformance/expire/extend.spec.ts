import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Labels, Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// extend, docs/semantics.md §3.7 and §5.2 items 3 and 4: a fresh lease from now for the
// owner, nothing for anybody else.

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

describe('extend', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  /** claimedAt creates { meta: { k: 'foo' } } and lets eon claim it at the given instant. */
  async function claimedAt(
    eon: Engine,
    iso: string,
    task: Task = { meta: { k: 'foo' } },
  ): Promise<Task> {
    await eon.create(task);
    queue().clock.set(iso);
    const copy = await eon.search();
    if (copy === undefined) throw new Error('nothing to claim');
    return copy;
  }

  it('follows the extend example of docs/semantics.md §3.7: claimed at :02, extended at :10, expiry :40', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    expect(copy.core?.[Label.Expiry]).toBe('2023-10-20T00:00:32Z');
    q.clock.set('2023-10-20T00:00:10Z');
    await eon.extend(copy);
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:40Z');
  });

  it('gives a fresh lease from now after the lease ended but was not revoked', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    q.clock.set('2023-10-20T00:00:50.5Z');
    await eon.extend(copy);
    const now = await stored(eon, idOf(copy));
    expect(now?.core?.[Label.Expiry]).toBe('2023-10-20T00:01:20.5Z');
    expect(now?.core?.[Label.Worker]).toBe('eon');
    expect(now?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('lets a claim last expiry ms from the search, and an extend a full new lease from its own now', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 500 });
    const copy = await claimedAt(eon, '2023-10-20T00:00:03Z');
    expect(copy.core?.[Label.Expiry]).toBe('2023-10-20T00:00:03.5Z');
    q.clock.set('2023-10-20T00:00:03.4Z');
    await eon.extend(copy);
    q.clock.set('2023-10-20T00:00:03.899Z');
    await eon.expire();
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Worker]).toBe('eon');
    q.clock.set('2023-10-20T00:00:03.9Z');
    await eon.expire();
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Worker]).toBeUndefined();
  });

  it("uses the extending engine's expiry option for the new lease", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const short = q.engine('eon', { expiry: 500 });
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    await short.extend(copy);
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:02.5Z');
  });

  it('rejects an unknown id with TaskNotFoundError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await claimedAt(eon, '2023-10-20T00:00:02Z');
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.extend({
          core: { [Label.Object]: '1697760001000-000000000999', [Label.Worker]: 'eon' },
        }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  it('rejects the copy of a deleted task with TaskNotFoundError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'other' } });
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    await eon.delete(copy);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  it('rejects an unowned task with TaskOutdatedError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ meta: { k: 'foo' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(created)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(withCore(created, { [Label.Worker]: 'eon' }))).rejects.toBeInstanceOf(
        TaskOutdatedError,
      );
    });
  });

  it("rejects another worker's copy, and a copy without worker, with TaskOutdatedError and writes nothing", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    for (const worker of ['etw', '', undefined]) {
      await expectUnchanged(q.redis, q.prefix, async () => {
        await expect(etw.extend(withCore(copy, { [Label.Worker]: worker }))).rejects.toBeInstanceOf(
          TaskOutdatedError,
        );
      });
    }
  });

  it('rejects the copy of a revoked lease with TaskOutdatedError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    q.clock.set('2023-10-20T00:00:32Z');
    await eon.expire();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(copy)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    expect((await stored(eon, idOf(copy)))?.core).toEqual({
      [Label.Object]: idOf(copy),
      [Label.Cycles]: '1',
    });
  });

  it('rejects the copy of a revoked lease that another worker claimed since', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    q.clock.set('2023-10-20T00:00:32Z');
    await eon.expire();
    const fresh = await etw.search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(copy)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Expiry]).toBe(fresh?.core?.[Label.Expiry]);
  });

  it('rejects the copy of a lease reset by cycles with TaskOutdatedError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z', {
      core: { [Label.Cancel]: '3' },
      meta: { k: 'foo' },
    });
    await eon.cycles(copy);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(copy)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });

  it('changes nothing but the expiry', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({
      core: { [Label.Cancel]: '5' },
      cron: { [Label.Exact]: '2023-10-20T00:00:02Z' },
      meta: { k: 'foo' },
      sync: { s: '1' },
    });
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.search();
    q.clock.set('2023-10-20T00:00:32Z');
    await eon.expire();
    const copy = await eon.search();
    const before = await stored(eon, idOf(copy));
    expect(before?.core?.[Label.Cycles]).toBe('1');
    q.clock.set('2023-10-20T00:00:40Z');
    // the copy's other maps are ignored
    await eon.extend({
      ...copy,
      meta: { k: 'changed' },
      sync: { s: '2' },
      core: { ...copy?.core, [Label.Cycles]: '9' },
    });
    expect(await stored(eon, idOf(copy))).toEqual({
      ...before,
      core: { ...before?.core, [Label.Expiry]: '2023-10-20T00:01:10Z' },
    });
  });

  it("does not modify the caller's object", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    const before = structuredClone(copy);
    q.clock.set('2023-10-20T00:00:10Z');
    await eon.extend(copy);
    expect(copy).toEqual(before);
  });

  it("ignores bypass: 'true' does not let a non-owner extend, and the owner extends with any bypass value", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const free = await eon.create({ meta: { k: 'free' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(withCore(free, { [Label.Bypass]: 'true' }))).rejects.toBeInstanceOf(
        TaskOutdatedError,
      );
    });
    q.clock.set('2023-10-20T00:00:02Z');
    const copy = await eon.search();
    expect(idOf(copy)).toBe(idOf(free));
    q.clock.set('2023-10-20T00:00:10Z');
    // extend has no bypass rule (T1–T5): a value delete would reject is not checked here
    await eon.extend(withCore(copy!, { [Label.Bypass]: 'maybe' }));
    const now = await stored(eon, idOf(copy));
    expect(now?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:40Z');
    expect(now?.core?.[Label.Bypass]).toBeUndefined();
  });

  it('keeps the task owned when expire runs at the old expiry after an extend', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimedAt(eon, '2023-10-20T00:00:02Z');
    q.clock.set('2023-10-20T00:00:10Z');
    await eon.extend(copy);
    q.clock.set('2023-10-20T00:00:32Z');
    await eon.expire();
    const kept = await stored(eon, idOf(copy));
    expect(kept?.core?.[Label.Worker]).toBe('eon');
    expect(kept?.core?.[Label.Cycles]).toBeUndefined();
    q.clock.set('2023-10-20T00:00:40Z');
    await eon.expire();
    expect((await stored(eon, idOf(copy)))?.core).toEqual({
      [Label.Object]: idOf(copy),
      [Label.Cycles]: '1',
    });
  });

  it('rejects a broadcast copy with TaskOutdatedError: broadcast tasks have no owner', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.create({ meta: { k: 'foo' }, node: { [Label.Method]: Method.All } });
    const copy = await eon.search();
    expect(copy).toBeDefined();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(copy!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });
});
