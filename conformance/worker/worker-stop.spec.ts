import { Redis } from 'ioredis';
import { Engine } from '../../lib/engine/engine.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { formatTime } from '../../lib/task/time.js';
import { startRedisServer } from '../../lib/testing/redis-server.js';
import { Worker } from '../../lib/worker/worker.js';
import {
  aborted,
  idOf,
  signal,
  stored,
  until,
  useWorkerQueue,
  within,
  resolved,
} from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

describe('Worker.stop()', () => {
  const queue = useWorkerQueue();

  it('waits for running ensures, without aborting their signals, and completes their tasks', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const release = signal();
    const order: string[] = [];
    const signals: AbortSignal[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('slow'),
          ensure: async (task, context) => {
            signals.push(context.signal);
            await release.promise;
            order.push(`ensure ${task.meta?.['n']} done`);
          },
        },
      ],
      { concurrency: 3 },
    );
    worker.on('task:ensured', (task) => order.push(`ensured ${task.meta?.['n']}`));
    await worker.start();
    const a = await eon.create({ meta: { kind: 'slow', n: '1' } });
    const b = await eon.create({ meta: { kind: 'slow', n: '2' } });
    await until(() => signals.length === 2, 3_000, 'two ensures running');

    const stopping = worker.stop().then(() => order.push('stopped'));
    // a few round trips to Redis: stop() must still be waiting
    for (let n = 0; n < 5; n++) await queue().redis.ping();
    expect(order).toEqual([]);
    // the idle third slot takes no new work while stopping
    const late = await eon.create({ meta: { kind: 'slow', n: '3' } });
    for (let n = 0; n < 5; n++) await queue().redis.ping();
    release.resolve();
    await within(stopping, 3_000, 'stop resolved');

    expect(order.indexOf('stopped')).toBe(order.length - 1);
    expect(order.filter((entry) => entry.startsWith('ensured')).sort()).toEqual([
      'ensured 1',
      'ensured 2',
    ]);
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    expect(await stored(eon, idOf(a))).toBeUndefined();
    expect(await stored(eon, idOf(b))).toBeUndefined();
    const left = await stored(eon, idOf(late));
    expect(left?.core?.[Label.Worker]).toBeUndefined();
    expect(signals).toHaveLength(2);
  });

  it('aborts the signals of running ensures when stopTimeout runs out, then resolves', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const started = signal();
    let reason: unknown;
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('endless'),
          ensure: async (_task, context) => {
            started.resolve();
            reason = await aborted(context.signal);
            throw reason;
          },
        },
      ],
      { stopTimeout: 50 },
    );
    await worker.start();
    const created = await eon.create({ meta: { kind: 'endless' } });
    await within(started.promise, 3_000, 'ensure started');
    await within(worker.stop(), 3_000, 'stop resolved');

    expect(reason).toBeInstanceOf(Error);
    const { failed, ensured, lost } = queue().log(worker);
    expect(failed.map(({ task }) => idOf(task))).toEqual([idOf(created)]);
    expect(ensured).toEqual([]);
    expect(lost).toEqual([]); // stopping is not losing the task
    // cut short by stop(): given back at once, without a cycle, for another worker
    const left = await stored(eon, idOf(created));
    expect(left?.core?.[Label.Worker]).toBeUndefined();
    expect(left?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('gives back, and does not delete, a task whose ensure resolved after stopTimeout aborted its signal', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const started = signal();
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('endless'),
          ensure: async (_task, context) => {
            started.resolve();
            await aborted(context.signal); // honours the signal by returning early: the work is not done
          },
        },
      ],
      { stopTimeout: 50 },
    );
    await worker.start();
    const created = await eon.create({ meta: { kind: 'endless' } });
    await within(started.promise, 3_000, 'ensure started');
    await within(worker.stop(), 3_000, 'stop resolved');

    const left = await stored(eon, idOf(created));
    expect(left).toBeDefined();
    expect(left?.core?.[Label.Worker]).toBeUndefined();
    const { ensured, failed } = queue().log(worker);
    expect(ensured).toEqual([]);
    expect(failed.map(({ task, error }) => [idOf(task), (error as Error).message])).toEqual([
      [idOf(created), 'Worker.stop: the grace period ran out'],
    ]);
  });

  it('does not abort an ensure that finishes within stopTimeout', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const started = signal();
    const release = signal();
    let abortedAtEnd: boolean | undefined;
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (_task, context) => {
            started.resolve();
            await release.promise;
            abortedAtEnd = context.signal.aborted;
          },
        },
      ],
      { stopTimeout: 2_000 },
    );
    await worker.start();
    const created = await eon.create({ meta: { kind: 'a' } });
    await within(started.promise, 3_000, 'ensure started');
    const stopping = worker.stop();
    await queue().redis.ping();
    release.resolve();
    await within(stopping, 3_000, 'stop resolved');

    expect(abortedAtEnd).toBe(false);
    expect(queue().log(worker).ensured.map(idOf)).toEqual([idOf(created)]);
    expect(await stored(eon, idOf(created))).toBeUndefined();
  });

  it('gives back a task claimed in the completing step but not started, without counting a cycle', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const seen: string[] = [];
    const worker = queue().worker(eon, [
      { filter: kind('a'), ensure: (task) => resolved(seen.push(idOf(task))) },
    ]);
    const first = await eon.create({ meta: { kind: 'a', n: '1' } });
    const second = await eon.create({ meta: { kind: 'a', n: '2' } });
    let stopping: Promise<void> | undefined;
    // stop() from inside the first task:ensured: the slot has already claimed the second task
    worker.once('task:ensured', () => {
      stopping = worker.stop();
    });
    await worker.start();
    await until(() => stopping !== undefined, 3_000, 'first task ensured');
    await within(stopping!, 3_000, 'stop resolved');

    expect(seen).toEqual([idOf(first)]);
    const left = await stored(eon, idOf(second));
    expect(left).toBeDefined();
    expect(left?.core?.[Label.Worker]).toBeUndefined();
    expect(left?.core?.[Label.Expiry]).toBeUndefined();
    expect(left?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('resolves every call of stop(), and at once for a worker that was never started', async () => {
    const eon = queue().live('eon');
    const never = queue().worker(eon, []);
    await within(never.stop(), 1_000, 'stop of a worker never started');
    const worker = queue().worker(eon, []);
    await worker.start();
    await within(Promise.all([worker.stop(), worker.stop()]), 3_000, 'both stops resolved');
    expect(queue().log(worker).errors).toEqual([]);
  });

  it('takes no work after stop() resolved', async () => {
    const eon = queue().live('eon');
    const worker = queue().worker(eon, [{ filter: () => true, ensure: () => Promise.resolve() }]);
    await worker.start();
    await worker.stop();
    const created = await eon.create({ meta: { kind: 'a' } });
    // a second worker's search is answered only after anything the stopped worker could do
    const etw = queue().live('etw');
    const taker = queue().worker(etw, [{ filter: () => true, ensure: () => Promise.resolve() }]);
    await taker.start();
    await until(
      () => queue().log(taker).ensured.length === 1,
      3_000,
      'the running worker ensured it',
    );
    expect(idOf(queue().log(taker).ensured[0])).toBe(idOf(created));
    expect(queue().log(worker).ensured).toEqual([]);
  });

  it('keeps renewing the leases of the ensures it waits for, so nobody else takes them while it stops', async () => {
    // renewals come halfway through the lease: 600 ms leaves a late timer on a
    // loaded machine 300 ms before the other worker's expire may revoke it
    const expiry = 600;
    const eon = queue().live('eon', { expiry });
    const etw = queue().live('etw', { expiry });
    const started = signal<Task>();
    const renewals = new Set<string>();
    let stopCalled = false;
    const stopping = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: async (task) => {
          started.resolve(task);
          // run until stop() was called and the lease was renewed four times after it
          await until(
            async () => {
              const lease = (await stored(eon, idOf(task)))?.core?.[Label.Expiry];
              if (stopCalled && lease !== undefined) renewals.add(lease);
              return renewals.size >= 5;
            },
            6_000,
            'four renewals while stopping',
          );
        },
      },
    ]);
    const otherCalls: string[] = [];
    const other = queue().worker(
      etw,
      [{ filter: kind('a'), ensure: (task) => resolved(otherCalls.push(idOf(task))) }],
      { background: true, expireInterval: 25, pollInterval: 20 },
    );
    await stopping.start();
    const created = await eon.create({ meta: { kind: 'a' } });
    await within(started.promise, 3_000, 'ensure started');
    await other.start();
    stopCalled = true;
    await within(stopping.stop(), 6_500, 'stop resolved');

    expect(otherCalls).toEqual([]);
    expect(queue().log(stopping).ensured.map(idOf)).toEqual([idOf(created)]);
    expect(queue().log(stopping).lost).toEqual([]);
    expect(await stored(eon, idOf(created))).toBeUndefined();
  });
});

describe('Worker.stop() during a search', () => {
  it('gives back, without starting it, a task that a search under way when stop() was called claims', async () => {
    // a private server: CLIENT PAUSE would hold every other test's commands too
    const server = await startRedisServer({ env: {} });
    const admin = new Redis(server.url);
    const engine = new Engine({
      redis: { host: server.host, port: server.port, connectionName: 'stopping-worker' },
      queue: 'stop-during-search',
      worker: 'eon',
    });
    const started: Task[] = [];
    const worker = new Worker(
      engine,
      [{ filter: kind('a'), ensure: (task) => resolved(started.push(task)) }],
      { pollInterval: 60_000, background: false },
    );
    try {
      await worker.start();
      // the task becomes due in a moment: the idle worker searches then
      const due = new Date(Date.now() + 300);
      const created = await engine.create({
        cron: { [Label.Exact]: formatTime(due) },
        meta: { kind: 'a' },
      });
      await admin.client('PAUSE', 5_000, 'WRITE');
      await until(
        async () =>
          String(await admin.client('LIST'))
            .split('\n')
            .some((line) => line.includes('name=stopping-worker') && / flags=\S*b/.test(line)),
        3_000,
        "the worker's search held by the paused server",
      );
      const stopping = worker.stop();
      await admin.client('UNPAUSE');
      await within(stopping, 3_000, 'stop resolved');

      expect(started).toEqual([]);
      const [left] = await engine.lister({ meta: { kind: 'a' } });
      expect(left?.core?.[Label.Object]).toBe(idOf(created));
      expect(left?.core?.[Label.Worker]).toBeUndefined();
    } finally {
      await worker.stop();
      await engine.close();
      await admin.quit();
      await server.stop();
    }
  });
});
