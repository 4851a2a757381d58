import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { releaseTask } from '../../lib/engine/runtime.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { idOf, useQueue } from '../harness/queue.js';
import { signal, until, useWorkerQueue } from '../harness/worker.js';

// docs/semantics.md §3.15: concurrency caps for the whole queue and per
// value of a meta key, counted where ownership changes.

const TENANT = 'x.api.io/tenant';

describe('concurrency caps', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  async function owned(q: ReturnType<typeof queue>): Promise<Record<string, number>> {
    const engine = q.engine('reader');
    const caps = await engine.caps();
    const cap = caps.find((each) => each.key === TENANT);
    return cap?.values ?? {};
  }

  it('never hands out more tasks of one value than its cap to several engines at once', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3', 'e4'].map((name) => q.engine(name));
    expect(await engines[0]!.setCap({ key: TENANT, concurrency: 2 })).toBe(true);
    expect(await engines[1]!.setCap({ key: TENANT, concurrency: 2 })).toBe(false);
    for (let index = 0; index < 6; index++)
      await engines[0]!.create({ meta: { [TENANT]: 'hot', n: `${index}` } });
    await engines[0]!.create({ meta: { [TENANT]: 'cold' } });
    await engines[0]!.create({ meta: { other: 'uncapped' } });
    const claimed = (
      await Promise.all([...engines, ...engines].map((engine) => engine.search()))
    ).filter((task): task is Task => task !== undefined);
    const hot = claimed.filter((task) => task.meta?.[TENANT] === 'hot');
    expect(hot).toHaveLength(2);
    expect(claimed).toHaveLength(4); // 2 hot, cold, uncapped
    expect(await owned(q)).toEqual({ hot: 2, cold: 1 });
    const [cap] = await engines[0]!.caps();
    expect(cap).toEqual({ key: TENANT, concurrency: 2, owned: 3, values: { hot: 2, cold: 1 } });
  });

  it('caps the whole queue', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3'].map((name) => q.engine(name));
    for (let index = 0; index < 5; index++) await engines[0]!.create({ meta: { n: `${index}` } });
    const first = await engines[0]!.search(); // owned before the cap: counted
    expect(await engines[1]!.setCap({ concurrency: 3 })).toBe(true);
    const claimed = (
      await Promise.all([...engines, ...engines].map((engine) => engine.search()))
    ).filter((task) => task !== undefined);
    expect(claimed).toHaveLength(2);
    expect(await engines[0]!.caps()).toEqual([{ concurrency: 3, owned: 3, values: {} }]);
    await engines[0]!.delete(first!);
    expect(await engines[2]!.search()).toBeDefined();
    expect(await engines[2]!.search()).toBeUndefined();
  });

  it('does not block other values behind a full one (no head-of-line blocking)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    for (let index = 0; index < 300; index++) await eon.create({ meta: { [TENANT]: 'hot' } });
    await eon.create({ meta: { [TENANT]: 'other' } });
    const hot = await eon.search();
    expect(hot!.meta![TENANT]).toBe('hot');
    const other = await eon.search(); // walks past 299 tasks of a full value, over more than one step
    expect(other!.meta![TENANT]).toBe('other');
    expect(await eon.search()).toBeUndefined();
  });

  it('gives the slot back on complete, requeue, and expire after a killed worker', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    await eon.setCap({ key: TENANT, concurrency: 1 });
    for (let index = 0; index < 5; index++) await eon.create({ meta: { [TENANT]: 't' } });
    // complete
    let task = await eon.search();
    expect(await eon.search()).toBeUndefined();
    await eon.delete(task!);
    expect(await owned(q)).toEqual({});
    // requeue (a delete that pages)
    task = await eon.search();
    await eon.delete({ ...task!, sync: { ...task!.sync, [Label.Paging]: 'page-2' } });
    expect(await owned(q)).toEqual({});
    // a killed worker: expire revokes its lease
    const killed = q.engine('killed', { expiry: 1_000 });
    task = await killed.search();
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.expire();
    expect(await owned(q)).toEqual({});
    expect(await q.redis.hlen(q.key['cap-holders'])).toBe(0);
    task = await eon.search();
    expect(task).toBeDefined();
    await eon.delete(task!);
    expect(await owned(q)).toEqual({});
    expect(await q.redis.exists(q.key['cap-counts'], q.key['cap-holders'])).toBe(0);
  });

  it('gives the slot back on release, reset by cycles, cancel and operator remove', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    for (let index = 0; index < 5; index++) {
      await eon.create({ core: { [Label.Cancel]: '3' }, meta: { [TENANT]: 't', n: `${index}` } });
    }
    // release (the worker runtime gives a task back without a cycle)
    let task = await eon.search();
    expect(await eon.search()).toBeUndefined();
    expect(await releaseTask(eon, task!)).toBe(true);
    expect(await owned(q)).toEqual({});
    // reset by cycles: its owner removed
    task = await eon.search();
    await eon.cycles(task!);
    expect(await owned(q)).toEqual({});
    // cancel of a running task
    task = await eon.search();
    expect(await eon.cancel(idOf(task))).toBe(true);
    expect(await owned(q)).toEqual({});
    // an operator's remove of owned tasks
    task = await eon.search();
    expect(task).toBeDefined();
    const removed = await eon.removeTasks({ state: 'owned' });
    expect(removed.ids).toEqual([idOf(task)]);
    expect(await q.redis.hexists(q.key.tasks, idOf(task))).toBe(0);
    expect(await owned(q)).toEqual({});
    expect(await q.redis.exists(q.key['cap-counts'], q.key['cap-holders'])).toBe(0);
    expect(await eon.search()).toBeDefined();
  });

  it('changing a cap takes effect at the next claim; removing it frees the value', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    for (let index = 0; index < 4; index++) await eon.create({ meta: { [TENANT]: 't' } });
    expect(await eon.search()).toBeDefined();
    expect(await etw.search()).toBeUndefined();
    expect(await etw.setCap({ key: TENANT, concurrency: 2 })).toBe(true);
    expect(await etw.search()).toBeDefined();
    expect(await etw.search()).toBeUndefined();
    expect(await eon.removeCap(TENANT)).toBe(true);
    expect(await eon.removeCap(TENANT)).toBe(false);
    expect(await eon.caps()).toEqual([]);
    expect(await q.redis.exists(q.key.caps, q.key['cap-counts'], q.key['cap-holders'])).toBe(0);
    expect(await etw.search()).toBeDefined();
    // declared again: the owned tasks take their slots
    await eon.setCap({ key: TENANT, concurrency: 3 });
    expect(await owned(q)).toEqual({ t: 3 });
    expect(await etw.search()).toBeUndefined();
  });

  it('rejects bad caps with a typed error and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const bad: unknown[] = [
      undefined,
      null,
      { key: TENANT },
      { key: TENANT, concurrency: 0 },
      { key: TENANT, concurrency: 1.5 },
      { key: TENANT, concurrency: '2' },
      { key: '', concurrency: 2 },
      { key: 'x.io/*', concurrency: 2 },
      { key: 3, concurrency: 2 },
      { key: TENANT, concurrency: 2, extra: 1 },
      { concurrency: 2_000_000 },
    ];
    for (const cap of bad) {
      await expect(eon.setCap(cap as Parameters<typeof eon.setCap>[0])).rejects.toThrow(/setCap/);
    }
    await expect(eon.setCap({ key: TENANT, concurrency: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(eon.setCap({ key: '', concurrency: 1 })).rejects.toBeInstanceOf(TypeError);
    await expect(eon.removeCap('')).rejects.toBeInstanceOf(TypeError);
    expect(await q.redis.exists(q.key.caps)).toBe(0);
    expect(await q.redis.hexists(q.key.features, 'caps')).toBe(0);
  });

  it('repair keeps the caps and counts the owned tasks anew', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setCap({ key: TENANT, concurrency: 2 });
    for (let index = 0; index < 4; index++) await eon.create({ meta: { [TENANT]: 't' } });
    await eon.search();
    await eon.search();
    await eon.repair();
    expect(await owned(q)).toEqual({ t: 2 });
    expect(await eon.search()).toBeUndefined();
  });
});

describe('concurrency caps with workers', () => {
  const queue = useWorkerQueue();

  it('runs at most the cap of one tenant at once across workers while the others flow', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    await eon.setCap({ key: TENANT, concurrency: 2 });
    const running: Record<string, number> = {};
    const most: Record<string, number> = {};
    const done: string[] = [];
    const gate = signal();
    const handler = {
      filter: (task: Task) => task.meta?.[TENANT] !== undefined,
      ensure: async (task: Task) => {
        const tenant = task.meta![TENANT]!;
        running[tenant] = (running[tenant] ?? 0) + 1;
        most[tenant] = Math.max(most[tenant] ?? 0, running[tenant]);
        if (tenant === 'hot') await gate.promise;
        running[tenant]--;
        done.push(tenant);
      },
    };
    // a poll a minute away: only a wake-up explains a claim once a slot frees
    const workers = [
      queue().worker(eon, [handler], { pollInterval: 60_000, concurrency: 3 }),
      queue().worker(etw, [handler], { pollInterval: 60_000, concurrency: 3 }),
    ];
    for (let index = 0; index < 6; index++) await eon.create({ meta: { [TENANT]: 'hot' } });
    for (let index = 0; index < 4; index++) await eon.create({ meta: { [TENANT]: 'cold' } });
    await Promise.all(workers.map((worker) => worker.start()));
    await until(
      () => done.filter((tenant) => tenant === 'cold').length === 4,
      3_000,
      'the cold tenant done',
    );
    expect(most['hot']).toBe(2);
    gate.resolve();
    await until(() => done.length === 10, 5_000, 'every task done');
    expect(most['hot']).toBe(2);
    expect(await queue().redis.exists(queue().key['cap-counts'], queue().key['cap-holders'])).toBe(
      0,
    );
  });

  it('gives the slot back when a failed attempt is retried later, so the next task of the value runs', async () => {
    const eon = queue().live('eon');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    const runs: string[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: () => true,
          ensure: (task: Task) => {
            runs.push(task.meta!['n']!);
            return task.meta!['n'] === 'fails'
              ? Promise.reject(new Error('flaky'))
              : Promise.resolve();
          },
        },
      ],
      { pollInterval: 60_000, concurrency: 2 },
    );
    const failing = await eon.create({
      core: { [Label.Retry]: 'fixed 1 hour x 2' },
      meta: { [TENANT]: 't', n: 'fails' },
    });
    await eon.create({ meta: { [TENANT]: 't', n: 'next' } });
    await worker.start();
    await until(() => runs.length === 2, 3_000, 'the retried task waiting, the next one run');
    expect(runs).toEqual(['fails', 'next']);
    expect((await eon.status(idOf(failing)))?.state).toBe('waiting');
    expect(await queue().redis.exists(queue().key['cap-counts'], queue().key['cap-holders'])).toBe(
      0,
    );
  });

  it('wakes a parked slot when a slot of its value is given back', async () => {
    const eon = queue().live('eon');
    const manual = queue().live('manual');
    await eon.setCap({ key: TENANT, concurrency: 1 });
    await eon.create({ meta: { [TENANT]: 'hot', n: '1' } });
    await eon.create({ meta: { [TENANT]: 'hot', n: '2' } });
    const first = await manual.search();
    const started: string[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: () => true,
          ensure: (task: Task) => Promise.resolve(void started.push(task.meta!['n']!)),
        },
      ],
      { pollInterval: 60_000, concurrency: 1 },
    );
    await worker.start();
    await until(
      async () => (await queue().redis.hlen(queue().key['parked-slots'])) === 1,
      3_000,
      'the slot parked',
    );
    expect(started).toEqual([]);
    await manual.delete(first!);
    await until(() => started.length === 1, 3_000, 'the parked slot woken');
    expect(started).toEqual(['2']);
  });

  it('rescue caps lists, sets and removes caps', async () => {
    const engine = queue().live('one');
    const q = ['--queue', queue().name];
    expect((await rescue(['caps', ...q])).stdout).toContain('(none)');
    const set = await rescue(['caps', '--key', TENANT, '--set', '1', ...q]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`cap of ${TENANT}: 1`);
    expect(await rescueJson(['caps', '--set', '5', ...q])).toEqual({
      key: null,
      concurrency: 5,
      changed: true,
    });
    await engine.create({ meta: { [TENANT]: 'acme' } });
    await engine.search();
    expect(await rescueJson(['caps', ...q])).toEqual([
      { concurrency: 5, owned: 1, values: {} },
      { key: TENANT, concurrency: 1, owned: 1, values: { acme: 1 } },
    ]);
    expect((await rescue(['caps', ...q])).stdout).toMatch(/x\.api\.io\/tenant\s+1\s+1\s+acme/);
    // rescue stats: each cap, owned, values (at the cap), the fullest values
    const stats = (await rescue(['stats', ...q])).stdout;
    expect(stats).toMatch(/\(whole queue\)\s+5\s+1\s+-\s+-/);
    expect(stats).toMatch(/x\.api\.io\/tenant\s+1\s+1\s+1 \(1\)\s+acme=1/);
    expect((await rescue(['caps', '--set', '0', ...q])).code).toBe(2);
    expect((await rescue(['caps', '--key', TENANT, ...q])).code).toBe(2);
    expect((await rescue(['caps', '--key', TENANT, '--remove', ...q])).stdout).toContain('removed');
    expect((await rescue(['caps', '--remove', ...q])).stdout).toContain('removed');
    expect(await engine.caps()).toEqual([]);
  });
});
