import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §5.1: concurrent calls on several engines end as if their
// atomic steps had run one after another. Each test races calls whose serial
// orders end differently and checks that every task ends in the state of one
// of those orders (for races whose every order ends alike, in that state).

const everything: Task = { meta: { '*': '*' } };

async function storedById(engine: Engine): Promise<Map<string, Task>> {
  return new Map((await engine.lister(everything)).map((task) => [idOf(task), task]));
}

/** settle runs a call and returns 'ok' or the class of the error it threw. */
async function settle(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    return (error as Error).constructor.name;
  }
}

/**
 * around runs `call` on every copy with `other` started halfway through, so
 * that some calls tend to reach Redis before it and some after.
 */
async function around(
  copies: Task[],
  call: (copy: Task) => Promise<unknown>,
  other: () => Promise<unknown>,
): Promise<string[]> {
  const half = Math.floor(copies.length / 2);
  const first = copies.slice(0, half).map((copy) => settle(call(copy)));
  const racing = other();
  const second = copies.slice(half).map((copy) => settle(call(copy)));
  const [results] = await Promise.all([Promise.all([...first, ...second]), racing]);
  return results;
}

describe('concurrent calls are serially equivalent', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');
  const count = 12;

  /** claimAll lets eon claim `count` tasks at :00 (leases end at :30). */
  async function claimAll(eon: Engine, task: Task = { meta: { k: 'foo' } }): Promise<Task[]> {
    for (let n = 0; n < count; n++)
      await eon.create({ ...task, core: task.core && { ...task.core }, meta: { n: String(n) } });
    const copies: Task[] = [];
    for (let n = 0; n < count; n++) copies.push((await eon.search())!);
    return copies;
  }

  it('fires a gate template once when its triggers are completed at the same time on six engines, each key flipped once', async () => {
    const q = queue();
    const keys = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];
    const engines = keys.map((key) => q.engine(`e-${key}`));
    const first = engines[0]!;
    const template = await first.create({
      gate: Object.fromEntries(keys.map((key) => [key, 'waiting'])),
      meta: { k: 'gate' },
      sync: Object.fromEntries(keys.map((key) => [key, 'n/a'])),
    });
    for (const key of keys)
      await first.create({ gate: { [key]: 'trigger' }, meta: { trigger: key } });
    const copies = await Promise.all(
      engines.map((engine, index) => engine.search({ meta: { trigger: keys[index]! } })),
    );
    await Promise.all(
      engines.map((engine, index) =>
        engine.delete({ ...copies[index], sync: { [keys[index]!]: 'done' } }),
      ),
    );
    const stored = await first.lister(everything);
    const children = stored.filter((task) => task.root?.[Label.Object] === idOf(template));
    expect(children).toHaveLength(1);
    // every trigger's sync reached the template before it fired
    expect(children[0]?.sync).toEqual(Object.fromEntries(keys.map((key) => [key, 'done'])));
    expect(stored.find((task) => idOf(task) === idOf(template))?.gate).toEqual(
      Object.fromEntries(keys.map((key) => [key, 'waiting'])),
    );
    expect(stored).toHaveLength(2); // the template and its child: every trigger went
  });

  it('flips the gate keys of a trigger once when two engines delete it at the same time', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const template = await eon.create({
      gate: { g0: 'waiting', g1: 'waiting' },
      meta: { k: 'gate' },
    });
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    const copy = await eon.search();
    const results = await Promise.all([settle(eon.delete(copy!)), settle(etw.delete(copy!))]);
    expect(results.sort()).toEqual(['TaskNotFoundError', 'ok']);
    const stored = await eon.lister(everything);
    expect(stored.map(idOf)).toEqual([idOf(template)]);
    expect(stored[0]?.gate).toEqual({ g0: 'deleted', g1: 'waiting' });
  });

  it('ends an owner completing its task as its lease ends, while expire runs, in one of the two serial orders', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copies = await claimAll(eon);
    q.clock.set('2023-10-20T00:00:30Z');
    const results = await around(
      copies,
      (copy) => eon.delete(copy),
      () => etw.expire(),
    );
    const stored = await storedById(eon);
    // per task, the state its serial order leaves: delete first, gone (expire
    // found nothing to revoke); expire first, revoked once and the delete fenced off
    const expected = results.map((result, index) =>
      result === 'ok'
        ? ['ok', undefined]
        : ['TaskOutdatedError', { [Label.Object]: idOf(copies[index]), [Label.Cycles]: '1' }],
    );
    expect(copies.map((copy, index) => [results[index], stored.get(idOf(copy))?.core])).toEqual(
      expected,
    );
  });

  it('ends an owner extending its lease as it ends, while expire runs, in one of the two serial orders', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copies = await claimAll(eon);
    q.clock.set('2023-10-20T00:00:30Z');
    const results = await around(
      copies,
      (copy) => eon.extend(copy),
      () => etw.expire(),
    );
    const stored = await storedById(eon);
    // extend first: a fresh lease from :30, which expire leaves alone; expire
    // first: revoked once, and the extend fenced off
    const expected = results.map((result, index) =>
      result === 'ok'
        ? [
            'ok',
            {
              [Label.Object]: idOf(copies[index]),
              [Label.Worker]: 'eon',
              [Label.Expiry]: '2023-10-20T00:01:00Z',
              [Label.Token]: copies[index]?.core?.[Label.Token],
            },
          ]
        : ['TaskOutdatedError', { [Label.Object]: idOf(copies[index]), [Label.Cycles]: '1' }],
    );
    expect(copies.map((copy, index) => [results[index], stored.get(idOf(copy))?.core])).toEqual(
      expected,
    );
  });

  it('counts one cycle for a paging task requeued as its lease ends while expire runs, whichever comes first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copies = await claimAll(eon);
    q.clock.set('2023-10-20T00:00:30Z');
    const results = await around(
      copies,
      (copy) => eon.delete({ ...copy, sync: { [Label.Paging]: '1' } }),
      () => etw.expire(),
    );
    expect(results.every((result) => ['ok', 'TaskOutdatedError'].includes(result))).toBe(true);
    for (const task of (await storedById(eon)).values()) {
      expect(task.core).toEqual({ [Label.Object]: idOf(task), [Label.Cycles]: '1' });
    }
    expect((await storedById(eon)).size).toBe(count);
  });

  it('leaves a task unowned and without cycles when cycles and expire race on its ended lease, whichever comes first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copies = await claimAll(eon, { core: { [Label.Cancel]: '5' }, meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:30Z');
    const results = await around(
      copies,
      (copy) => etw.cycles(copy),
      () => eon.expire(),
    );
    expect(results.every((result) => result === 'ok')).toBe(true);
    for (const task of (await storedById(eon)).values()) {
      expect(task.core).toEqual({ [Label.Object]: idOf(task), [Label.Cancel]: '5' });
    }
    // and every one of them is free to claim again
    for (let n = 0; n < count; n++) expect(await q.engine(`w${n}`).search()).toBeDefined();
  });

  it('deletes an obsolete leaf once and hands the task that obsoletes it to one of two racing searches', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const leaf = await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } });
    const r = await eon.create({ meta: { k: 'foo' } });
    const results = await Promise.all([eon.search(), etw.search()]);
    const claimed = results.filter((task) => task !== undefined);
    expect(claimed.map(idOf)).toEqual([idOf(r)]);
    expect(await eon.exists({ core: { [Label.Object]: idOf(leaf) } })).toBe(false);
    await expect(
      eon.delete({ core: { [Label.Object]: idOf(leaf), [Label.Bypass]: 'true' } }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('lets exactly one of two engines that hold the same copy requeue a paging task; the other is fenced off', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({ meta: { k: 'foo' } });
    const copy = { ...(await eon.search()), sync: { [Label.Paging]: 'next' } };
    const results = await Promise.allSettled([eon.delete(copy), etw.delete(copy)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected');
    expect(rejected?.reason).toBeInstanceOf(TaskOutdatedError);
    const stored = (await storedById(eon)).get(idOf(created));
    expect(stored?.core).toEqual({ [Label.Object]: idOf(created), [Label.Cycles]: '1' });
    expect(stored?.sync).toEqual({ [Label.Paging]: 'next' });
  });
});
