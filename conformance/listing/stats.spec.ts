import { Label, Method } from '../../lib/task/label.js';
import type { Engine } from '../../lib/engine/engine.js';
import { statsTargetSample } from '../../lib/engine/stats.js';
import { formatTime } from '../../lib/task/time.js';
import { idOf, useQueue } from '../harness/queue.js';
import { expectUnchanged } from '../harness/queue-state.js';

// engine.stats(): counts by state from the indexes, at one instant.

describe('engine.stats()', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('counts an empty queue as zeros, with no oldest task and no owners', async () => {
    const stats = await queue().engine().stats();
    expect(stats).toEqual({
      at: new Date('2023-10-20T00:00:00Z'),
      tasks: 0,
      claimable: 0,
      owned: 0,
      waiting: 0,
      due: 0,
      halted: 0,
      cronTemplates: 0,
      gateTemplates: 0,
      broadcast: 0,
      held: 0,
      pausedQueries: [],
      oldestClaimable: undefined,
      ownerCount: 0,
      owners: [],
      workers: 0,
      unmatched: { checked: 0, count: 0, ids: [] },
    });
  });

  it('counts each state from its index', async () => {
    const q = queue();
    const one = q.engine('one');
    const two = q.engine('two');
    // claimable: three plain tasks, one unicast task for `two`
    const first = await one.create({ meta: { k: 'a' } });
    q.clock.advance(1_000);
    await one.create({ meta: { k: 'b' } });
    await one.create({ meta: { k: 'c' } });
    await one.create({
      meta: { k: 'u' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'two' },
    });
    // waiting: two @exact tasks, one due in a minute, one in an hour
    await one.create({ cron: { [Label.Exact]: '2023-10-20T00:01:00Z' }, meta: { k: 'x1' } });
    await one.create({ cron: { [Label.Exact]: '2023-10-20T01:00:00Z' }, meta: { k: 'x2' } });
    // templates and broadcast
    await one.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'tpl' } });
    await one.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await one.create({ meta: { k: 'all' }, node: { [Label.Method]: Method.All } });

    expect(await one.stats()).toMatchObject({
      tasks: 9,
      claimable: 4,
      owned: 0,
      waiting: 2,
      due: 0,
      cronTemplates: 1,
      gateTemplates: 1,
      broadcast: 1,
      oldestClaimable: { id: idOf(first), ageMs: 1_000 },
    });

    // two claims by `one`, the unicast one by `two`
    expect(idOf(await one.search({ meta: { k: 'a' } }))).toBe(idOf(first));
    await one.search({ meta: { k: 'b' } });
    await two.search({ meta: { k: 'u' } });
    q.clock.set('2023-10-20T00:02:00Z'); // x1 is due, not promoted yet
    const stats = await one.stats();
    expect(stats).toMatchObject({
      claimable: 1,
      owned: 3,
      waiting: 2,
      due: 1,
      ownerCount: 2,
      owners: [
        { worker: 'one', tasks: 2 },
        { worker: 'two', tasks: 1 },
      ],
    });
    expect(stats.oldestClaimable?.ageMs).toBe(
      Date.parse('2023-10-20T00:02:00Z') - Date.parse('2023-10-20T00:00:01Z'),
    );
  });

  it('counts a task the circuit breaker holds as halted, not claimable', async () => {
    const q = queue();
    const one = q.engine('one', { expiry: 1_000 });
    await one.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'h' } });
    await one.search();
    q.clock.advance(2_000);
    await one.expire();
    expect(await one.stats()).toMatchObject({ tasks: 1, halted: 1, claimable: 0, owned: 0 });
  });

  it('finds the oldest claimable task among unicast targets too', async () => {
    const q = queue();
    const one = q.engine('one');
    const uni = (worker: string) => ({ [Label.Method]: Method.Uni, [Label.Worker]: worker });
    const oldest = await one.create({ meta: { k: '1' }, node: uni('zeta') });
    q.clock.advance(500);
    await one.create({ meta: { k: '2' }, node: uni('alpha') });
    await one.create({ meta: { k: '3' } });
    const stats = await one.stats();
    expect(stats.oldestClaimable).toEqual({ id: idOf(oldest), ageMs: 500 });
    expect(statsTargetSample).toBeGreaterThanOrEqual(2);
  });

  it('reads only: the queue is byte-identical afterwards', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.create({ meta: { k: 'a' } });
    await one.search();
    await one.create({
      cron: { [Label.Exact]: formatTime(new Date('2023-10-21T00:00:00Z')) },
      meta: { k: 'b' },
    });
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect((await one.stats()).tasks).toBe(2);
    });
  });

  it('rejects once the engine is closed', async () => {
    const engine: Engine = queue().engine();
    await engine.close();
    await expect(engine.stats()).rejects.toThrow('Engine.stats: the engine is closed');
  });
});
