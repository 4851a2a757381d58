import type { Engine } from '../../lib/engine/engine.js';
import { TaskCoreError } from '../../lib/errors.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { formatTime } from '../../lib/task/time.js';
import { deleteThenSearch, filterList } from '../../lib/engine/runtime.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';
import { next, useWorkerQueue } from '../harness/worker.js';

// docs/semantics.md §3.13: claims take the highest priority first, then the
// oldest; filtered pools, due tasks, requeues and revocations keep the order.

/** task: a task named `name`, with `priority` as its core label unless undefined. */
function task(name: string, priority?: number, meta: Record<string, string> = {}): Task {
  return {
    ...(priority === undefined ? {} : { core: { [Label.Priority]: String(priority) } }),
    meta: { name, ...meta },
  };
}

/** drain claims and completes tasks, the engines taking turns, until none is left. */
async function drain(engines: Engine[], filter?: Task): Promise<string[]> {
  const names: string[] = [];
  for (let turn = 0; ; turn++) {
    const engine = engines[turn % engines.length]!;
    const claimed = await engine.search(filter);
    if (claimed === undefined) return names;
    names.push(claimed.meta!['name']!);
    await engine.delete(claimed);
  }
}

describe('priorities', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('hands out the highest priority first, then the oldest, to engines taking turns', async () => {
    const q = queue();
    const engines = [q.engine('eon'), q.engine('etw'), q.engine('eth')];
    const created: [string, number | undefined][] = [
      ['a', undefined],
      ['b', 5],
      ['c', -3],
      ['d', 0],
      ['e', 5],
      ['f', 2147483647],
      ['g', -2147483648],
      ['h', undefined],
      ['i', -3],
      ['j', 1],
    ];
    for (const [name, priority] of created) await engines[0]!.create(task(name, priority));
    expect(await drain(engines)).toEqual(['f', 'b', 'e', 'j', 'a', 'd', 'h', 'c', 'i', 'g']);
    expect(await q.redis.exists(q.key['ready-prio'])).toBe(0);
  });

  it('gives concurrent claims of many engines the highest priorities first', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3'].map((worker) => q.engine(worker));
    const priorities = [0, 9, -1, 3, 7, 0, 5, 1, -4];
    for (const [index, priority] of priorities.entries()) {
      await engines[0]!.create(task(`t${index}`, priority));
    }
    const round = async () =>
      (await Promise.all(engines.map((engine) => engine.search())))
        .map((claimed) => Number(claimed?.core?.[Label.Priority] ?? '0'))
        .sort((a, b) => b - a);
    expect(await round()).toEqual([9, 7, 5]);
    expect(await round()).toEqual([3, 1, 0]);
    expect(await round()).toEqual([0, -1, -4]);
  });

  it('orders the tasks of a createMany chunk, with and without priorities, as single creates', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.createMany([task('a'), task('b', 2), task('c', -2), task('d', 0), task('e', 2)]);
    await eon.createMany([task('f'), task('g')]);
    expect(await drain([eon])).toEqual(['b', 'e', 'a', 'd', 'f', 'g', 'c']);
  });

  it('puts a task whose stored priority something else rewrote where its record says, once a search meets it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const moved = await eon.create(task('moved', 5));
    await eon.create(task('plain'));
    const record = await q.redis.hget(q.key.tasks, idOf(moved));
    await q.redis.hset(q.key.tasks, idOf(moved), record!.replace('"5"', '"-5"'));
    expect(await drain([eon])).toEqual(['plain', 'moved']);
    expect(await q.redis.exists(q.key['ready-prio'])).toBe(0);
  });

  it('treats priority 0 as no priority: it waits in `ready` with the others, oldest first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('a'));
    await eon.create(task('b', 0));
    await eon.create(task('c'));
    expect(await q.redis.zcard(q.key.ready)).toBe(3);
    expect(await q.redis.exists(q.key['ready-prio'])).toBe(0);
    expect(await q.redis.hexists(q.key.features, 'ready-prio')).toBe(0);
    expect(await drain([eon])).toEqual(['a', 'b', 'c']);
  });

  it('keeps the order in a filter pool, filled or joined', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const mail = { meta: { kind: 'mail' } };
    for (let n = 0; n < 70; n++)
      await eon.create(task(`other${n}`, n % 2 === 0 ? 0 : -1, { kind: 'other' }));
    // a walk that passes 64 tasks without a match gives the filter a pool
    expect(await eon.search(mail)).toBeUndefined();
    await eon.search(mail); // fills it
    const [filterId] = await q.redis.hkeys(q.key['filter-pools']);
    expect(await q.redis.hget(q.key['filter-pools'], filterId!)).toBe('');

    // joined as they are created
    await eon.create(task('m1', undefined, { kind: 'mail' }));
    await eon.create(task('m2', 4, { kind: 'mail' }));
    await eon.create(task('m3', -2, { kind: 'mail' }));
    await eon.create(task('m4', 4, { kind: 'mail' }));
    await eon.create(task('m5', 9, { kind: 'mail' }));
    const members = await q.redis.zrangebylex(q.key['ready-filtered'], '-', '+');
    expect(members).toHaveLength(5);
    expect(await drain([eon, etw], mail)).toEqual(['m5', 'm2', 'm4', 'm1', 'm3']);

    // filled from every pool, `ready-prio` included, when the pool starts again
    await eon.create(task('n1', undefined, { kind: 'mail' }));
    await eon.create(task('n2', -7, { kind: 'mail' }));
    await eon.create(task('n3', 6, { kind: 'mail' }));
    await q.redis.del(q.key['ready-filtered']);
    await q.redis.hset(q.key['filter-pools'], filterId!, 'a');
    expect(await drain([etw, eon], mail)).toEqual(['n3', 'n1', 'n2']);
    expect(await q.redis.hget(q.key['filter-pools'], filterId!)).toBe('');
  });

  it('keeps the order when a filter walks the pools', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('a', -1, { kind: 'x' }));
    await eon.create(task('b', undefined, { kind: 'y' }));
    await eon.create(task('c', 2, { kind: 'y' }));
    await eon.create(task('d', undefined, { kind: 'x' }));
    await eon.create(task('e', 2, { kind: 'x' }));
    expect(await drain([eon], { meta: { kind: 'x' } })).toEqual(['e', 'd', 'a']);
    expect(await drain([eon])).toEqual(['c', 'b']);
  });

  it('puts due @exact tasks in their place by priority when they are promoted', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const at = formatTime(new Date('2023-10-20T00:01:00Z'));
    await eon.create(task('plain'));
    await eon.create({ ...task('exact-high', 5), cron: { [Label.Exact]: at } });
    await eon.create({ ...task('exact-none'), cron: { [Label.Exact]: at } });
    await eon.create({ ...task('exact-low', -5), cron: { [Label.Exact]: at } });
    await eon.create(task('plain-low', -1));
    await eon.create({ ...task('exact-high-2', 5), cron: { [Label.Exact]: at } });
    expect(await drain([eon, etw])).toEqual(['plain', 'plain-low']);
    await eon.create(task('plain-2'));
    await eon.create(task('plain-low-2', -1));
    q.clock.set('2023-10-20T00:01:00Z');
    expect(await drain([etw, eon])).toEqual([
      'exact-high',
      'exact-high-2',
      'exact-none',
      'plain-2',
      'plain-low-2',
      'exact-low',
    ]);
  });

  it('keeps a task its priority across a requeue and a deferral', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('high', 3));
    await eon.create(task('a'));
    const paged = await eon.search();
    expect(paged?.meta?.['name']).toBe('high');
    paged!.sync = { [Label.Paging]: '1' };
    await eon.delete(paged!);
    await eon.create(task('b'));
    const again = await eon.search();
    expect(again?.meta?.['name']).toBe('high');
    expect(again?.core?.[Label.Cycles]).toBe('1');
    again!.cron = { [Label.Defer]: 'minute' };
    await eon.delete(again!);
    expect(await eon.search().then((claimed) => claimed?.meta?.['name'])).toBe('a');
    q.clock.set('2023-10-20T00:02:00Z');
    expect(await drain([eon])).toEqual(['high', 'b']);
  });

  it('claims a deferred task of a priority first once it falls due, in a worker’s completion too', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('high', 3));
    const high = await eon.search();
    high!.cron = { [Label.Defer]: 'minute' };
    await eon.delete(high!);
    for (const name of ['a', 'b']) await eon.create(task(name));
    const a = await eon.search();
    expect(a?.meta?.['name']).toBe('a');
    q.clock.set('2023-10-20T00:02:00Z');
    // the completion's claim reads the queue's features before the search
    // promotes the due task into `ready-prio`
    const [outcome] = await deleteThenSearch(eon, [{ task: a!, filters: filterList([]) }]);
    expect(outcome?.deleted && outcome.next?.meta?.['name']).toBe('high');
  });

  it('gives a revoked task back its place by priority (expire)', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const etw = q.engine('etw', { expiry: 1_000 });
    await eon.create(task('old'));
    await eon.create(task('urgent', 8));
    await eon.create(task('low', -8));
    const claimed = await eon.search();
    expect(claimed?.meta?.['name']).toBe('urgent');
    q.clock.advance(2_000);
    await etw.expire();
    await eon.create(task('new'));
    const revoked = await etw.search();
    expect(idOf(revoked)).toBe(idOf(claimed));
    expect(revoked?.core?.[Label.Cycles]).toBe('1');
    await etw.delete(revoked!);
    expect(await drain([eon, etw])).toEqual(['old', 'new', 'low']);
  });

  it('keeps the order after repair() indexed the records anew', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('a'));
    await eon.create(task('b', -1));
    await eon.create(task('c', 1));
    await eon.repair();
    expect(await q.redis.hget(q.key.features, 'ready-prio')).toBe('1');
    expect(await drain([eon])).toEqual(['c', 'a', 'b']);
  });

  it("gives a cron template's priority to its children", async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ ...task('template', 4), cron: { [Label.Every]: 'minute' } });
    await eon.create(task('plain'));
    q.clock.set('2023-10-20T00:01:00Z');
    await eon.ticker();
    const child = await eon.search();
    expect(child?.meta?.['name']).toBe('template');
    expect(child?.core?.[Label.Priority]).toBe('4');
  });

  it('counts tasks with a priority in stats() and lists them as claimable', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('a', 2));
    await eon.create(task('b'));
    await eon.create(task('c', -2));
    const stats = await eon.stats();
    expect(stats.claimable).toBe(3);
    const page = await eon.tasks({ state: 'claimable' });
    expect(page.tasks.map((listed) => listed.meta?.['name']).sort()).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['a fraction', '1.5'],
    ['a leading zero', '01'],
    ['a plus sign', '+1'],
    ['minus zero', '-0'],
    ['empty', ''],
    ['a word', 'high'],
    ['above 2147483647', '2147483648'],
    ['below -2147483648', '-2147483649'],
    ['blanks', ' 1'],
  ])('rejects a priority that is %s, writing nothing', async (_what, value) => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create(task('kept', 1));
    await expectUnchanged(q.redis, q.prefix, async () => {
      const created = eon.create({ core: { [Label.Priority]: value }, meta: { name: 'x' } });
      await expect(created).rejects.toBeInstanceOf(TaskCoreError);
      await expect(created).rejects.toThrow(
        /task\.rescue\.io\/priority.*-2147483648 to 2147483647/,
      );
      const many = eon.createMany([
        task('y'),
        { core: { [Label.Priority]: value }, meta: { name: 'z' } },
      ]);
      await expect(many).rejects.toBeInstanceOf(TaskCoreError);
    });
  });
});

describe('priorities with workers', () => {
  const queue = useWorkerQueue();

  it('lets a worker (complete-and-claim) take the tasks in priority order', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    const order: string[] = [];
    for (const [name, priority] of [
      ['a', 0],
      ['b', undefined],
      ['c', 3],
      ['d', -1],
      ['e', 3],
      ['f', 10],
    ] as const) {
      await etw.create(task(name, priority, { kind: 'job' }));
    }
    const worker = queue().worker(
      eon,
      [
        {
          filter: (claimed) => has(claimed.meta, { kind: 'job' }),
          ensure: (claimed) => {
            order.push(claimed.meta!['name']!);
            return Promise.resolve();
          },
        },
      ],
      { concurrency: 1 },
    );
    const done = new Promise<void>((resolve) => {
      worker.on('task:ensured', () => {
        if (order.length === 6) resolve();
      });
    });
    await worker.start();
    await done;
    expect(order).toEqual(['f', 'c', 'e', 'a', 'b', 'd']);
  });

  it('wakes a parked slot at once for a task with a priority', async () => {
    const eon = queue().live('eon');
    const worker = queue().worker(eon, [{ filter: () => true, ensure: () => Promise.resolve() }], {
      pollInterval: 60_000,
    });
    await worker.start();
    const first = next(worker, 'task:ensured', 3_000);
    await eon.create(task('plain'));
    await first; // the slot searched and found no more: it is parked
    const ensured = next(worker, 'task:ensured', 3_000);
    const created = await eon.create(task('urgent', 100));
    const [handled] = await ensured;
    expect(idOf(handled)).toBe(idOf(created));
  });
});
