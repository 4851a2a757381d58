import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { countingClient } from '../harness/counting.js';
import { createMany, useQueue } from '../harness/queue.js';

// Bounded work: a search script promotes at most 100 due tasks and visits at
// most 256 candidates; a search that cannot decide within that takes several
// atomic steps, each resuming where the last stopped. What a search returns
// stays what docs/semantics.md §3.2 says. Tests that count steps run with stepTime
// 0 (counts alone); conformance/engine/step-time.spec.ts cuts steps by time.

const queue = useQueue('2023-10-20T00:00:00Z');

describe('due tasks join the pool in steps of at most 100 (docs/semantics.md §3.2 phase 2)', () => {
  it('promotes the earliest 100 per search, and counts the rest in n', async () => {
    const q = queue();
    await createMany(q, 250, (index) => ({
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { n: String(index) },
    }));
    q.clock.set('2023-10-20T00:00:10Z');
    const eon = q.engine('eon', { stepTime: 0 }); // counts alone: no step cut by time
    const first = await eon.search();
    expect(first?.meta).toEqual({ n: '0' });
    expect(await q.redis.zcard(q.key.waiting)).toBe(150);
    // n counts the 150 still waiting for promotion: etw's share is 125 of 250
    const etw = q.engine('etw');
    let claimed = 0;
    while ((await etw.search()) !== undefined) claimed++;
    expect(claimed).toBe(125);
  });

  it('finds a due task a filter wants beyond the first 100, in one search call', async () => {
    const q = queue();
    await createMany(q, 230, (index) => ({
      cron: {
        [Label.Exact]: `2023-10-20T00:00:${String(10 + Math.floor(index / 10)).padStart(2, '0')}Z`,
      },
      meta: { n: String(index) },
    }));
    q.clock.set('2023-10-20T00:01:00Z');
    const { client, scripts } = countingClient();
    try {
      const eon = q.engine('eon', { redis: client, stepTime: 0 });
      const found = await eon.search({ meta: { n: '229' } });
      expect(found?.meta).toEqual({ n: '229' });
      expect(scripts()).toBe(3); // 100, 100, then the last 30 promoted
    } finally {
      await client.quit();
    }
  });
});

describe('a filtered search visits at most 256 candidates per step', () => {
  it('finds the only matching task behind 600 others, over several steps of one call', async () => {
    const q = queue();
    await createMany(q, 600, (index) => ({ meta: { kind: 'a', n: String(index) } }));
    await q.engine('producer').create({ meta: { kind: 'b' } });
    const { client, scripts } = countingClient();
    try {
      const eon = q.engine('eon', { redis: client, stepTime: 0 });
      expect((await eon.search({ meta: { kind: 'b' } }))?.meta).toEqual({ kind: 'b' });
      // a walk of 256, then the filter's pool is filled 512 entries a step
      expect(scripts()).toBe(3);
      expect(await eon.search({ meta: { kind: 'b' } })).toBeUndefined();
      expect(scripts()).toBe(4);
    } finally {
      await client.quit();
    }
  });

  it('walks unicast tasks for this worker in steps too, before the any tasks', async () => {
    const q = queue();
    const uni = { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' };
    await createMany(q, 300, (index) => ({ meta: { kind: 'a', n: String(index) }, node: uni }));
    await q.engine('producer').create({ meta: { kind: 'b', via: 'any' } });
    await q.engine('producer').create({ meta: { kind: 'b', via: 'uni' }, node: uni });
    const eon = q.engine('eon');
    expect((await eon.search({ meta: { kind: 'b' } }))?.meta).toEqual({ kind: 'b', via: 'uni' });
    expect((await eon.search({ meta: { kind: 'b' } }))?.meta).toEqual({ kind: 'b', via: 'any' });
  });
});

describe('a search checks each record against the pool it met it in', () => {
  it('never hands out a task whose record got an owner behind the engine, and counts it for that owner', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ meta: { k: 'x' } });
    const id = task.core?.[Label.Object] ?? '';
    const stored = JSON.parse((await q.redis.hget(q.key.tasks, id)) ?? '{}') as Task;
    stored.core = { [Label.Worker]: 'other', [Label.Expiry]: '2023-10-20T00:10:00Z' };
    await q.redis.hset(q.key.tasks, id, JSON.stringify(stored));

    expect(await eon.search()).toBeUndefined();
    expect(await q.redis.zscore(q.key.leases, id)).not.toBeNull();
    expect(await q.redis.hget(q.key.owners, 'other')).toBe('1');
    // the repaired lease has ended: expire revokes it and the task is offered again
    await eon.expire();
    expect((await eon.search())?.core?.[Label.Cycles]).toBe('1');
    expect(await q.redis.hget(q.key.owners, 'other')).toBeNull();
  });

  it('never hands out a task halted behind the engine', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'x' } });
    const id = task.core?.[Label.Object] ?? '';
    const stored = JSON.parse((await q.redis.hget(q.key.tasks, id)) ?? '{}') as Task;
    stored.core = { [Label.Cancel]: '1', [Label.Cycles]: '1' };
    await q.redis.hset(q.key.tasks, id, JSON.stringify(stored));
    expect(await eon.search()).toBeUndefined();
    expect(await q.redis.zscore(q.key.ready, id)).toBeNull();
  });

  it('leaves no phantom owner when an owner is removed from a record behind the engine', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'a' } });
    const claimed = await eon.search();
    const id = claimed?.core?.[Label.Object] ?? '';
    const stored = JSON.parse((await q.redis.hget(q.key.tasks, id)) ?? '{}') as Task;
    delete stored.core;
    await q.redis.hset(q.key.tasks, id, JSON.stringify(stored));
    q.clock.set('2023-10-20T00:00:31Z'); // after the lease end the index still holds
    await eon.expire();
    expect(await q.redis.hlen(q.key.owners)).toBe(0);
    // etw is alone among the owners: it may take every task
    for (let index = 0; index < 3; index++) await eon.create({ meta: { k: `b${index}` } });
    let claimedByEtw = 0;
    while ((await etw.search()) !== undefined) claimedByEtw++;
    expect(claimedByEtw).toBe(4);
  });
});
