import { releaseTask } from '../../lib/engine/runtime.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { countingClient, type CountingClient } from '../harness/counting.js';
import { createMany, idOf, useQueue, type TestQueue } from '../harness/queue.js';
import { signal, until, useWorkerQueue } from '../harness/worker.js';

// docs/semantics.md §3.17: a claimable task a claim may not take for a reason
// tied to a value (a full cap, a closed rate window) or to a paused query
// waits aside, out of the ready pools, and comes back when the reason ends:
// no claim walks past it.

const TENANT = 'x.api.io/tenant';
const START = '2023-10-20T00:00:00Z';

// the counting clients a test made, closed after it
const clients: CountingClient[] = [];
function counted(): CountingClient {
  const counting = countingClient();
  clients.push(counting);
  return counting;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((counting) => counting.client.quit()));
});

/** asideState: how many tasks wait aside, and how many `aside-of` entries the queue has. */
async function asideState(q: TestQueue): Promise<{ aside: number; marks: number }> {
  return {
    aside: Number(await q.redis.zcard(q.key.aside)),
    marks: Number(await q.redis.hlen(q.key['aside-of'])),
  };
}

/** hot creates `count` tasks of the hot tenant, `n` their index, in that order. */
async function hot(q: TestQueue, count: number, meta: Record<string, string> = {}): Promise<void> {
  await createMany(q, count, (n) => ({ meta: { [TENANT]: 'hot', n: `${n}`, ...meta } }));
}

describe('setting aside: caps and rate limits (lanes)', () => {
  const queue = useQueue(START);

  it('answers a claim of another value in one call behind 2,000 tasks of a full value (cap declared first)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    await hot(q, 2_000);
    await eon.create({ meta: { [TENANT]: 'cold' } });
    const first = await eon.search();
    expect(first!.meta![TENANT]).toBe('hot');
    const counting = counted();
    const other = q.engine('other', { redis: counting.client });
    const cold = await other.search();
    expect(cold!.meta![TENANT]).toBe('cold');
    expect(counting.scripts('search')).toBe(1);
    // the hot value keeps none of its tasks in the ready pools while it is full
    expect(Number(await q.redis.zcard(q.key.ready))).toBe(0);
    expect((await asideState(q)).aside).toBe(1_999);
    expect(await other.search()).toBeUndefined();
    expect(counting.scripts('search')).toBe(2);
  });

  it('sorts the tasks stored before the cap into lanes: no claim walks them (cap declared after)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await hot(q, 2_000);
    await eon.create({ meta: { [TENANT]: 'cold' } });
    const held = await eon.search({ meta: { [TENANT]: 'hot' } });
    expect(held).toBeDefined();
    expect(await eon.setCap({ key: TENANT, concurrency: 1 })).toBe(true);
    const counting = counted();
    const other = q.engine('other', { redis: counting.client });
    expect((await other.search())!.meta![TENANT]).toBe('cold');
    expect(counting.scripts('search')).toBe(1);
    // the slot given back lets the oldest waiting task of the value in, in order
    await eon.delete(held!);
    const next = await other.search();
    expect(next!.meta!['n']).toBe('1');
    expect(await other.search()).toBeUndefined();
  });

  it('keeps in the ready pools only as many tasks of a value as its cap leaves room for', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3', 'e4'].map((name) => q.engine(name));
    await engines[0]!.setCap({ key: TENANT, concurrency: 3 });
    await hot(q, 50);
    expect(Number(await q.redis.zcard(q.key.ready))).toBe(3);
    expect((await asideState(q)).aside).toBe(47);
    // concurrent claims of many engines never go past the cap, and each slot
    // given back lets the next one in, oldest first
    const done: string[] = [];
    let running = 0;
    let most = 0;
    await Promise.all(
      engines.map(async (engine) => {
        for (;;) {
          const task = await engine.search();
          if (task === undefined) {
            if (done.length === 50) return;
            await new Promise((resolve) => setTimeout(resolve, 1));
            continue;
          }
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 1));
          running--;
          done.push(task.meta!['n']!);
          await engine.delete(task);
        }
      }),
    );
    expect(most).toBeLessThanOrEqual(3);
    expect(done.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(await q.keys()).not.toContain(q.key.aside);
    expect(await q.redis.exists(q.key['aside-of'], q.key['lane-ready'], q.key['cap-counts'])).toBe(
      0,
    );
  });

  it('lets the next task in on every way ownership ends: delete, release, requeue, expire, cancel, cycles, remove', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    await eon.setCap({ key: TENANT, concurrency: 1 });
    for (let n = 0; n < 8; n++) {
      await eon.create({ core: { [Label.Cancel]: '9' }, meta: { [TENANT]: 't', n: `${n}` } });
    }
    const claim = async () => {
      const task = await eon.search();
      expect(task).toBeDefined();
      expect(await eon.search()).toBeUndefined();
      return task!;
    };
    // delete (completion)
    await eon.delete(await claim());
    // release (the worker runtime)
    expect(await releaseTask(eon, await claim())).toBe(true);
    // requeue: a delete that pages
    let task = await claim();
    await eon.delete({ ...task, sync: { ...task.sync, [Label.Paging]: 'page-2' } });
    // expire after a killed worker
    const killed = q.engine('killed', { expiry: 1_000 });
    task = (await killed.search())!;
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.expire();
    // cancel of the running task
    task = await claim();
    expect(await eon.cancel(idOf(task))).toBe(true);
    // cycles (reset of its owner)
    task = await claim();
    await eon.cycles(task);
    // an operator's remove
    task = await claim();
    await eon.delete({ ...task, core: { ...task.core, [Label.Bypass]: 'true' } });
    // what is left runs to the end
    for (;;) {
      const last = await eon.search();
      if (last === undefined) break;
      await eon.delete(last);
    }
    expect(await eon.stats()).toMatchObject({ tasks: 0, claimable: 0, owned: 0 });
    expect(await q.redis.exists(q.key.aside, q.key['aside-of'], q.key['lane-ready'])).toBe(0);
    expect(Number(await q.redis.zcard(q.key.retention))).toBe(0);
  });

  it('lets the tasks in when a cap is raised or removed', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    await hot(q, 300);
    const held = await eon.search();
    expect(await eon.search()).toBeUndefined();
    expect(await eon.setCap({ key: TENANT, concurrency: 3 })).toBe(true);
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeUndefined();
    expect(await eon.removeCap(TENANT)).toBe(true);
    // no lane left: every task is in the ready pools again, counted in none
    expect(Number(await q.redis.zcard(q.key.ready))).toBe(297);
    expect(await q.redis.exists(q.key.aside, q.key['aside-of'], q.key['lane-ready'])).toBe(0);
    await eon.delete(held!);
    let claimed = 0;
    while ((await eon.search()) !== undefined) claimed++;
    expect(claimed).toBe(297);
  });

  it('moves a lane’s tasks back in steps bounded by the step time too, and searches go on with the rest', async () => {
    const q = queue();
    // 1 µs: a script's refills stop after their first few tasks (include/pools.lua)
    const eon = q.engine('eon', { stepTime: 0.001 });
    await eon.setCap({ key: TENANT, concurrency: 1 });
    await hot(q, 300);
    const held = await eon.search();
    expect(await eon.setCap({ key: TENANT, concurrency: 200 })).toBe(true);
    // 64 a script by count alone: the clock cut the step after a few
    const back = Number(await q.redis.zcard(q.key.ready));
    expect(back).toBeGreaterThanOrEqual(8);
    expect(back).toBeLessThan(64);
    expect(await q.redis.zrange(q.key['aside-refill'], 0, -1)).toEqual([`${TENANT}\0hot`]);
    let claimed = 0;
    while ((await eon.search()) !== undefined) claimed++;
    expect(claimed).toBe(199); // the cap's room: searches brought the rest back
    await eon.delete(held!);
    expect(await eon.search()).toBeDefined();
  });

  it('lets the tasks of a closed rate window in when it reopens, as many as the limit', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setRateLimit({ key: TENANT, limit: '2 per minute' });
    await hot(q, 300);
    await eon.create({ meta: { [TENANT]: 'cold' } });
    expect(Number(await q.redis.zcard(q.key.ready))).toBe(3); // two hot, one cold
    const counting = counted();
    const other = q.engine('other', { redis: counting.client });
    const claimed = [await other.search(), await other.search(), await other.search()];
    expect(claimed.map((task) => task!.meta![TENANT])).toEqual(['hot', 'hot', 'cold']);
    expect(await other.search()).toBeUndefined();
    expect(counting.scripts('search')).toBe(4);
    q.clock.set('2023-10-20T00:01:00Z');
    const next = [await other.search(), await other.search(), await other.search()];
    expect(next.map((task) => task?.meta?.['n'])).toEqual(['2', '3', undefined]);
    // raising the limit lets more in at once; removing it, all
    expect(await eon.setRateLimit({ key: TENANT, limit: '5 per minute' })).toBe(true);
    expect(Number(await q.redis.zcard(q.key.ready))).toBe(3);
    expect(await eon.removeRateLimit(TENANT)).toBe(true);
    expect(Number(await q.redis.zcard(q.key.ready))).toBe(296);
    expect(await q.redis.exists(q.key.aside, q.key['aside-of'], q.key['lane-ready'])).toBe(0);
  });

  it('lets a filtered search find the tasks of a lane whose first tasks it does not match', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 2 });
    await hot(q, 20, { kind: 'a' });
    await eon.create({ meta: { [TENANT]: 'hot', kind: 'b' } });
    // two of kind a in the ready pools (the room); the kind b task waits aside
    const found = await eon.search({ meta: { kind: 'b' } });
    expect(found?.meta?.['kind']).toBe('b');
  });

  it('removes an aside task without a trace: delete, cancel, retention', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    const held = await eon.create({ meta: { [TENANT]: 't', n: 'held' } });
    const a = await eon.create({ meta: { [TENANT]: 't', n: 'a' } });
    const b = await eon.create({ meta: { [TENANT]: 't', n: 'b' } });
    const c = await eon.create({ meta: { [TENANT]: 't', n: 'c' } });
    const claimed = await eon.search();
    expect(idOf(claimed)).toBe(idOf(held));
    expect(await asideState(q)).toEqual({ aside: 3, marks: 3 }); // the value is full: no room
    expect(await eon.cancel(idOf(b))).toBe(true);
    await eon.delete({ ...c, core: { ...c.core, [Label.Bypass]: 'true' } });
    expect(await asideState(q)).toEqual({ aside: 1, marks: 1 });
    await eon.delete(claimed!);
    const next = await eon.search();
    expect(idOf(next)).toBe(idOf(a));
    await eon.delete(next!);
    await eon.removeCap(TENANT);
    expect(await q.redis.exists(q.key.aside, q.key['aside-of'], q.key['lane-ready'])).toBe(0);
    expect(await q.redis.zcard(q.key.retention)).toBe(0);
    // retention removes tasks aside as it removes the others
    await eon.setCap({ key: TENANT, concurrency: 1 });
    for (let n = 0; n < 3; n++) await eon.create({ meta: { [TENANT]: 'old', n: `${n}` } });
    const old = await eon.search();
    q.clock.set('2023-10-30T00:00:00Z');
    const expiring = q.engine('expiring', { cleanup: 3_600_000 });
    await expiring.expire();
    expect(await eon.stats()).toMatchObject({ tasks: 0 });
    expect(old).toBeDefined();
    await eon.removeCap(TENANT);
    expect(
      await q.redis.exists(q.key.aside, q.key['aside-of'], q.key['lane-ready'], q.key.ready),
    ).toBe(0);
  });

  it('keeps a queue with tasks aside consistent across repair()', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    await eon.pause({ meta: { kind: 'paused' } });
    await hot(q, 30);
    await eon.create({ meta: { kind: 'paused' } });
    await eon.create({ meta: { [TENANT]: 'cold' } });
    const held = await eon.search();
    expect(held!.meta![TENANT]).toBe('hot');
    await eon.repair();
    expect((await eon.stats()).pausedQueries).toHaveLength(1);
    expect((await eon.search())!.meta![TENANT]).toBe('cold');
    expect(await eon.search()).toBeUndefined();
    // (repair indexes the records in no order: a task indexed before the
    // owned one may join its pool; the walk sets it aside)
    expect(Number(await q.redis.zcard(q.key.aside))).toBe(30); // 29 hot, the paused one
    await eon.delete(held!);
    expect((await eon.search())!.meta!['n']).toBe('1');
    expect(await eon.resume({ meta: { kind: 'paused' } })).toBe(true);
    // the paused task is claimable again (the hot tenant stays full)
    expect((await eon.search())?.meta?.['kind']).toBe('paused');
    expect(await eon.search()).toBeUndefined();
  });
});

describe('pause by query', () => {
  const queue = useQueue(START);

  it('hands out no task the query matches to any engine; the others flow; resume gives them back', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3'].map((name) => q.engine(name));
    for (let n = 0; n < 500; n++) {
      await engines[0]!.create({ meta: { kind: n % 5 === 0 ? 'b' : 'mail', n: `${n}` } });
    }
    expect(await engines[0]!.pause({ meta: { kind: 'mail' } })).toBe(true);
    expect(await engines[1]!.pause({ meta: { kind: 'mail' } })).toBe(false);
    expect(Number(await q.redis.zcard(q.key.aside))).toBe(400);
    // a task of the query created while paused goes aside at once
    await engines[2]!.create({ meta: { kind: 'mail', n: 'late' } });
    const counting = counted();
    const other = q.engine('other', { redis: counting.client });
    const claimed: Task[] = [];
    for (;;) {
      const batch = await Promise.all(
        [...engines, other].map(async (engine) => {
          const task = await engine.search();
          if (task !== undefined) await engine.delete(task);
          return task;
        }),
      );
      const found = batch.filter((task): task is Task => task !== undefined);
      if (found.length === 0) break;
      claimed.push(...found);
    }
    expect(claimed).toHaveLength(100);
    expect(claimed.every((task) => task.meta!['kind'] === 'b')).toBe(true);
    // one call a search: nothing walked past the paused tasks
    expect(counting.scripts('search')).toBeLessThanOrEqual(claimed.length / 4 + 2);
    const stats = await engines[0]!.stats();
    expect(stats.pausedQueries).toEqual([
      { query: { meta: { kind: 'mail' } }, since: new Date(START), tasks: 401 },
    ]);
    expect(stats.claimable).toBe(401);
    // listed as claimable
    const listed = await engines[0]!.tasks({ state: 'claimable', query: { meta: { n: 'late' } } });
    expect(listed.tasks).toHaveLength(1);
    expect(await engines[1]!.resume({ meta: { kind: 'mail' } })).toBe(true);
    expect(await engines[1]!.resume({ meta: { kind: 'mail' } })).toBe(false);
    expect((await engines[0]!.stats()).pausedQueries).toEqual([]);
    let back = 0;
    while ((await engines[2]!.search()) !== undefined) back++;
    expect(back).toBe(401);
    expect(await q.redis.exists(q.key.aside, q.key['aside-of'], q.key['paused-queries'])).toBe(0);
  });

  it('pauses unicast, due and requeued tasks of the query, and lets owned ones finish', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const running = await eon.create({ meta: { kind: 'mail', n: 'running' } });
    const owned = await eon.search();
    expect(idOf(owned)).toBe(idOf(running));
    await eon.create({
      meta: { kind: 'mail', n: 'uni' },
      node: { [Label.Method]: 'uni', [Label.Worker]: 'eon' },
    });
    await eon.create({
      meta: { kind: 'mail', n: 'due' },
      cron: { [Label.Exact]: '2023-10-20T00:00:30Z' },
    });
    await eon.pause({ meta: { kind: 'mail' } });
    // the owned task runs on and completes; a requeue of it waits aside
    await eon.extend(owned!);
    await eon.delete({ ...owned!, sync: { ...owned!.sync, [Label.Paging]: 'page-2' } });
    q.clock.set('2023-10-20T00:01:00Z');
    expect(await eon.search()).toBeUndefined();
    expect(Number(await q.redis.zcard(q.key.aside))).toBe(3);
    expect((await eon.stats()).pausedQueries[0]!.tasks).toBe(3);
    await eon.resume({ meta: { kind: 'mail' } });
    const back: string[] = [];
    for (;;) {
      const task = await eon.search();
      if (task === undefined) break;
      back.push(task.meta!['n']!);
      await eon.delete({ ...task, sync: {} }); // (the requeued one pages no more)
    }
    expect(back.sort()).toEqual(['due', 'running', 'uni']);
  });

  it('rejects a bad query and more than 32 paused queries, writing nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await expect(eon.pause({})).rejects.toThrow();
    await expect(eon.pause('mail' as unknown as Task)).rejects.toThrow();
    for (let n = 0; n < 32; n++) expect(await eon.pause({ meta: { kind: `k${n}` } })).toBe(true);
    await expect(eon.pause({ meta: { kind: 'k32' } })).rejects.toThrow(RangeError);
    expect(Number(await q.redis.hlen(q.key['paused-queries']))).toBe(32);
    for (let n = 0; n < 32; n++) expect(await eon.resume({ meta: { kind: `k${n}` } })).toBe(true);
    expect(await q.redis.exists(q.key['paused-queries'])).toBe(0);
  });
});

describe('pause by query with workers', () => {
  const queue = useWorkerQueue();

  it('lets running tasks finish, runs the others at full speed, and wakes parked slots on resume', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    const release = signal();
    const started: string[] = [];
    const handler = {
      filter: () => true,
      ensure: async (claimed: Task) => {
        started.push(claimed.meta!['n']!);
        if (claimed.meta!['n'] === 'm0') await release.promise;
      },
    };
    // a poll a minute away: only a wake-up explains a claim after resume
    const workers = [
      queue().worker(eon, [handler], { pollInterval: 60_000, concurrency: 2 }),
      queue().worker(etw, [handler], { pollInterval: 60_000, concurrency: 2 }),
    ];
    await eon.create({ meta: { kind: 'mail', n: 'm0' } });
    await workers[0]!.start();
    await until(() => started.length === 1, 3_000, 'the first mail running');
    await eon.pause({ meta: { kind: 'mail' } });
    for (let n = 1; n <= 5; n++) await eon.create({ meta: { kind: 'mail', n: `m${n}` } });
    for (let n = 0; n < 5; n++) await eon.create({ meta: { kind: 'sms', n: `s${n}` } });
    await workers[1]!.start();
    await until(() => started.length === 6, 3_000, 'the sms tasks run');
    expect(started.slice(1).sort()).toEqual(['s0', 's1', 's2', 's3', 's4']);
    release.resolve();
    await until(
      async () => (await queue().redis.hlen(queue().key['parked-slots'])) === 4,
      3_000,
      'every slot parked',
    );
    expect(started.filter((n) => n.startsWith('m'))).toEqual(['m0']);
    expect((await etw.stats()).owned).toBe(0);
    await etw.resume({ meta: { kind: 'mail' } });
    await until(() => started.length === 11, 3_000, 'the paused mail claimed after resume');
    expect(started.filter((n) => n.startsWith('m')).sort()).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
    ]);
  });

  it('rescue pause and resume take a label query; stats shows it', async () => {
    const engine = queue().live('one');
    await engine.create({ meta: { kind: 'mail' } });
    await engine.create({ meta: { kind: 'sms' } });
    const q = ['--queue', queue().name];
    const paused = await rescue(['pause', ...q, '--meta', 'kind=mail']);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain('{"meta":{"kind":"mail"}} paused');
    expect((await rescue(['pause', ...q, '--meta', 'kind=mail'])).stdout).toContain(
      'was paused already',
    );
    expect((await rescue(['stats', ...q])).stdout).toMatch(
      /^paused query\s+\{"meta":\{"kind":"mail"\}\} since \S+ {2}\(1 task aside\)$/m,
    );
    const stats = await rescueJson<{ pausedQueries: { query: Task; tasks: number }[] }>([
      'stats',
      ...q,
    ]);
    expect(stats.pausedQueries).toMatchObject([{ query: { meta: { kind: 'mail' } }, tasks: 1 }]);
    expect((await engine.search())?.meta).toEqual({ kind: 'sms' });
    expect(await engine.search()).toBeUndefined();
    expect(await rescueJson(['resume', ...q, '--query', '{"meta":{"kind":"mail"}}'])).toEqual({
      paused: false,
      changed: true,
      query: { meta: { kind: 'mail' } },
    });
    expect((await engine.search())?.meta).toEqual({ kind: 'mail' });
  });

  it('runs at most the cap of a hot tenant across workers while every other tenant flows', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    await eon.setCap({ key: TENANT, concurrency: 2 });
    const running: Record<string, number> = {};
    let most = 0;
    const done: string[] = [];
    const handler = {
      filter: () => true,
      ensure: async (task: Task) => {
        const tenant = task.meta![TENANT]!;
        running[tenant] = (running[tenant] ?? 0) + 1;
        if (tenant === 'hot') most = Math.max(most, running[tenant]);
        await new Promise((resolve) => setTimeout(resolve, tenant === 'hot' ? 5 : 0));
        running[tenant]--;
        done.push(tenant);
      },
    };
    const workers = [
      queue().worker(eon, [handler], { pollInterval: 60_000, concurrency: 4 }),
      queue().worker(etw, [handler], { pollInterval: 60_000, concurrency: 4 }),
    ];
    for (let n = 0; n < 60; n++) await eon.create({ meta: { [TENANT]: 'hot', n: `${n}` } });
    for (let n = 0; n < 20; n++) await eon.create({ meta: { [TENANT]: `t${n}` } });
    await Promise.all(workers.map((worker) => worker.start()));
    await until(() => done.length === 80, 10_000, 'every task done');
    expect(most).toBe(2);
    // the other tenants did not wait for the hot one
    expect(done.slice(0, 30).filter((tenant) => tenant !== 'hot').length).toBe(20);
    // a handler is done before its completion reaches Redis: the workers
    // stop once their last completions are written
    await Promise.all(workers.map((worker) => worker.stop()));
    expect(
      await queue().redis.exists(
        queue().key.aside,
        queue().key['aside-of'],
        queue().key['lane-ready'],
        queue().key['cap-counts'],
      ),
    ).toBe(0);
  });
});
