import { contextOf } from '../../lib/engine/context-registry.js';
import { addObserver } from '../../lib/engine/observe.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { idOf, useQueue } from '../harness/queue.js';
import { next, signal, until, useWorkerQueue } from '../harness/worker.js';

// docs/semantics.md §3.14: a paused queue hands out no task; running tasks
// finish; resume wakes the parked slots.

describe('pause and resume', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('hands out no task to any engine while paused, and every task again after resume', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ core: { [Label.Priority]: '3' }, meta: { name: 'b' } });
    expect(await etw.pause()).toBe(true);
    expect(await eon.pause()).toBe(false);
    await eon.create({ meta: { name: 'c' } }); // creates go on
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search({ meta: { name: 'a' } })).toBeUndefined();
    const stats = await eon.stats();
    expect(stats.paused).toEqual(new Date('2023-10-20T00:00:00Z'));
    expect(stats.claimable).toBe(3);
    expect(await eon.resume()).toBe(true);
    expect(await etw.resume()).toBe(false);
    expect((await eon.stats()).paused).toBeUndefined();
    expect(await q.redis.hexists(q.key.features, 'paused')).toBe(0);
    const names: string[] = [];
    for (const engine of [eon, etw, eon]) {
      const claimed = await engine.search();
      names.push(claimed!.meta!['name']!);
      await engine.delete(claimed!);
    }
    expect(names).toEqual(['b', 'a', 'c']);
  });

  it('lets owned tasks finish and their leases run while paused', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    const claimed = await eon.search();
    await eon.pause();
    await eon.extend(claimed!);
    await eon.delete(claimed!);
    expect(await q.redis.hexists(q.key.tasks, idOf(claimed))).toBe(0);
    expect(await eon.search()).toBeUndefined();
    expect((await eon.stats()).claimable).toBe(1);
  });

  it('delivers no broadcast and no due task while paused; expire and ticker go on', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const late = q.engine('late'); // started at :00: it gets the broadcast tasks created later
    q.clock.set('2023-10-20T00:00:01Z');
    await eon.create({ meta: { name: 'owned' } });
    const owned = await eon.search();
    await eon.create({ meta: { name: 'all' }, node: { [Label.Method]: Method.All } });
    await eon.create({ meta: { name: 'exact' }, cron: { [Label.Exact]: '2023-10-20T00:00:30Z' } });
    await eon.create({ meta: { name: 'template' }, cron: { [Label.Every]: 'minute' } });
    await eon.pause();
    q.clock.set('2023-10-20T00:01:00Z');
    await eon.expire(); // revokes the lease of `owned`
    await eon.ticker(); // emits a child of the template
    const record = JSON.parse((await q.redis.hget(q.key.tasks, idOf(owned)))!) as Task;
    expect(record.core).toEqual({ [Label.Cycles]: '1' });
    expect(await late.search()).toBeUndefined();
    expect(await eon.search()).toBeUndefined();
    await eon.resume();
    const names: string[] = [];
    for (;;) {
      const claimed = await late.search();
      if (claimed === undefined) break;
      names.push(claimed.meta!['name']!);
      if (claimed.node?.[Label.Method] !== Method.All) await late.delete(claimed);
    }
    expect(names.sort()).toEqual(['all', 'exact', 'owned', 'template']);
  });

  it('pauses a queue that holds nothing yet: its first tasks wait for resume', async () => {
    const q = queue();
    const eon = q.engine('eon');
    expect(await eon.pause()).toBe(true);
    await eon.create({ meta: { name: 'first' } });
    expect(await eon.search()).toBeUndefined();
    expect(await eon.resume()).toBe(true);
    expect((await eon.search())?.meta?.['name']).toBe('first');
  });

  it('keeps a pause across repair()', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await eon.pause();
    await eon.repair();
    expect(await eon.search()).toBeUndefined();
    expect((await eon.stats()).paused).toBeDefined();
    await eon.resume();
    expect((await eon.search())?.meta?.['name']).toBe('a');
  });
});

describe('pause and resume with workers', () => {
  const queue = useWorkerQueue();
  const job = (claimed: Task) => has(claimed.meta, { kind: 'job' });

  it('lets the running task finish, claims nothing more while paused, and wakes the idle slots on resume', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    const release = signal();
    const started: string[] = [];
    const handler = {
      filter: job,
      ensure: async (claimed: Task) => {
        started.push(claimed.meta!['n']!);
        if (claimed.meta!['n'] === '0') await release.promise;
      },
    };
    // a poll a minute away: only a wake-up explains a claim after resume
    const workers = [
      queue().worker(eon, [handler], { pollInterval: 60_000, concurrency: 1 }),
      queue().worker(etw, [handler], { pollInterval: 60_000, concurrency: 2 }),
    ];
    await eon.create({ meta: { kind: 'job', n: '0' } });
    await workers[0]!.start();
    await until(() => started.length === 1, 3_000, 'the first task running');
    await eon.pause();
    for (let n = 1; n <= 4; n++) await eon.create({ meta: { kind: 'job', n: String(n) } });
    await workers[1]!.start();
    const finished = next(workers[0]!, 'task:ensured', 3_000);
    release.resolve();
    await finished; // completed (the complete-and-claim path) while paused
    // every slot searched at least once since the pause and parked
    await until(
      async () => (await queue().redis.hlen(queue().key['parked-slots'])) === 3,
      3_000,
      'three idle slots parked',
    );
    expect(started).toEqual(['0']);
    const stats = await eon.stats();
    expect([stats.claimable, stats.owned]).toEqual([4, 0]);

    await etw.resume();
    await until(() => started.length === 5, 3_000, 'the four tasks claimed after resume');
    expect(started.slice(1).sort()).toEqual(['1', '2', '3', '4']);
  });

  it('wakes no parked slot while paused: neither a due task (no search loop) nor creates', async () => {
    const eon = queue().live('eon');
    let searches = 0;
    addObserver(contextOf(eon), {
      operation: (operation) => {
        if (operation === 'search' || operation === 'deleteSearch') searches++;
      },
    });
    const started: string[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: job,
          ensure: (claimed) => Promise.resolve(void started.push(claimed.meta!['n']!)),
        },
      ],
      { pollInterval: 60_000 },
    );
    await eon.pause();
    await worker.start();
    await until(
      async () => (await queue().redis.hlen(queue().key['parked-slots'])) === 1,
      3_000,
      'the slot parked',
    );
    const due = new Date(Date.now() + 50);
    await eon.create({
      meta: { kind: 'job', n: 'exact' },
      cron: { [Label.Exact]: due.toISOString() },
    });
    // creates while paused wake no slot
    for (let n = 0; n < 5; n++) await eon.create({ meta: { kind: 'job', n: String(n) } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started).toEqual([]);
    expect(searches).toBeLessThanOrEqual(3); // the first search, the wake at the due time: no loop
    await eon.resume();
    await until(() => started.length === 6, 3_000, 'the tasks claimed after resume');
  });

  it('rescue pause, stats and resume', async () => {
    const engine = queue().live('one');
    await engine.create({ meta: { kind: 'a' } });
    const q = ['--queue', queue().name];
    const paused = await rescue(['pause', ...q]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain('paused');
    expect((await rescue(['pause', ...q])).stdout).toContain('was paused already');
    expect(await engine.search()).toBeUndefined();
    const stats = await rescueJson<{ paused?: string }>(['stats', ...q]);
    expect(typeof stats.paused).toBe('string');
    expect((await rescue(['stats', ...q])).stdout).toMatch(/^paused\s+since /m);
    expect(await rescueJson(['resume', ...q])).toEqual({ paused: false, changed: true });
    expect((await rescue(['resume', ...q])).stdout).toContain('was not paused');
    expect((await engine.search())?.meta).toEqual({ kind: 'a' });
  });
});
