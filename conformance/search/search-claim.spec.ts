import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { countsInN } from '../harness/probes.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.2 phases 2, 4 and 5 (claiming and the candidate rules), §1.7 (task
// kinds as search sees them), §5.2 items 2 and 8.

const everything: Task = { meta: { '*': '*' } };

/** halt stores a task with cancel 1 and requeues it once through paging, so cycles 1 ≥ cancel 1. */
async function halt(engine: Engine, task: Task): Promise<Task> {
  const stored = await engine.create({
    ...task,
    core: { [Label.Cancel]: '1' },
    sync: { [Label.Paging]: '1' },
  });
  const claimed = await engine.search({ core: { [Label.Object]: idOf(stored) } });
  expect(idOf(claimed)).toBe(idOf(stored));
  await engine.delete(claimed!);
  const [halted] = await engine.lister({ meta: task.meta ?? {} });
  expect(halted?.core?.[Label.Cycles]).toBe('1');
  return halted!;
}

/** defer claims a stored task with a helper engine and requeues it with `@defer: duration`. */
async function defer(engine: Engine, stored: Task, duration: string): Promise<Task> {
  const claimed = await engine.search({ core: { [Label.Object]: idOf(stored) } });
  expect(idOf(claimed)).toBe(idOf(stored));
  await engine.delete({ ...claimed, cron: { [Label.Defer]: duration } });
  const [deferred] = await engine.lister({ meta: stored.meta ?? {} });
  return deferred!;
}

describe('search claims a task', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('sets this worker and an expiry of now + expiry and returns the stored task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const stored = await eon.create({ meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:02Z');
    const claimed = await eon.search();
    expect(claimed).toEqual({
      core: {
        [Label.Object]: idOf(stored),
        [Label.Worker]: 'eon',
        [Label.Expiry]: '2023-10-20T00:00:32Z',
        [Label.Token]: '1',
      },
      meta: { k: 'foo' },
      node: { [Label.Method]: 'any' },
    });
    expect(await eon.lister(everything)).toEqual([claimed]);
  });

  it('uses the engine expiry option for the lease, with formatTime milliseconds', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 500 });
    await eon.create({ meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:03Z');
    const claimed = await eon.search();
    expect(claimed?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:03.5Z');
  });

  it('keeps every other label of the task, cancel included', async () => {
    const eon = queue().engine('eon');
    const stored = await eon.create({
      core: { [Label.Cancel]: '3' },
      cron: { foo: 'bar' },
      meta: { k: 'v' },
      sync: { s: '1' },
      node: { [Label.Method]: Method.Any },
    });
    const claimed = await eon.search();
    expect(claimed).toEqual({
      ...stored,
      core: {
        ...stored.core,
        [Label.Worker]: 'eon',
        [Label.Expiry]: '2023-10-20T00:00:30Z',
        [Label.Token]: '1',
      },
    });
  });

  it('leaves the cycles label unchanged', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.expire(); // revokes the lease: cycles 1
    const claimed = await q.engine('etw').search();
    expect(claimed?.core?.[Label.Cycles]).toBe('1');
    expect(claimed?.core?.[Label.Worker]).toBe('etw');
    const [stored] = await eon.lister(everything);
    expect(stored?.core?.[Label.Cycles]).toBe('1');
  });

  it('returns a copy that shares nothing with the stored task', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const claimed = await eon.search();
    const [before] = await eon.lister(everything);
    claimed!.meta!['k'] = 'changed';
    claimed!.core![Label.Worker] = 'someone';
    expect(await eon.lister(everything)).toEqual([before]);
    expect(before?.meta).toEqual({ k: 'foo' });
  });

  it('returns undefined on an empty queue and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await eon.search()).toBeUndefined();
    });
  });

  it('returns undefined when the only task is owned by another worker', async () => {
    const q = queue();
    await q.engine('eon').create({ meta: { k: 'foo' } });
    expect((await q.engine('etw').search())?.core?.[Label.Worker]).toBe('etw');
    expect(await q.engine('eon').search()).toBeUndefined();
  });

  it('never hands its own owned task out again', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeUndefined();
  });

  it('does not hand out a task whose lease ended until expire has revoked it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'foo' } });
    await etw.search();
    q.clock.set('2023-10-20T00:00:45Z'); // lease ended at :30, not revoked
    expect(await eon.search()).toBeUndefined();
    await eon.expire();
    const claimed = await eon.search();
    expect(claimed?.core?.[Label.Worker]).toBe('eon');
    expect(claimed?.core?.[Label.Cycles]).toBe('1');
  });

  it('gives the last task to exactly one of two engines racing for it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'last' } });
    const results = await Promise.all([eon.search(), etw.search()]);
    const winners = results.filter((task) => task !== undefined);
    expect(winners).toHaveLength(1);
    const [stored] = await eon.lister(everything);
    expect(stored?.core?.[Label.Worker]).toBe(winners[0]?.core?.[Label.Worker]);
  });

  it('gives each task to at most one of many engines racing for them', async () => {
    const q = queue();
    const engines = ['eon', 'etw', 'eth', 'efo', 'efi', 'esi'].map((worker) => q.engine(worker));
    for (let index = 0; index < 3; index++)
      await engines[0]!.create({ meta: { n: String(index) } });
    const results = await Promise.all(engines.map((engine) => engine.search()));
    const claimed = results.filter((task) => task !== undefined).map(idOf);
    expect(new Set(claimed).size).toBe(claimed.length);
    const stored = await engines[0]!.lister(everything);
    for (const task of stored) {
      const owners = results.filter(
        (result) => result !== undefined && idOf(result) === idOf(task),
      );
      expect(owners.length).toBeLessThanOrEqual(1);
      expect(task.core?.[Label.Worker]).toBe(owners[0]?.core?.[Label.Worker]);
    }
  });

  it('claims the oldest task first, by creation instant and then by sequence', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { n: '0' } });
    await eon.create({ meta: { n: '1' } }); // same millisecond, later sequence
    q.clock.set('2023-10-20T00:00:00.001Z');
    await eon.create({ meta: { n: '2' } });
    const order: (string | undefined)[] = [];
    for (let index = 0; index < 4; index++) order.push((await eon.search())?.meta?.['n']);
    expect(order).toEqual(['0', '1', '2', undefined]);
  });
});

describe('search candidates (phase 2)', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('never hands out a halted task', async () => {
    const eon = queue().engine('eon');
    await halt(eon, { meta: { k: 'halted' } });
    expect(await eon.search()).toBeUndefined();
  });

  it('does not count a halted task in n', async () => {
    const q = queue();
    await halt(q.engine('aux'), { meta: { k: 'halted' } });
    expect(await countsInN(q)).toBe(false);
  });

  it('hands out a halted task again once cycles resets it', async () => {
    const eon = queue().engine('eon');
    const halted = await halt(eon, { meta: { k: 'halted' } });
    await eon.cycles(halted);
    const claimed = await eon.search();
    expect(idOf(claimed)).toBe(idOf(halted));
    expect(claimed?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('hands out a task whose cycles are still below its cancel value', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ core: { [Label.Cancel]: '2' }, meta: { k: 'v' } });
    await eon.search();
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.expire(); // cycles 1 < 2
    expect((await eon.search())?.core?.[Label.Cycles]).toBe('1');
  });

  it('never claims a broadcast task and does not count it in n', async () => {
    const q = queue();
    // the probe's filter keeps phase 1 away from it
    await q.engine('aux').create({ meta: { k: 'x' }, node: { [Label.Method]: Method.All } });
    expect(await countsInN(q)).toBe(false);
  });

  it('never claims a broadcast task an engine does not receive', async () => {
    const q = queue();
    await q.engine('aux').create({ meta: { k: 'x' }, node: { [Label.Method]: Method.All } });
    q.clock.set('2023-10-20T00:00:01Z');
    const late = q.engine('eon'); // started after the task: phase 1 skips it
    expect(await late.search()).toBeUndefined();
    const [stored] = await late.lister(everything);
    expect(stored?.core?.[Label.Worker]).toBeUndefined();
  });

  it('never hands out a cron template and does not count it in n', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } });
    q.clock.set('2023-10-20T05:00:00Z'); // long overdue
    expect(await eon.search()).toBeUndefined();
    expect(await countsInN(q)).toBe(false);
  });

  it('hands out an @exact task only from its instant on', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const exact = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:05Z' },
      meta: { k: 'exact' },
    });
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:04.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:05Z');
    expect(idOf(await eon.search())).toBe(idOf(exact));
  });

  it('reads @exact as an instant, also when written with an offset', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ cron: { [Label.Exact]: '2023-10-20T02:00:05+02:00' }, meta: { k: 'x' } });
    q.clock.set('2023-10-20T00:00:04.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:05Z');
    expect(await eon.search()).toBeDefined();
  });

  it('judges @exact against its own now, also after a search whose clock was ahead', async () => {
    // docs/semantics.md §5.1: engines whose clocks disagree decide with their own clocks
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ cron: { [Label.Exact]: '2023-10-20T00:00:05Z' }, meta: { k: 'exact' } });
    q.clock.set('2023-10-20T00:00:06Z');
    expect(await q.engine('etw').search({ meta: { k: 'nothing' } })).toBeUndefined();
    q.clock.set('2023-10-20T00:00:04Z'); // eon's clock is behind
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:05Z');
    expect((await eon.search())?.meta).toEqual({ k: 'exact' });
  });

  it('judges a deferred task against its own now, also after a search whose clock was ahead', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const stored = await eon.create({ meta: { k: 'deferred' } });
    await defer(q.engine('aux'), stored, '1 hour');
    q.clock.set('2023-10-20T01:00:01Z');
    expect(await q.engine('etw').search({ meta: { k: 'nothing' } })).toBeUndefined();
    q.clock.set('2023-10-20T00:59:59Z');
    expect(await eon.search()).toBeUndefined();
  });

  it('does not count an @exact task in n before its instant, and does at the instant', async () => {
    const q = queue();
    await q
      .engine('aux')
      .create({ cron: { [Label.Exact]: '2023-10-20T00:00:05Z' }, meta: { k: 'x' } });
    expect(await countsInN(q)).toBe(false);
    q.clock.set('2023-10-20T00:00:05Z');
    expect((await q.engine('etw').search({ meta: { probe: '*' } }))?.meta).toEqual({ probe: 'B' });
  });

  it('hands out a deferred task only from its tick+1 on', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const stored = await eon.create({ meta: { k: 'deferred' } });
    const deferred = await defer(q.engine('aux'), stored, '1 hour');
    expect(deferred.cron).toEqual({
      [Label.Defer]: '1 hour',
      [Label.TickP1]: '2023-10-20T01:00:00Z',
    });
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:59:59.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T01:00:00Z');
    expect(idOf(await eon.search())).toBe(idOf(stored));
  });

  it('does not count a deferred task in n before its tick+1', async () => {
    const q = queue();
    const aux = q.engine('aux');
    const stored = await aux.create({ meta: { k: 'deferred' } });
    await defer(aux, stored, '1 hour');
    expect(await countsInN(q)).toBe(false);
  });

  it('treats a cron map with only tick+1 as an ordinary candidate, not a deferral', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const stored = await eon.create({
      cron: { [Label.TickP1]: '2023-10-21T00:00:00Z' },
      meta: { k: 'v' },
    });
    expect(idOf(await eon.search())).toBe(idOf(stored));
  });

  it('counts another cron task (a cron label without effect) in n', async () => {
    const q = queue();
    await q.engine('aux').create({ cron: { foo: 'bar' }, meta: { k: 'v' } });
    expect(await countsInN(q)).toBe(true);
  });

  it('hands out other cron tasks in creation order with plain tasks', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { n: '0' } });
    await eon.create({ cron: { foo: 'bar' }, meta: { n: '1' } });
    await eon.create({ meta: { n: '2' } });
    await eon.create({ cron: { [Label.TickP1]: '2030-01-01T00:00:00Z' }, meta: { n: '3' } });
    const order: (string | undefined)[] = [];
    for (let index = 0; index < 4; index++) order.push((await eon.search())?.meta?.['n']);
    expect(order).toEqual(['0', '1', '2', '3']);
  });

  it.each([
    ['waiting values', { g0: 'waiting', g1: 'waiting' }],
    ['an empty gate', {}],
  ])('never hands out a gate template with %s and does not count it in n', async (_name, gate) => {
    const q = queue();
    const aux = q.engine('aux');
    await aux.create({ gate, meta: { k: 'gate' } });
    expect(await aux.search()).toBeUndefined();
    expect(await countsInN(q)).toBe(false);
  });

  it('hands out a trigger task and counts it in n', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const trigger = await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    expect(idOf(await eon.search())).toBe(idOf(trigger));
    await eon.delete((await eon.lister({ meta: { k: 'trigger' } }))[0]!);
    await q.engine('aux').create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    expect(await countsInN(q)).toBe(true);
  });

  it('counts a plain task in n (the probe itself can tell)', async () => {
    const q = queue();
    await q.engine('aux').create({ meta: { k: 'plain' } });
    expect(await countsInN(q)).toBe(true);
  });

  it('hands out a child emitted by ticker: its root is not a leaf root', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const claimed = await eon.search();
    expect(claimed?.root).toEqual({ [Label.Object]: idOf(template) });
    expect(claimed?.meta).toEqual({ k: 'foo' });
    await eon.delete(claimed!); // still there to delete: not removed as obsolete
    expect(await eon.lister(everything)).toHaveLength(1);
  });

  it('hands out a child emitted by a gate template', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'bar' } });
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'foo' } });
    await eon.delete((await eon.search())!);
    const child = await eon.search();
    expect(child?.root).toEqual({ [Label.Object]: idOf(template) });
    expect(child?.meta).toEqual({ k: 'bar' });
  });

  it('counts a unicast task for another worker in n', async () => {
    const q = queue();
    await q.engine('aux').create({
      meta: { k: 'u' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'somebody' },
    });
    expect(await countsInN(q)).toBe(true);
  });

  it('deletes an obsolete leaf in phase 2, before the pick', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { k: 'foo' } });
    expect((await eon.search())?.meta).toEqual({ k: 'foo' });
    await expect(
      eon.delete({ core: { [Label.Object]: idOf(leaf), [Label.Bypass]: 'true' } }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
