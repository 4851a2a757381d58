import type { Engine } from '../../lib/engine/engine.js';
import {
  TaskCoreError,
  TaskCronError,
  TaskNotFoundError,
  TaskOutdatedError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// delete with Label.Defer in the copy's cron: docs/semantics.md §3.3 steps 4 and 7,
// and the durations of 4.6.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

function withoutCore(task: Task | undefined): Task | undefined {
  if (task === undefined) return undefined;
  const rest: Task = { ...task };
  delete rest.core;
  return rest;
}

describe('delete: deferral', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  /** claimed creates { meta: { k: 'foo' } } at :01 and returns eon's copy of it. */
  async function claimed(eon: Engine): Promise<Task> {
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    if (copy === undefined) throw new Error('nothing to claim');
    return copy;
  }

  it('follows the deferral example of docs/semantics.md §3.3', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const x = await eon.create({ meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:02Z');
    const copy = await eon.search();
    expect(idOf(copy)).toBe(idOf(x));
    expect(copy?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:32Z');
    copy!.cron = { [Label.Defer]: '2 hours' };
    q.clock.set('2023-10-20T00:01:00Z');
    await etw.delete(copy!); // the lease ended but was not revoked
    const requeued = await stored(eon, idOf(x));
    expect(withoutCore(requeued)).toEqual({
      cron: { [Label.Defer]: '2 hours', [Label.TickP1]: '2023-10-20T02:01:00Z' },
      meta: { k: 'foo' },
      node: { [Label.Method]: 'any' },
    });
    expect(requeued?.core).toEqual({ [Label.Object]: idOf(x), [Label.Cycles]: '1' });
    q.clock.set('2023-10-20T02:00:59Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T02:01:00Z');
    const due = await eon.search();
    expect(idOf(due)).toBe(idOf(x));
    await eon.delete(due!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('stores exactly @defer and tick+1 in the requeued cron', async () => {
    const eon = queue().engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'hour' };
    await eon.delete(copy);
    expect((await stored(eon, idOf(copy)))?.cron).toEqual({
      [Label.Defer]: 'hour',
      [Label.TickP1]: '2023-10-20T01:00:01Z',
    });
  });

  it('deletes a deferred task on its next delete, whose copy carries two cron labels', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'minute' };
    await eon.delete(copy);
    q.clock.set('2023-10-20T00:01:01Z');
    const due = await eon.search();
    expect(due?.cron).toEqual({ [Label.Defer]: 'minute', [Label.TickP1]: '2023-10-20T00:01:01Z' });
    await eon.delete(due!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('defers again when the worker removes tick+1 from the copy', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'minute' };
    await eon.delete(copy);
    q.clock.set('2023-10-20T00:01:30Z');
    const due = await eon.search();
    Reflect.deleteProperty(due!.cron!, Label.TickP1);
    due!.cron![Label.Defer] = '2 hours';
    await eon.delete(due!);
    const requeued = await stored(eon, idOf(copy));
    expect(requeued?.cron).toEqual({
      [Label.Defer]: '2 hours',
      [Label.TickP1]: '2023-10-20T02:01:30Z',
    });
    expect(requeued?.core?.[Label.Cycles]).toBe('2');
    q.clock.set('2023-10-20T02:01:29.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T02:01:30Z');
    expect(idOf(await eon.search())).toBe(idOf(copy));
  });

  it.each([
    ['a clause', 'day at 08:00'],
    ['a singular unit with a quantity', '2 minute'],
    ['a word', 'soon'],
    ['the empty string', ''],
    ['a plural unit with quantity 1', '1 minutes'],
    ['an in suffix', 'hour in UTC'],
    ['a cron expression', '0 8 * * *'],
  ])('rejects a @defer with %s with TaskCronError and writes nothing', async (_name, defer) => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: defer };
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy)).rejects.toBeInstanceOf(TaskCronError);
    });
    expect((await stored(eon, idOf(copy)))?.core?.[Label.Worker]).toBe('eon');
  });

  it('rejects an unreadable @defer with TaskCronError also when the copy pages with two cron labels', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'soon', [Label.TickP1]: '2023-10-20T00:00:01Z' };
    copy.sync = { [Label.Paging]: '1' };
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy)).rejects.toBeInstanceOf(TaskCronError);
    });
  });

  it('checks not found before an unreadable @defer', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await claimed(eon);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.delete({
          core: { [Label.Object]: '1697760001000-000000000999', [Label.Worker]: 'eon' },
          cron: { [Label.Defer]: 'soon' },
          meta: { k: 'foo' },
        }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  it('checks ownership before an unreadable @defer', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const copy = await claimed(eon);
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        etw.delete({
          ...copy,
          core: { ...copy.core, [Label.Worker]: 'etw' },
          cron: { [Label.Defer]: 'soon' },
        }),
      ).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });

  it('checks the bypass value before anything stored', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.delete({
          core: { [Label.Object]: '1697760001000-000000000999', [Label.Bypass]: 'yes' },
          cron: { [Label.Defer]: 'soon' },
        }),
      ).rejects.toBeInstanceOf(TaskCoreError);
    });
  });

  // Step 4 reads @defer only when the task is requeued: a copy that neither
  // pages nor has @defer as its only cron label is deleted, and its @defer is
  // never read (the most literal reading of "if the task is requeued and the
  // copy's cron has the key Label.Defer").
  it('deletes without reading @defer when the copy carries @defer beside tick+1 and does not page', async () => {
    const eon = queue().engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'soon', [Label.TickP1]: '2023-10-20T00:00:01Z' };
    await eon.delete(copy);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('deletes a task whose copy has @defer beside a label other than tick+1 (not a deferral)', async () => {
    const eon = queue().engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'hour', foo: 'bar' };
    await eon.delete(copy);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('deletes a trigger task whose copy defers, without reading @defer', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.cron = { [Label.Defer]: 'soon' };
    await eon.delete(copy!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it('deletes a leaf whose copy defers', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' }, root: { k: 'nothing' } });
    const copy = await eon.search();
    copy!.cron = { [Label.Defer]: 'hour' };
    await eon.delete(copy!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it.each([
    ['minute', '2023-10-20T00:01:01Z'],
    ['1 minute', '2023-10-20T00:01:01Z'],
    ['5 minutes', '2023-10-20T00:05:01Z'],
    ['2 hours', '2023-10-20T02:00:01Z'],
    ['day', '2023-10-21T00:00:01Z'],
    ['week', '2023-10-27T00:00:01Z'],
    ['2 weeks', '2023-11-03T00:00:01Z'],
    ['month', '2023-11-19T00:00:01Z'],
    ['3 months', '2024-01-18T00:00:01Z'],
    ['1000000 minutes', '2025-09-13T10:40:01Z'],
  ])('defers by the fixed duration of %s', async (defer, tickP1) => {
    const eon = queue().engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: defer };
    await eon.delete(copy);
    expect((await stored(eon, idOf(copy)))?.cron?.[Label.TickP1]).toBe(tickP1);
  });

  it('defers a paging task and computes a new tick+1 at every requeue until it stops paging', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const copy = await claimed(eon);
    copy.cron = { [Label.Defer]: 'hour' };
    copy.sync = { [Label.Paging]: '1' };
    await eon.delete(copy);
    const first = await stored(eon, idOf(copy));
    expect(withoutCore(first)).toEqual({
      cron: { [Label.Defer]: 'hour', [Label.TickP1]: '2023-10-20T01:00:01Z' },
      meta: { k: 'foo' },
      node: { [Label.Method]: 'any' },
      sync: { [Label.Paging]: '1' },
    });
    q.clock.set('2023-10-20T01:00:01Z');
    const second = await eon.search();
    second!.sync = { [Label.Paging]: '2' };
    q.clock.set('2023-10-20T01:00:05Z');
    await eon.delete(second!); // two cron labels, but it pages: requeued, tick+1 from now
    const requeued = await stored(eon, idOf(copy));
    expect(requeued?.cron).toEqual({
      [Label.Defer]: 'hour',
      [Label.TickP1]: '2023-10-20T02:00:05Z',
    });
    expect(requeued?.sync).toEqual({ [Label.Paging]: '2' });
    expect(requeued?.core?.[Label.Cycles]).toBe('2');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T02:00:05Z');
    const third = await eon.search();
    third!.sync = { [Label.Paging]: '0' };
    await eon.delete(third!);
    expect(await eon.exists(everything)).toBe(false);
  });

  it.each([
    ['the @exact', '2023-10-20T02:00:01Z', '1 hour'],
    ['the deferred tick+1', '2023-10-20T01:00:01Z', '2 hours'],
  ])(
    'hands out a paging task whose copy carries @exact and @defer only once both are reached (%s comes later)',
    async (_name, exact, defer) => {
      // phase 2 rules 4 and 5 both apply: it waits for @exact and for tick+1
      const q = queue();
      const eon = q.engine('eon');
      const copy = await claimed(eon);
      await eon.delete({
        ...copy,
        cron: { [Label.Exact]: exact, [Label.Defer]: defer },
        sync: { [Label.Paging]: '1' },
      });
      expect((await stored(eon, idOf(copy)))?.cron).toEqual({
        [Label.Exact]: exact,
        [Label.Defer]: defer,
        [Label.TickP1]: defer === '1 hour' ? '2023-10-20T01:00:01Z' : '2023-10-20T02:00:01Z',
      });
      q.clock.set('2023-10-20T01:00:01Z');
      expect(await eon.search()).toBeUndefined();
      q.clock.set('2023-10-20T02:00:00.999Z');
      expect(await eon.search()).toBeUndefined();
      q.clock.set('2023-10-20T02:00:01Z');
      expect(idOf(await eon.search())).toBe(idOf(copy));
    },
  );
});
