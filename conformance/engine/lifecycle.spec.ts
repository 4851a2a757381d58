import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// The whole life of a plain, a unicast and a broadcast task on three engines
// with named workers (eon, etw, eth; one queue, one clock, expiry 30 s), step
// by step: docs/semantics.md §1.7, §3.1, §3.2, §3.3, §3.6, §3.7 and §5.2 items 1 to 6.

const everything: Task = { meta: { '*': '*' } };

async function storedCore(engine: Engine, id: string): Promise<Record<string, string> | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id)?.core;
}

describe('the lifecycle of a task across three engines', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('takes a plain task from create through claim, extend, revocation, a second claim and delete', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const eth = q.engine('eth');

    q.clock.set('2023-10-20T00:00:01Z');
    const created = await eon.create({ meta: { job: 'plain' } });
    const id = idOf(created);
    expect(created).toEqual({
      core: { [Label.Object]: id },
      meta: { job: 'plain' },
      node: { [Label.Method]: Method.Any },
    });

    // :02 etw claims it; nobody else gets it while etw owns it
    q.clock.set('2023-10-20T00:00:02Z');
    const first = await etw.search();
    expect(first?.core).toEqual({
      [Label.Object]: id,
      [Label.Worker]: 'etw',
      [Label.Expiry]: '2023-10-20T00:00:32Z',
      [Label.Token]: '1',
    });
    expect(await eon.search()).toBeUndefined();
    expect(await eth.search()).toBeUndefined();

    // :10 etw extends: a full lease from :10
    q.clock.set('2023-10-20T00:00:10Z');
    await etw.extend(first!);
    expect((await storedCore(eon, id))?.[Label.Expiry]).toBe('2023-10-20T00:00:40Z');

    // :39 the lease still runs; :40 it has ended and eth's expire revokes it
    q.clock.set('2023-10-20T00:00:39.999Z');
    await eon.expire();
    expect((await storedCore(eon, id))?.[Label.Worker]).toBe('etw');
    q.clock.set('2023-10-20T00:00:40Z');
    await eth.expire();
    expect(await storedCore(eon, id)).toEqual({ [Label.Object]: id, [Label.Cycles]: '1' });

    // etw lost it: its old copy is fenced off and writes nothing
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(etw.extend(first!)).rejects.toBeInstanceOf(TaskOutdatedError);
      await expect(etw.delete(first!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });

    // :41 eth claims it again, with the cycle counted
    q.clock.set('2023-10-20T00:00:41Z');
    const second = await eth.search();
    expect(second?.core).toEqual({
      [Label.Object]: id,
      [Label.Worker]: 'eth',
      [Label.Expiry]: '2023-10-20T00:01:11Z',
      [Label.Token]: '2',
      [Label.Cycles]: '1',
    });
    expect(await etw.search()).toBeUndefined();
    await expect(etw.delete(first!)).rejects.toBeInstanceOf(TaskOutdatedError);

    // :42 eth completes it: gone for everybody
    q.clock.set('2023-10-20T00:00:42Z');
    await eth.delete(second!);
    expect(await eon.exists(everything)).toBe(false);
    for (const engine of [eon, etw, eth]) expect(await engine.search()).toBeUndefined();
    await expect(eth.delete(second!)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(eth.extend(second!)).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('hands a unicast task only to its worker, again after its lease was revoked, until that worker deletes it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const eth = q.engine('eth');

    q.clock.set('2023-10-20T00:00:01Z');
    const created = await eon.create({
      meta: { job: 'unicast' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
    });
    const id = idOf(created);

    // the other workers never get it, and their searches leave it unowned
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await eon.search()).toBeUndefined();
      expect(await eth.search()).toBeUndefined();
    });

    q.clock.set('2023-10-20T00:00:02Z');
    const first = await etw.search();
    expect(idOf(first)).toBe(id);
    expect(first?.core?.[Label.Worker]).toBe('etw');
    expect(first?.node).toEqual({ [Label.Method]: Method.Uni, [Label.Worker]: 'etw' });

    // etw goes silent; at :32 its lease has ended and eon's expire revokes it
    q.clock.set('2023-10-20T00:00:32Z');
    await eon.expire();
    expect(await storedCore(eon, id)).toEqual({ [Label.Object]: id, [Label.Cycles]: '1' });
    expect(await eon.search()).toBeUndefined();
    expect(await eth.search()).toBeUndefined();

    // etw comes back and gets it again
    q.clock.set('2023-10-20T00:00:33Z');
    const second = await etw.search();
    expect(second?.core).toEqual({
      [Label.Object]: id,
      [Label.Worker]: 'etw',
      [Label.Expiry]: '2023-10-20T00:01:03Z',
      [Label.Token]: '2',
      [Label.Cycles]: '1',
    });
    await etw.delete(second!);
    expect(await eon.exists(everything)).toBe(false);
    expect(await etw.search()).toBeUndefined();
  });

  it('delivers a broadcast task to every engine started before it, after every local lease, until each completes it, and keeps it until retention', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const eth = q.engine('eth');

    q.clock.set('2023-10-20T00:00:01Z');
    const created = await eon.create({
      meta: { job: 'broadcast' },
      node: { [Label.Method]: Method.All },
    });

    // every engine receives it, as stored and without owner; Redis is not written
    await expectUnchanged(q.redis, q.prefix, async () => {
      for (const engine of [eon, etw, eth]) expect(await engine.search()).toEqual(created);
      for (const engine of [eon, etw, eth]) expect(await engine.search()).toBeUndefined();
    });

    // eon completes it locally; the others still hold their local leases
    await expectUnchanged(q.redis, q.prefix, () => eon.delete(created));
    q.clock.set('2023-10-20T00:00:30.999Z');
    for (const engine of [eon, etw, eth]) expect(await engine.search()).toBeUndefined();

    // :31 the local leases of etw and eth end; eon never receives it again
    q.clock.set('2023-10-20T00:00:31Z');
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toEqual(created);
    expect(await eth.search()).toEqual(created);
    await etw.delete(created);

    // 00:01:01 only eth, which has not completed it, receives it again
    q.clock.set('2023-10-20T00:01:01Z');
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toBeUndefined();
    expect(await eth.search()).toEqual(created);
    await eth.delete(created);

    // an engine started after its creation never receives it; nobody can extend it
    const efo = q.engine('efo');
    q.clock.set('2023-10-20T00:05:00Z');
    for (const engine of [eon, etw, eth, efo]) expect(await engine.search()).toBeUndefined();
    await expect(eth.extend(created)).rejects.toBeInstanceOf(TaskOutdatedError);

    // it stays in the queue for everybody until retention, 7 days after :01
    q.clock.set('2023-10-27T00:00:01Z');
    await efo.expire();
    expect(await efo.lister(everything)).toEqual([created]);
    q.clock.set('2023-10-27T00:00:01.001Z');
    await efo.expire();
    expect(await efo.exists(everything)).toBe(false);
  });
});
