import { readFileSync } from 'node:fs';
import { assembleScript } from '../../lib/engine/lua/loader.js';
import { deleteThenSearch, filterList } from '../../lib/engine/runtime.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { countingClient } from '../harness/counting.js';
import { createMany, idOf, useQueue } from '../harness/queue.js';

// stepTime: each loop of a script that walks the queue also stops once the
// call has run that long, and the next step goes on where it stopped. An
// engine with a stepTime of 1 µs cuts every such loop after its first unit of
// work: it answers what an engine with counts alone answers (stepTime 0), in
// more steps. The clock itself is include/step.lua.

const queue = useQueue('2023-10-20T00:00:00Z');
/** 1 µs: every loop stops after its first unit of work. */
const tiny = 0.001;

describe('the step clock (include/step.lua)', () => {
  const clockScript = readFileSync(new URL('../lua/step-clock.lua', import.meta.url), 'utf8');

  it('says the time is spent once the step time has passed since the first question', async () => {
    const q = queue();
    const script = assembleScript('step-clock', clockScript, { sharded: false, stepMicros: 3000 });
    const [asked, micros] = (await q.redis.eval(script.source, 0, 1_000_000)) as number[];
    expect(micros).toBeGreaterThanOrEqual(3000);
    expect(asked).toBeGreaterThan(1);
    expect(asked).toBeLessThan(1_000_000);
  });

  it('never says so with a step time of 0', async () => {
    const q = queue();
    const script = assembleScript('step-clock', clockScript, { sharded: false, stepMicros: 0 });
    const [asked] = (await q.redis.eval(script.source, 0, 5_000)) as number[];
    expect(asked).toBe(5_000);
  });
});

describe('an engine whose steps are cut by time', () => {
  it('finds the only matching task behind 600 others, in more steps than counts alone take', async () => {
    const q = queue();
    await createMany(q, 600, (index) => ({ meta: { kind: 'a', n: String(index) } }));
    const wanted = await q.engine('producer').create({ meta: { kind: 'b' } });
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      expect(idOf(await eon.search({ meta: { kind: 'b' } }))).toBe(idOf(wanted));
      // counts alone: a walk of 256, then the pool filled 512 entries a step (3)
      expect(counting.scripts('search')).toBeGreaterThan(3);
      counting.reset();
      expect(await eon.search({ meta: { kind: 'b' } })).toBeUndefined();
      expect(counting.scripts('search')).toBe(1); // the pool is complete: a lookup
    } finally {
      await counting.client.quit();
    }
  });

  it('promotes due tasks a few a step and still hands every one out, oldest first', async () => {
    const q = queue();
    await createMany(q, 250, (index) => ({
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { n: String(index) },
    }));
    q.clock.set('2023-10-20T00:00:10Z');
    const eon = q.engine('eon', { stepTime: tiny });
    expect((await eon.search())?.meta).toEqual({ n: '0' });
    // counts alone promote 100 in that search
    expect(await q.redis.zcard(q.key.waiting)).toBeGreaterThan(150);
    const order: string[] = [];
    for (let task = await eon.search(); task !== undefined; task = await eon.search())
      order.push(task.meta?.['n'] ?? '');
    expect(order).toEqual(Array.from({ length: 249 }, (_, index) => String(index + 1)));
    expect(await q.redis.exists(q.key.waiting)).toBe(0);
  });

  it('walks past broadcast tasks it never takes and still receives the one it matches', async () => {
    const q = queue();
    const all = { [Label.Method]: Method.All };
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      q.clock.advance(1);
      await createMany(q, 600, (index) => ({ meta: { kind: 'a', n: String(index) }, node: all }));
      await q.engine('producer').create({ meta: { kind: 'b' }, node: all });
      expect((await eon.search({ meta: { kind: 'b' } }))?.meta).toEqual({ kind: 'b' });
      // counts alone: 256 a step, so 3
      expect(counting.scripts('search')).toBeGreaterThan(3);
      counting.reset();
      expect(await eon.search({ meta: { kind: 'b' } })).toBeUndefined();
      expect(counting.scripts('search')).toBe(1);
      expect((await eon.search())?.meta).toEqual({ kind: 'a', n: '0' });
    } finally {
      await counting.client.quit();
    }
  });

  it('deletes the leaves of an obsolete root over more steps, and claims the witness', async () => {
    const q = queue();
    await createMany(q, 300, (index) => ({ meta: { n: String(index) }, root: { job: 'x' } }));
    const witness = await q.engine('producer').create({ meta: { job: 'x' } });
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      expect(idOf(await eon.search())).toBe(idOf(witness));
      // counts alone: 64 a step, so 5
      expect(counting.scripts('search')).toBeGreaterThan(5);
    } finally {
      await counting.client.quit();
    }
    expect(await q.redis.exists(q.key['root-leaves'], q.key.roots)).toBe(0);
    expect(await q.redis.hlen(q.key.tasks)).toBe(1);
  });

  it('finds the witness of a new root among the tasks stored before, over more steps', async () => {
    const q = queue();
    await createMany(q, 400, (index) => ({ meta: { kind: 'a', n: String(index) } }));
    const producer = q.engine('producer', { stepTime: tiny });
    // the root names `n` for the first time: a job lists the 400 tasks by it
    const leaf = await producer.create({ meta: { kind: 'leaf' }, root: { n: '399' } });
    expect(await q.redis.llen(q.key['root-jobs'])).toBeGreaterThan(0);
    const eon = q.engine('eon', { stepTime: tiny });
    const claimed: string[] = [];
    for (let task = await eon.search(); task !== undefined; task = await eon.search())
      claimed.push(idOf(task));
    expect(claimed).toHaveLength(400);
    expect(claimed).not.toContain(idOf(leaf));
    expect(await q.redis.hexists(q.key.tasks, idOf(leaf))).toBe(0);
  });

  it('lists and finds every record of a queue, in more steps', async () => {
    const q = queue();
    const created = await createMany(q, 700, (index) => ({ meta: { n: String(index) } }));
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      const listed = await eon.lister({ meta: { n: '*' } });
      expect(listed.map(idOf)).toEqual(created.map(idOf));
      // counts alone: 500 records a step, so 2
      expect(counting.scripts('scan')).toBeGreaterThan(2);
      expect(await eon.exists({ meta: { n: '699' } })).toBe(true);
      expect(await eon.exists({ meta: { n: 'none' } })).toBe(false);
    } finally {
      await counting.client.quit();
    }
  });

  it('reads every child of a template, in more steps', async () => {
    const q = queue();
    const producer = q.engine('producer');
    const template = await producer.create({ gate: { g: 'waiting' }, meta: { k: 't' } });
    const root = { [Label.Object]: idOf(template) };
    // each trigger that completes makes the gate template emit a child
    const triggers = await createMany(q, 300, () => ({ gate: { g: 'trigger' }, meta: { k: 'x' } }));
    for (let left = triggers.length; left > 0; left--)
      await producer.delete((await producer.search({ gate: { g: 'trigger' } }))!);
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      // no child matches: every child is read; counts alone: 500 a step, so 1
      expect(await eon.exists({ root, meta: { k: 'other' } })).toBe(false);
      expect(counting.scripts('scan')).toBeGreaterThan(1);
      // the last child read, marked behind the engine: found only by a scan
      // that resumed through every step
      const [last = ''] = await q.redis.zrevrangebylex(q.key.children, '+', '-');
      const childId = last.slice(-26);
      const record = JSON.parse((await q.redis.hget(q.key.tasks, childId)) ?? '{}') as Task;
      await q.redis.hset(q.key.tasks, childId, JSON.stringify({ ...record, meta: { k: 'last' } }));
      expect(await eon.exists({ root, meta: { k: 'last' } })).toBe(true);
    } finally {
      await counting.client.quit();
    }
  });

  it('deletes every task past retention and revokes every ended lease in one expire call, over more scripts', async () => {
    const q = queue();
    const past = await createMany(q, 300, (index) => ({ meta: { kind: 'old', n: String(index) } }));
    q.clock.set('2023-10-27T00:00:00.001Z'); // the 300 are past the default 7 days
    await createMany(q, 200, (index) => ({ meta: { kind: 'new', n: String(index) } }));
    const etw = q.engine('etw');
    for (let claimed = 0; claimed < 200; claimed++) await etw.search({ meta: { kind: 'new' } });
    q.clock.advance(31_000); // the leases (30 s) ended
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      await eon.expire();
      expect(counting.scripts('expire')).toBeGreaterThan(1); // counts alone: 1
    } finally {
      await counting.client.quit();
    }
    expect(await q.redis.hmget(q.key.tasks, ...past.map(idOf))).toEqual(past.map(() => null));
    expect(await q.redis.exists(q.key.leases)).toBe(0);
    const freed = await q.engine('eon').lister({ meta: { kind: 'new' } });
    expect(freed.map((task) => task.core?.[Label.Cycles])).toEqual(freed.map(() => '1'));
    expect(freed).toHaveLength(200);
  });

  it('deletes owned tasks past retention behind owned ones it keeps, going on where the last call stopped', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 1000 });
    // owned: three tasks with a cron map (kept), then two plain ones, all past retention
    await createMany(q, 3, (index) => ({
      cron: { foo: 'bar' },
      meta: { kind: 'cron', n: String(index) },
    }));
    const plain = await createMany(q, 2, (index) => ({
      meta: { kind: 'plain', n: String(index) },
    }));
    for (let claimed = 0; claimed < 5; claimed++) await eon.search();
    expect(await q.redis.zcard(q.key.owned)).toBe(5);
    q.clock.set('2023-10-20T00:00:01.001Z');
    const counting = countingClient();
    try {
      const cut = q.engine('etw', { redis: counting.client, stepTime: tiny, cleanup: 1000 });
      await cut.expire();
      expect(counting.scripts('expire')).toBeGreaterThan(1); // counts alone: 1
    } finally {
      await counting.client.quit();
    }
    expect(await q.redis.hmget(q.key.tasks, ...plain.map(idOf))).toEqual([null, null]);
    expect(await q.redis.zcard(q.key.owned)).toBe(3);
  });

  it('completes folded completions over more calls, each claiming the next task in order', async () => {
    const q = queue();
    const created = await createMany(q, 16, (index) => ({ meta: { n: String(index) } }));
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      const claimed = [];
      for (let index = 0; index < 8; index++) claimed.push(await eon.search());
      expect(claimed.map(idOf)).toEqual(created.slice(0, 8).map(idOf));
      counting.reset();
      const noFilters = filterList([]);
      const outcomes = await deleteThenSearch(
        eon,
        claimed.map((task) => ({ task: task as Task, filters: noFilters })),
      );
      // counts alone: one call; with 1 µs, each call ends at its first look at
      // the clock, after 4 entries (complete-claim.lua STEP_EVERY)
      expect(counting.scripts('completeClaim')).toBe(2);
      expect(outcomes.map((outcome) => outcome.deleted)).toEqual(claimed.map(() => true));
      expect(outcomes.map((outcome) => (outcome.deleted ? idOf(outcome.next) : ''))).toEqual(
        created.slice(8, 16).map(idOf),
      );
      expect(await q.redis.hmget(q.key.tasks, ...claimed.map(idOf))).toEqual(
        claimed.map(() => null),
      );
    } finally {
      await counting.client.quit();
    }
  });

  it('fills a page of engine.tasks() up to its limit over several scripts', async () => {
    const q = queue();
    const created = await createMany(q, 130, (index) => ({ meta: { n: String(index) } }));
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: tiny });
      const first = await eon.tasks({ state: 'claimable', limit: 100 });
      expect(first.tasks.map(idOf)).toEqual(created.slice(0, 100).map(idOf));
      expect(counting.scripts('page')).toBeGreaterThan(1); // counts alone: 1
      const second = await eon.tasks({ state: 'claimable', limit: 100, cursor: first.cursor });
      expect(second.tasks.map(idOf)).toEqual(created.slice(100).map(idOf));
      expect(second.cursor).toBeUndefined();
    } finally {
      await counting.client.quit();
    }
  });
});
