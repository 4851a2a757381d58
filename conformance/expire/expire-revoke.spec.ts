import type { Engine } from '../../lib/engine/engine.js';
import { TaskOutdatedError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.6 step 2 (revocation): expire removes the worker and expiry
// of an owned task whose lease ended (expiry ≤ now) and adds one cycle.

const everything: Task = { meta: { '*': '*' } };

async function storedCore(engine: Engine, id: string): Promise<Record<string, string> | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id)?.core;
}

describe('expire: revocation', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('revokes a lease of 500 ms claimed at :03 at 00:00:03.5, not at 00:00:03.499 (docs/semantics.md §3.6 example)', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 500 });
    const task = await eon.create({ meta: { k: 'foo' } });
    const id = idOf(task);
    q.clock.set('2023-10-20T00:00:03Z');
    const claimed = await eon.search();
    expect(claimed?.core).toEqual({
      [Label.Object]: id,
      [Label.Worker]: 'eon',
      [Label.Expiry]: '2023-10-20T00:00:03.5Z',
      [Label.Token]: '1',
    });
    q.clock.set('2023-10-20T00:00:03.499Z');
    await eon.expire();
    expect(await storedCore(eon, id)).toEqual(claimed?.core);
    q.clock.set('2023-10-20T00:00:03.5Z');
    await eon.expire();
    expect(await storedCore(eon, id)).toEqual({ [Label.Object]: id, [Label.Cycles]: '1' });
  });

  it('waits clockSkew past the lease end before it revokes: a lease ending at :03.5 goes at :05.5 with clockSkew 2000', async () => {
    const q = queue();
    const owner = q.engine('eon', { expiry: 500 });
    // the engine that runs expire allows for clocks 2 s apart
    const expirer = q.engine('etw', { expiry: 500, clockSkew: 2_000 });
    const task = await owner.create({ meta: { k: 'foo' } });
    const id = idOf(task);
    q.clock.set('2023-10-20T00:00:03Z');
    const claimed = await owner.search();
    q.clock.set('2023-10-20T00:00:05.499Z');
    await expirer.expire();
    expect(await storedCore(owner, id)).toEqual(claimed?.core);
    q.clock.set('2023-10-20T00:00:05.5Z');
    await expirer.expire();
    expect(await storedCore(owner, id)).toEqual({ [Label.Object]: id, [Label.Cycles]: '1' });
  });

  it('makes the revoked task searchable by another worker, with its cycles counted', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const task = await eon.create({ meta: { k: 'foo' } });
    const claimed = await eon.search();
    expect(idOf(claimed)).toBe(idOf(task));
    q.clock.set('2023-10-20T00:00:40Z'); // the lease ended at :31 but nobody revoked it
    expect(await etw.search()).toBeUndefined();
    await etw.expire();
    const again = await etw.search();
    expect(idOf(again)).toBe(idOf(task));
    expect(again?.core).toEqual({
      [Label.Object]: idOf(task),
      [Label.Worker]: 'etw',
      [Label.Expiry]: '2023-10-20T00:01:10Z',
      [Label.Token]: '2',
      [Label.Cycles]: '1',
    });
    // the former owner lost it
    await expect(eon.delete(claimed!)).rejects.toBeInstanceOf(TaskOutdatedError);
    await expect(eon.extend(claimed!)).rejects.toBeInstanceOf(TaskOutdatedError);
  });

  it('counts every revocation: cycles 1, then 2', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();
    expect((await storedCore(eon, idOf(task)))?.[Label.Cycles]).toBe('1');
    await eon.search();
    q.clock.set('2023-10-20T00:01:01Z');
    await eon.expire();
    expect(await storedCore(eon, idOf(task))).toEqual({
      [Label.Object]: idOf(task),
      [Label.Cycles]: '2',
    });
  });

  it('revokes each ended lease once when several engines run expire at the same time', async () => {
    const q = queue();
    const engines = [q.engine('eon'), q.engine('etw'), q.engine('eth')];
    const eon = engines[0]!;
    const tasks = await Promise.all(
      Array.from({ length: 20 }, (_, n) => eon.create({ meta: { n: String(n) } })),
    );
    await Promise.all(tasks.map(() => eon.search()));
    q.clock.set('2023-10-20T00:00:31Z');
    await Promise.all(engines.flatMap((engine) => [engine.expire(), engine.expire()]));
    const listed = await eon.lister(everything);
    expect(listed).toHaveLength(20);
    for (const task of listed)
      expect(task.core).toEqual({ [Label.Object]: idOf(task), [Label.Cycles]: '1' });
  });

  it('halts a task whose revocation reaches its cancel value', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'foo' } });
    await eon.search();
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();
    expect(await storedCore(eon, idOf(task))).toEqual({
      [Label.Object]: idOf(task),
      [Label.Cancel]: '1',
      [Label.Cycles]: '1',
    });
    expect(await eon.search()).toBeUndefined();
    expect(await q.engine('etw').search()).toBeUndefined();
  });

  it('revokes owned exact tasks, which become searchable again', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:05Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-20T00:00:05Z');
    expect(idOf(await eon.search())).toBe(idOf(task));
    q.clock.set('2023-10-20T00:00:35Z');
    await eon.expire();
    expect(await storedCore(eon, idOf(task))).toEqual({
      [Label.Object]: idOf(task),
      [Label.Cycles]: '1',
    });
    const again = await q.engine('etw').search();
    expect(idOf(again)).toBe(idOf(task));
    expect(again?.cron).toEqual({ [Label.Exact]: '2023-10-20T00:00:05Z' });
  });

  it('revokes owned deferred tasks, which become searchable again', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ meta: { k: 'foo' } });
    const claimed = await eon.search();
    await eon.delete({ ...claimed, cron: { [Label.Defer]: 'minute' } });
    q.clock.set('2023-10-20T00:01:01Z');
    const deferred = await eon.search();
    expect(idOf(deferred)).toBe(idOf(task));
    expect(deferred?.cron).toEqual({
      [Label.Defer]: 'minute',
      [Label.TickP1]: '2023-10-20T00:01:01Z',
    });
    q.clock.set('2023-10-20T00:01:31Z');
    await eon.expire();
    expect(await storedCore(eon, idOf(task))).toEqual({
      [Label.Object]: idOf(task),
      [Label.Cycles]: '2',
    });
    expect(idOf(await q.engine('etw').search())).toBe(idOf(task));
  });

  it('revokes owned unicast and other cron tasks too', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const unicast = await eon.create({
      meta: { k: 'u' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
    });
    const other = await eon.create({ cron: { foo: 'bar' }, meta: { k: 'c' } });
    await eon.search();
    await eon.search();
    expect((await storedCore(eon, idOf(other)))?.[Label.Worker]).toBe('eon');
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();
    expect(await storedCore(eon, idOf(unicast))).toEqual({
      [Label.Object]: idOf(unicast),
      [Label.Cycles]: '1',
    });
    expect(await storedCore(eon, idOf(other))).toEqual({
      [Label.Object]: idOf(other),
      [Label.Cycles]: '1',
    });
  });

  it('never touches a lease that has not ended, and does not rebalance ownership', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (let n = 0; n < 4; n++) await eon.create({ meta: { n: String(n) } });
    for (let n = 0; n < 4; n++) expect(await eon.search()).toBeDefined();
    q.clock.set('2023-10-20T00:00:10Z');
    const extended = (await eon.lister(everything))[0]!;
    await eon.extend(extended); // lease until :40
    const before = await eon.lister(everything);
    expect(before.every((task) => task.core?.[Label.Worker] === 'eon')).toBe(true);
    expect(await etw.search()).toBeUndefined(); // nothing free for etw
    q.clock.set('2023-10-20T00:00:30.999Z');
    await eon.expire();
    await etw.expire();
    expect(await eon.lister(everything)).toEqual(before);
    // at :31 the three leases from :01 end; the extended one is left alone
    q.clock.set('2023-10-20T00:00:31Z');
    await etw.expire();
    const after = await eon.lister(everything);
    expect(after.map((task) => task.core?.[Label.Worker])).toEqual([
      'eon',
      undefined,
      undefined,
      undefined,
    ]);
    expect(after[0]).toEqual(before[0]);
  });

  it('leaves unowned tasks, templates and broadcast tasks alone', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:02Z'); // after eon's start, so eon receives the broadcast task
    await eon.create({ meta: { k: 'free' } });
    await eon.create({ meta: { k: 'broadcast' }, node: { [Label.Method]: Method.All } });
    await eon.create({ cron: { [Label.Every]: 'day' }, meta: { k: 'template' } });
    await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    expect((await eon.search())?.meta).toEqual({ k: 'broadcast' }); // delivered locally, never owned
    const before = await eon.lister(everything);
    q.clock.set('2023-10-21T00:00:00Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual(before);
  });

  it('never touches the broadcast ledger of any engine', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:02Z');
    const broadcast = await eon.create({
      meta: { k: 'broadcast' },
      node: { [Label.Method]: Method.All },
    });
    expect(idOf(await eon.search())).toBe(idOf(broadcast)); // local lease until :32
    expect(idOf(await etw.search())).toBe(idOf(broadcast));
    await etw.delete(broadcast); // done for etw
    q.clock.set('2023-10-20T00:00:10Z');
    await eon.expire();
    await etw.expire();
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:32Z');
    await eon.expire();
    expect(idOf(await eon.search())).toBe(idOf(broadcast)); // its local lease ended, not revoked by expire
    expect(await etw.search()).toBeUndefined();
  });

  it('revokes more than 500 ended leases in one expire call', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (let chunk = 0; chunk < 6; chunk++) {
      await Promise.all(
        Array.from({ length: 200 }, (_, n) => eon.create({ meta: { n: `${chunk}-${n}` } })),
      );
    }
    await Promise.all(Array.from({ length: 600 }, () => eon.search()));
    await Promise.all(Array.from({ length: 600 }, () => etw.search()));
    const owned = await eon.lister(everything);
    expect(owned.filter((task) => task.core?.[Label.Worker] !== undefined)).toHaveLength(1200);
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();
    const after = await eon.lister(everything);
    expect(after).toHaveLength(1200);
    expect(
      after.filter(
        (task) => task.core?.[Label.Worker] !== undefined || task.core?.[Label.Cycles] !== '1',
      ),
    ).toEqual([]);
  });
});
