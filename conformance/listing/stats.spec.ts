import { Label, Method } from '../../lib/task/label.js';
import type { Engine } from '../../lib/engine/engine.js';
import type { Task } from '../../lib/task/task.js';
import { releaseTask } from '../../lib/engine/runtime.js';
import { statsFlowBudget, statsFlowValues, statsTargetSample } from '../../lib/engine/stats.js';
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
      caps: [],
      rateLimits: [],
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

  // docs/semantics.md §3.14, §3.15, §3.16: flow control, as stats() reads it
  it('says since when the queue is paused', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.pause();
    q.clock.advance(5_000);
    expect((await one.stats()).paused).toEqual(new Date('2023-10-20T00:00:00Z'));
    await one.resume();
    expect((await one.stats()).paused).toBeUndefined();
  });

  it('reports the caps with their owned counts, the fullest values first', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.setCap({ concurrency: 10 });
    await one.setCap({ key: 'tenant', concurrency: 2 });
    for (const tenant of ['hot', 'hot', 'hot', 'cold', 'warm', 'warm'])
      await one.create({ meta: { tenant } });
    await one.create({ meta: { k: 'no tenant' } });
    while ((await one.search()) !== undefined);
    const { caps, owned } = await one.stats();
    expect(owned).toBe(6); // hot 2 (one left claimable), cold 1, warm 2, no tenant 1
    expect(caps).toEqual([
      { concurrency: 10, owned: 6, valueCount: 0, full: 0, values: [], exact: true },
      {
        key: 'tenant',
        concurrency: 2,
        owned: 5,
        valueCount: 3,
        full: 2,
        values: [
          { value: 'hot', owned: 2 },
          { value: 'warm', owned: 2 },
          { value: 'cold', owned: 1 },
        ],
        exact: true,
      },
    ]);
    await one.setCap({ concurrency: 6 });
    expect((await one.stats()).caps[0]).toMatchObject({ owned: 6, full: 1 });
  });

  it('names at most statsFlowValues values of a cap, and counts them all', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.setCap({ key: 'tenant', concurrency: 1 });
    const many = statsFlowValues + 5;
    for (let index = 0; index < many; index++)
      await one.create({ meta: { tenant: `t${String(index).padStart(2, '0')}` } });
    while ((await one.search()) !== undefined);
    const [cap] = (await one.stats()).caps;
    expect(cap).toMatchObject({ owned: many, valueCount: many, full: many, exact: true });
    expect(cap?.values).toHaveLength(statsFlowValues);
    expect(cap?.values[0]).toEqual({ value: 't00', owned: 1 });
  });

  it('reads statsFlowBudget cap counts at most, and says so', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.setCap({ key: 'tenant', concurrency: 3 });
    // more counted values than stats() reads (as if that many were owned)
    const fields: string[] = [];
    for (let index = 0; index < statsFlowBudget + 300; index++)
      fields.push(`tenant\0v${index}`, index % 2 === 0 ? '3' : '1');
    await q.redis.hset(q.key['cap-counts'], ...fields);
    const [cap] = (await one.stats()).caps;
    expect(cap?.exact).toBe(false);
    expect(cap?.valueCount).toBeGreaterThanOrEqual(statsFlowBudget);
    expect(cap?.valueCount).toBeLessThan(statsFlowBudget + 100);
    expect(cap?.values).toHaveLength(statsFlowValues);
    expect(cap?.values.every((value) => value.owned === 3)).toBe(true);
    await q.redis.del(q.key['cap-counts']);
  });

  it('reports the rate limits with the claims of their current windows, and holds', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.setRateLimit({ limit: '10 per minute' });
    await one.setRateLimit({ key: 'tenant', limit: '2 per 10 seconds' });
    for (const tenant of ['hot', 'hot', 'hot', 'cold']) await one.create({ meta: { tenant } });
    const claimed: Task[] = [];
    for (let task = await one.search(); task !== undefined; task = await one.search())
      claimed.push(task);
    expect(claimed).toHaveLength(3); // the third hot one waits for the next window
    q.clock.advance(1_000);
    const { rateLimits } = await one.stats();
    expect(rateLimits).toEqual([
      {
        limit: '10 per minute',
        claims: 10,
        windowMs: 60_000,
        counted: 3,
        valueCount: 1,
        closed: 0,
        values: [
          { value: '', claims: 3, reopensAt: new Date('2023-10-20T00:01:00Z'), held: false },
        ],
        exact: true,
      },
      {
        key: 'tenant',
        limit: '2 per 10 seconds',
        claims: 2,
        windowMs: 10_000,
        counted: 3,
        valueCount: 2,
        closed: 1,
        values: [
          { value: 'hot', claims: 2, reopensAt: new Date('2023-10-20T00:00:10Z'), held: false },
          { value: 'cold', claims: 1, reopensAt: new Date('2023-10-20T00:00:10Z'), held: false },
        ],
        exact: true,
      },
    ]);
    // a hold of context.rateLimit on the cold value; windows that ended are not counted
    const cold = claimed.find((task) => task.meta?.['tenant'] === 'cold');
    expect(await releaseTask(one, cold as Task, undefined, 30_000)).toBe(true);
    q.clock.set('2023-10-20T00:00:12Z');
    const [, tenant] = (await one.stats()).rateLimits;
    expect(tenant).toMatchObject({ counted: 0, valueCount: 1, closed: 1 });
    expect(tenant?.values).toEqual([
      { value: 'cold', claims: 0, reopensAt: new Date('2023-10-20T00:00:31Z'), held: true },
    ]);
    // the hold outlives the limit: the key stays listed, without a limit
    await one.removeRateLimit('tenant');
    expect((await one.stats()).rateLimits[1]).toEqual({
      key: 'tenant',
      counted: 0,
      valueCount: 1,
      closed: 1,
      values: [
        { value: 'cold', claims: 0, reopensAt: new Date('2023-10-20T00:00:31Z'), held: true },
      ],
      exact: true,
    });
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
    await one.setCap({ key: 'k', concurrency: 1 });
    await one.setRateLimit({ key: 'k', limit: '5 per minute' });
    await one.create({ meta: { k: 'c' } });
    await one.search({ meta: { k: 'c' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      const stats = await one.stats();
      expect(stats.tasks).toBe(3);
      expect(stats.caps).toHaveLength(1);
      expect(stats.rateLimits).toHaveLength(1);
    });
  });

  it('rejects once the engine is closed', async () => {
    const engine: Engine = queue().engine();
    await engine.close();
    await expect(engine.stats()).rejects.toThrow('Engine.stats: the engine is closed');
  });
});
