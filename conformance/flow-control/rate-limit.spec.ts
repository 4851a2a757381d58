import { TaskCronError } from '../../lib/errors.js';
import { nextDueMs, releaseTask } from '../../lib/engine/runtime.js';
import { Label } from '../../lib/task/label.js';
import type { EnsureContext } from '../../lib/worker/handler.js';
import type { Task } from '../../lib/task/task.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { useQueue } from '../harness/queue.js';
import { until, useWorkerQueue } from '../harness/worker.js';

// docs/semantics.md §3.16: rate limits for the whole queue and per value of
// a meta key, counted at the claim in fixed windows of the engine's clock.

const TENANT = 'x.api.io/tenant';
const START = '2023-10-20T00:00:00Z';
const START_MS = Date.parse(START);

describe('rate limits', () => {
  const queue = useQueue(START);

  it('never hands out more claims of one value in a window than its limit, to several engines at once', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3', 'e4'].map((name) => q.engine(name));
    expect(await engines[0]!.setRateLimit({ key: TENANT, limit: '2 per minute' })).toBe(true);
    expect(await engines[1]!.setRateLimit({ key: TENANT, limit: '2 per minute' })).toBe(false);
    for (let index = 0; index < 6; index++)
      await engines[0]!.create({ meta: { [TENANT]: 'hot', n: `${index}` } });
    await engines[0]!.create({ meta: { [TENANT]: 'cold' } });
    await engines[0]!.create({ meta: { other: 'unlimited' } });
    const claimed = (
      await Promise.all([...engines, ...engines].map((engine) => engine.search()))
    ).filter((task): task is Task => task !== undefined);
    expect(claimed.filter((task) => task.meta?.[TENANT] === 'hot')).toHaveLength(2);
    expect(claimed).toHaveLength(4); // 2 hot, cold, unlimited
    // completing frees no claim: the window counts claims, not owned tasks
    await Promise.all(claimed.map((task, index) => engines[index % 4]!.delete(task)));
    expect(await engines[2]!.search()).toBeUndefined();
    // the slot is due when the window reopens (the next minute of the engine's clock)
    expect(nextDueMs(engines[2]!)).toBe(START_MS + 60_000);
    q.clock.set('2023-10-20T00:00:59.999Z');
    expect(await engines[2]!.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:01:00Z');
    const next = (await Promise.all(engines.map((engine) => engine.search()))).filter(
      (task) => task !== undefined,
    );
    expect(next).toHaveLength(2);
  });

  it('limits the whole queue', async () => {
    const q = queue();
    const engines = ['e1', 'e2', 'e3'].map((name) => q.engine(name));
    expect(await engines[0]!.setRateLimit({ limit: '3 per 10 seconds' })).toBe(true);
    for (let index = 0; index < 8; index++) await engines[0]!.create({ meta: { n: `${index}` } });
    const claimed = (
      await Promise.all([...engines, ...engines, ...engines].map((engine) => engine.search()))
    ).filter((task) => task !== undefined);
    expect(claimed).toHaveLength(3);
    expect(await engines[0]!.search()).toBeUndefined();
    expect(nextDueMs(engines[0]!)).toBe(START_MS + 10_000);
    q.clock.set('2023-10-20T00:00:10Z');
    const next = (
      await Promise.all([...engines, ...engines, ...engines].map((engine) => engine.search()))
    ).filter((task) => task !== undefined);
    expect(next).toHaveLength(3);
  });

  it('lets other values flow past a limited one (no head-of-line blocking)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setRateLimit({ key: TENANT, limit: '1 per hour' });
    for (let index = 0; index < 300; index++) await eon.create({ meta: { [TENANT]: 'hot' } });
    await eon.create({ meta: { [TENANT]: 'other' } });
    const hot = await eon.search();
    expect(hot!.meta![TENANT]).toBe('hot');
    const other = await eon.search(); // walks past 299 tasks of a limited value, over more than one step
    expect(other!.meta![TENANT]).toBe('other');
    expect(await eon.search()).toBeUndefined();
    expect(nextDueMs(eon)).toBe(START_MS + 3_600_000);
  });

  it('changes, lists and removes limits', async () => {
    const q = queue();
    const eon = q.engine('eon');
    expect(await eon.rateLimits()).toEqual([]);
    await eon.setRateLimit({ key: TENANT, limit: '1 per minute' });
    await eon.setRateLimit({ limit: '100 per second' });
    expect(await eon.rateLimits()).toEqual([
      { limit: '100 per second', claims: 100, windowMs: 1_000 },
      { key: TENANT, limit: '1 per minute', claims: 1, windowMs: 60_000 },
    ]);
    for (let index = 0; index < 4; index++) await eon.create({ meta: { [TENANT]: 't' } });
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeUndefined();
    // raised: the window's count stays, the new limit lets one more in
    expect(await eon.setRateLimit({ key: TENANT, limit: '2 per minute' })).toBe(true);
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeUndefined();
    expect(await eon.removeRateLimit(TENANT)).toBe(true);
    expect(await eon.removeRateLimit(TENANT)).toBe(false);
    expect(await eon.search()).toBeDefined();
    expect(await eon.removeRateLimit()).toBe(true);
    expect(await eon.rateLimits()).toEqual([]);
    expect(await q.redis.exists(q.key.rates)).toBe(0);
  });

  it('drops the whole queue’s open window with its limit, and a limit declared again starts from 0', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setRateLimit({ limit: '2 per hour' });
    for (let index = 0; index < 3; index++) await eon.create({ meta: { n: `${index}` } });
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeDefined();
    expect(await eon.search()).toBeUndefined();
    expect(await q.redis.hexists(q.key['rate-windows'], '')).toBe(1);
    expect(await eon.removeRateLimit()).toBe(true);
    expect(await q.redis.exists(q.key['rate-windows'], q.key['rate-expiry'])).toBe(0);
    await eon.setRateLimit({ limit: '2 per hour' });
    expect(await eon.search()).toBeDefined();
  });

  it('rejects bad limits with a typed error and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { [TENANT]: 't' } }); // the queue exists
    const before = await q.redis.hgetall(q.key.features);
    await expect(eon.setRateLimit({ limit: '100/minute' })).rejects.toThrow(
      new TaskCronError(
        '"100/minute": a rate is "N per unit" or "N per M units" (e.g. "100 per minute"): expected the limit N in digits first, got "100/minute"; did you mean "100 per minute"?',
      ),
    );
    await expect(eon.setRateLimit({ limit: '0 per minute' })).rejects.toThrow(TaskCronError);
    await expect(eon.setRateLimit({ limit: 100 } as unknown as { limit: string })).rejects.toThrow(
      TypeError,
    );
    await expect(eon.setRateLimit({ key: '', limit: '1 per second' })).rejects.toThrow(TypeError);
    await expect(
      eon.setRateLimit({ limit: '1 per second', every: 1 } as unknown as { limit: string }),
    ).rejects.toThrow(TypeError);
    await expect(eon.removeRateLimit('*')).rejects.toThrow(TypeError);
    expect(await q.redis.exists(q.key.rates, q.key['rate-windows'], q.key['rate-expiry'])).toBe(0);
    expect(await q.redis.hgetall(q.key.features)).toEqual(before);
  });

  it('holds the value of a released task for the time context.rateLimit asked, without a cycle', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.setRateLimit({ key: TENANT, limit: '100 per second' });
    await eon.create({ meta: { [TENANT]: 'remote', n: '1' } });
    await eon.create({ meta: { [TENANT]: 'remote', n: '2' } });
    await eon.create({ meta: { [TENANT]: 'elsewhere' } });
    const task = await eon.search();
    expect(task!.meta!['n']).toBe('1');
    expect(await releaseTask(eon, task!, undefined, 30_000)).toBe(true);
    const other = await eon.search();
    expect(other!.meta![TENANT]).toBe('elsewhere');
    expect(await eon.search()).toBeUndefined();
    expect(nextDueMs(eon)).toBe(START_MS + 30_000);
    q.clock.set('2023-10-20T00:00:30Z');
    const again = await eon.search();
    expect(again!.meta!['n']).toBe('1');
    expect(again!.core?.[Label.Cycles]).toBe(task!.core?.[Label.Cycles]);
  });

  it('holds the whole queue when no keyed limit applies to the released task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { n: '1' } });
    await eon.create({ meta: { n: '2' } });
    const task = await eon.search();
    expect(await releaseTask(eon, task!, undefined, 5_000)).toBe(true);
    expect(await eon.search()).toBeUndefined();
    expect(nextDueMs(eon)).toBe(START_MS + 5_000);
    q.clock.set('2023-10-20T00:00:05Z');
    expect(await eon.search()).toBeDefined();
  });
});

describe('rate limits with workers', () => {
  const queue = useWorkerQueue();

  it('wakes a parked slot when the window reopens, not by polling', async () => {
    const eon = queue().live('eon');
    await eon.setRateLimit({ key: TENANT, limit: '1 per second' });
    const started: number[] = [];
    const worker = queue().worker(
      eon,
      [{ filter: () => true, ensure: () => Promise.resolve(void started.push(Date.now())) }],
      { pollInterval: 60_000, concurrency: 1 },
    );
    await eon.create({ meta: { [TENANT]: 't' } });
    await eon.create({ meta: { [TENANT]: 't' } });
    await worker.start();
    await until(() => started.length === 2, 3_000, 'the second task once the window reopened');
    // the second claim falls in the next window of one second
    expect(Math.floor(started[1]! / 1_000)).toBeGreaterThan(Math.floor(started[0]! / 1_000) - 1);
  });

  it('never exceeds a limit with batched claims from two workers', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    await eon.setRateLimit({ key: TENANT, limit: '3 per hour' });
    const runs: string[] = [];
    const handler = {
      filter: () => true,
      ensure: (task: Task) => Promise.resolve(void runs.push(task.meta![TENANT] ?? 'cold')),
    };
    for (let index = 0; index < 10; index++) await eon.create({ meta: { [TENANT]: 'hot' } });
    // without the key: no limit counts them (a value 'cold' would have its own 3 per hour)
    for (let index = 0; index < 6; index++) await eon.create({ meta: { n: `${index}` } });
    const workers = [
      queue().worker(eon, [handler], { pollInterval: 60_000, concurrency: 16, batch: 16 }),
      queue().worker(etw, [handler], { pollInterval: 60_000, concurrency: 16, batch: 16 }),
    ];
    await Promise.all(workers.map((worker) => worker.start()));
    // the hot tasks are older: a limit that leaked would run them before the last cold one
    await until(
      () => runs.filter((tenant) => tenant === 'cold').length === 6,
      3_000,
      'every cold task',
    );
    expect(runs.filter((tenant) => tenant === 'hot')).toHaveLength(3);
  });

  it('context.rateLimit releases the task without a cycle and holds its value; other values flow', async () => {
    const eon = queue().live('eon');
    await eon.setRateLimit({ key: TENANT, limit: '1000 per second' });
    const runs: string[] = [];
    const limited: number[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: () => true,
          ensure: (task: Task, context: EnsureContext) => {
            const name = `${task.meta![TENANT]}${task.meta!['n']}`;
            runs.push(name);
            if (name === 'remote1' && runs.length === 1) {
              context.rateLimit(400);
              return Promise.reject(new Error('HTTP 429'));
            }
            return Promise.resolve();
          },
        },
      ],
      { pollInterval: 60_000, concurrency: 1 },
    );
    worker.on('task:rateLimited', (_task, { holdMs }) => limited.push(holdMs));
    const first = await eon.create({ meta: { [TENANT]: 'remote', n: '1' } });
    await eon.create({ meta: { [TENANT]: 'remote', n: '2' } });
    await eon.create({ meta: { [TENANT]: 'local', n: '1' } });
    await worker.start();
    await until(() => runs.length === 2, 3_000, 'the other value while remote is held');
    expect(runs).toEqual(['remote1', 'local1']);
    expect(limited).toEqual([400]);
    expect(queue().log(worker).failed).toEqual([]);
    // the hold ends by the clock: the parked slot is due then, no poll
    await until(() => runs.length === 4, 3_000, 'the held value once the hold ended');
    expect(runs).toEqual(['remote1', 'local1', 'remote1', 'remote2']);
    const outcome = await eon.status(first.core![Label.Object]!);
    expect(outcome?.state).toBe('completed');
  });

  it('context.rateLimit rejects a bad duration', async () => {
    const eon = queue().live('eon');
    const errors: unknown[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: () => true,
          ensure: (_task: Task, context: EnsureContext) => {
            for (const ms of [0, -1, Number.NaN, 2_592_000_001, '5' as unknown as number]) {
              try {
                context.rateLimit(ms);
              } catch (error) {
                errors.push(error);
              }
            }
            return Promise.resolve();
          },
        },
      ],
      { pollInterval: 60_000, concurrency: 1 },
    );
    await eon.create({ meta: { n: '1' } });
    await worker.start();
    await until(() => queue().log(worker).ensured.length === 1, 3_000, 'the task completed');
    expect(errors.map((error) => (error as Error).constructor)).toEqual([
      RangeError,
      RangeError,
      TypeError,
      RangeError,
      TypeError,
    ]);
  });

  it('rescue limits lists, sets and removes limits', async () => {
    const engine = queue().live('one');
    const q = ['--queue', queue().name];
    expect((await rescue(['limits', ...q])).stdout).toContain('(none)');
    const set = await rescue(['limits', '--key', TENANT, '--set', '10 per second', ...q]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`rate limit of ${TENANT}: 10 per second`);
    expect(await rescueJson(['limits', '--set', '1000 per minute', ...q])).toEqual({
      key: null,
      limit: '1000 per minute',
      changed: true,
    });
    expect(await rescueJson(['limits', ...q])).toEqual([
      { limit: '1000 per minute', claims: 1000, windowMs: 60_000 },
      { key: TENANT, limit: '10 per second', claims: 10, windowMs: 1_000 },
    ]);
    expect((await rescue(['limits', ...q])).stdout).toMatch(/x\.api\.io\/tenant\s+10 per second/);
    // the listing counts the claims of the current windows (of an hour: the
    // real clock does not end them while the test runs, but at the hour)
    await engine.setRateLimit({ limit: '1000 per hour' });
    await engine.setRateLimit({ key: TENANT, limit: '1 per hour' });
    await engine.create({ meta: { [TENANT]: 'acme' } });
    await engine.search();
    const listed = (await rescue(['limits', ...q])).stdout;
    expect(listed).toMatch(/\(whole queue\)\s+1000 per hour\s+1\s+-\s+1 \(reopens in/);
    expect(listed).toMatch(/x\.api\.io\/tenant\s+1 per hour\s+1\s+1 \(1\)\s+acme=1 \(reopens in/);
    expect((await rescue(['stats', ...q])).stdout).toMatch(/x\.api\.io\/tenant\s+1 per hour\s+1/);
    const bad = await rescue(['limits', '--set', '10/second', ...q]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('did you mean "10 per second"?');
    expect((await rescue(['limits', '--key', TENANT, ...q])).code).toBe(2);
    expect((await rescue(['limits', '--key', TENANT, '--remove', ...q])).stdout).toContain(
      'removed',
    );
    expect((await rescue(['limits', '--remove', ...q])).stdout).toContain('removed');
    expect(await engine.rateLimits()).toEqual([]);
  });
});
