import { watchChannel } from '../../lib/engine/keys.js';
import { TaskCoreError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { Worker } from '../../lib/worker/worker.js';
import { idOf, useQueue } from '../harness/queue.js';
import { channelSubscribers, monitorQueue, subscribeQueue } from '../harness/redis.js';
import { next, until } from '../harness/worker.js';

// Outcome records and engine.status(id): where a task stands while it is in
// the queue, and what became of it once it finished, for as long as the
// outcome is kept (outcomeRetention, outcomeLimit).

describe('engine.status', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('tells queued, owned (by whom, since, lease end), waiting (due) and template', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const plain = await eon.create({ meta: { k: 'plain' } });
    const exact = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T01:00:00Z' },
      meta: { k: 'exact' },
    });
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 't' } });

    expect(await eon.status(idOf(plain))).toEqual({
      id: idOf(plain),
      state: 'queued',
      task: plain,
    });
    expect(await eon.status(idOf(exact))).toMatchObject({
      state: 'waiting',
      dueAt: '2023-10-20T01:00:00Z',
    });
    expect(await eon.status(idOf(template))).toMatchObject({ state: 'template' });

    q.clock.set('2023-10-20T00:00:02Z');
    const claimed = await eon.search({ meta: { k: 'plain' } });
    expect(await eon.status(idOf(plain))).toEqual({
      id: idOf(plain),
      state: 'owned',
      task: claimed,
      worker: 'eon',
      since: '2023-10-20T00:00:02Z',
      leaseEnd: '2023-10-20T00:00:32Z',
    });
  });

  it('answers undefined for an id the queue does not know, and TaskCoreError for what is not an id', async () => {
    const eon = queue().engine('eon');
    expect(await eon.status('1697760001000-000000000042')).toBeUndefined();
    await expect(eon.status('nope')).rejects.toBeInstanceOf(TaskCoreError);
    await expect(eon.status(42 as unknown as string)).rejects.toBeInstanceOf(TaskCoreError);
  });

  it('keeps the outcome of a deleted task: completed, by whom, with cycles and times', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const task = await eon.create({ meta: { k: 'a' } });
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.search();
    q.clock.set('2023-10-20T00:00:03.5Z');
    await eon.expire(); // revoked: one cycle
    const again = await eon.search();
    q.clock.set('2023-10-20T00:00:04Z');
    await eon.delete(again as Task);
    expect(await eon.status(idOf(task))).toEqual({
      id: idOf(task),
      state: 'completed',
      outcome: {
        id: idOf(task),
        state: 'completed',
        worker: 'eon',
        cycles: 1,
        createdAt: '2023-10-20T00:00:01Z',
        endedAt: '2023-10-20T00:00:04Z',
        log: [],
        children: [],
      },
    });
  });

  it('does not record a requeue (paging) as an outcome', async () => {
    const eon = queue().engine('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const copy = (await eon.search()) as Task;
    copy.sync = { [Label.Paging]: '1' };
    await eon.delete(copy);
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'queued' });
  });

  it('drops an outcome once its retention passed, at the next expire', async () => {
    const q = queue();
    const eon = q.engine('eon', { outcomeRetention: 60_000 });
    const task = await eon.create({ meta: { k: 'a' } });
    await eon.delete((await eon.search()) as Task);
    q.clock.advance(60_000);
    await eon.expire();
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'completed' });
    q.clock.advance(1);
    await eon.expire();
    expect(await eon.status(idOf(task))).toBeUndefined();
    expect(await q.redis.exists(q.key.outcomes, q.key['outcome-expiry'])).toBe(0);
  });

  it('keeps no outcome with outcomeRetention 0, and still tells a listener', async () => {
    const q = queue();
    const eon = q.engine('eon', { outcomeRetention: 0 });
    const task = await eon.create({ meta: { k: 'a' } });
    const copy = (await eon.search()) as Task;
    let hear: (message: string) => void = () => {};
    const heard = new Promise<string>((resolve) => (hear = resolve));
    // as the engine's watchers do: the queue's watch channel with the task's
    const subscriber = await subscribeQueue(watchChannel(q.key, idOf(task)), (m) => hear(m), [
      q.key.watch,
    ]);
    try {
      await eon.delete(copy);
      expect(JSON.parse(await heard)).toMatchObject({ o: { id: idOf(task), state: 'completed' } });
    } finally {
      await subscriber.stop();
    }
    expect(await eon.status(idOf(task))).toBeUndefined();
    expect(await q.keys()).not.toContain(q.key.outcomes);
  });

  it('sends watch messages (claim, outcome) only while someone listens on the channel', async () => {
    const q = queue();
    const eon = q.engine('eon', { outcomeRetention: 0 });
    const unheard = await eon.create({ meta: { k: 'unheard' } });
    const heardTask = await eon.create({ meta: { k: 'heard' } });
    const published: string[] = [];
    const monitor = await monitorQueue(q.redis, (args) => {
      if (/^s?publish$/i.test(args[0] ?? '') && args[1]?.includes(':watch:')) {
        published.push(args[1]);
      }
    });
    const messages: string[] = [];
    const channel = watchChannel(q.key, idOf(heardTask));
    // as the engine's watchers do: the queue's watch channel with the task's
    const subscriber = await subscribeQueue(channel, (m) => messages.push(m), [q.key.watch]);
    try {
      // both in the queue's order: unheard first
      await eon.delete((await eon.search()) as Task);
      await eon.delete((await eon.search()) as Task);
      await until(() => messages.length === 2, 5_000, 'the claim and the outcome heard');
    } finally {
      await subscriber.stop();
      await monitor.stop();
    }
    expect(published).toEqual([channel, channel]);
    expect(published).not.toContain(watchChannel(q.key, idOf(unheard)));
    expect(messages.map((m) => Object.keys(JSON.parse(m) as object))).toEqual([['w'], ['o']]);
  });

  it('asks each task channel only while someone listens on the queue watch channel, as waiters do', async () => {
    const q = queue();
    const eon = q.engine('eon', { outcomeRetention: 0 });
    const [first, second, third] = [
      await eon.create({ meta: { k: 'first' } }),
      await eon.create({ meta: { k: 'second' } }),
      await eon.create({ meta: { k: 'third' } }),
    ];
    const marker = q.key.watch;
    const channelOf = (task: Task) => `${marker}:${idOf(task)}`;
    const published: string[] = [];
    const monitor = await monitorQueue(q.redis, (args) => {
      if (/^s?publish$/i.test(args[0] ?? '') && args[1]?.startsWith(`${marker}:`)) {
        published.push(args[1]);
      }
    });
    // subscribed to the tasks' channels alone: they hear only while a waiter
    // keeps the queue's watch channel subscribed
    const bare = await Promise.all(
      [first, second].map((task) => subscribeQueue(channelOf(task), () => {})),
    );
    const waiter = q.engine('waiter');
    try {
      await eon.delete((await eon.search()) as Task);
      const outcome = waiter.wait(idOf(third));
      await until(
        async () => (await channelSubscribers(q.redis, marker)) === 1,
        5_000,
        'the waiter on the queue watch channel',
      );
      await eon.delete((await eon.search()) as Task);
      await eon.delete((await eon.search()) as Task);
      await expect(outcome).resolves.toMatchObject({ state: 'completed' });
      await until(
        async () => (await channelSubscribers(q.redis, marker)) === 0,
        5_000,
        'the waiter gone from the queue watch channel',
      );
    } finally {
      await Promise.all(bare.map((subscriber) => subscriber.stop()));
      await monitor.stop();
    }
    expect(published).toEqual([
      channelOf(second),
      channelOf(second),
      channelOf(third),
      channelOf(third),
    ]);
  });

  it('caps the number of outcomes: the records closest to their end go first', async () => {
    const q = queue();
    const eon = q.engine('eon', { outcomeLimit: 3 });
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) {
      const task = await eon.create({ meta: { n: String(index) } });
      ids.push(idOf(task));
      q.clock.advance(1);
      await eon.delete((await eon.search()) as Task);
    }
    expect(await q.redis.hlen(q.key.outcomes)).toBe(3);
    expect(await q.redis.zcard(q.key['outcome-expiry'])).toBe(3);
    const kept = await Promise.all(ids.map(async (id) => (await eon.status(id))?.state));
    expect(kept).toEqual([undefined, undefined, undefined, 'completed', 'completed', 'completed']);
  });

  it('trims an excess beyond the cap in expire, a bounded batch per script', async () => {
    const q = queue();
    const writer = q.engine('eon', { outcomeLimit: 1_000 });
    for (let index = 0; index < 450; index++) await writer.create({ meta: { n: String(index) } });
    for (let index = 0; index < 450; index++) await writer.delete((await writer.search()) as Task);
    expect(await q.redis.hlen(q.key.outcomes)).toBe(450);
    const trimmer = q.engine('etw', { outcomeLimit: 10 });
    const calls: string[][] = [];
    const monitor = await monitorQueue(q.redis, (args) => {
      if (args[0]?.toLowerCase() === 'zpopmin') calls.push(args);
    });
    try {
      await trimmer.expire();
    } finally {
      await monitor.stop();
    }
    expect(await q.redis.hlen(q.key.outcomes)).toBe(10);
    expect(await q.redis.zcard(q.key['outcome-expiry'])).toBe(10);
    // 440 records over: three scripts, at most 200 each
    expect(calls.map((args) => Number(args[2]))).toEqual([200, 200, 40]);
  });
});

describe('outcomes of the worker runtime', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('keeps what ensure resolved with as the result, exactly, and when the attempt started', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const result = { sum: 0.1 + 0.2, big: 2 ** 53 - 1, list: [], nested: {}, text: 'é/"' };
    const worker = new Worker(
      eon,
      [{ filter: () => true, ensure: () => Promise.resolve(result) }],
      {
        background: false,
        pollInterval: 100,
      },
    );
    try {
      const ensured = next(worker, 'task:ensured', 3_000);
      await worker.start();
      const task = await eon.create({ meta: { k: 'a' } });
      await ensured;
      const status = await eon.status(idOf(task));
      expect(status?.outcome).toMatchObject({
        state: 'completed',
        result,
        worker: 'eon',
        startedAt: '2023-10-20T00:00:01Z',
      });
    } finally {
      await worker.stop();
    }
  });

  it('fails an attempt whose result cannot be kept (TaskResultError), and records the failure', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const worker = new Worker(
      eon,
      [{ filter: () => true, ensure: () => Promise.resolve({ big: 'x'.repeat(70_000) }) }],
      { background: false, pollInterval: 100 },
    );
    try {
      const failed = next(worker, 'task:failed', 3_000);
      await worker.start();
      const task = await eon.create({ meta: { k: 'a' } });
      const [, error] = await failed;
      expect(error).toMatchObject({ code: 'TASK_RESULT' });
      await until(
        async () => (await eon.status(idOf(task)))?.failure !== undefined,
        3_000,
        'the failure recorded',
      );
      expect((await eon.status(idOf(task)))?.failure).toMatchObject({
        state: 'failed',
        worker: 'eon',
        error: { code: 'TASK_RESULT' },
      });
    } finally {
      await worker.stop();
    }
  });

  it('records a failed attempt with the task, and the outcome failed once the circuit breaker halts it', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const failure = Object.assign(new Error('upstream said no'), { code: 'E_UPSTREAM' });
    const worker = new Worker(
      eon,
      [{ filter: () => true, ensure: () => Promise.reject(failure) }],
      {
        background: false,
        pollInterval: 100,
      },
    );
    try {
      const failed = next(worker, 'task:failed', 3_000);
      await worker.start();
      const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'a' } });
      await failed;
      await until(
        async () => (await eon.status(idOf(task)))?.failure !== undefined,
        3_000,
        'the failure recorded',
      );
      const owned = await eon.status(idOf(task));
      expect(owned).toMatchObject({
        state: 'owned',
        failure: {
          state: 'failed',
          worker: 'eon',
          error: { message: 'upstream said no', code: 'E_UPSTREAM' },
          startedAt: '2023-10-20T00:00:01Z',
        },
      });
      await worker.stop();
      q.clock.advance(1_000);
      await eon.expire(); // the lease ended: one cycle, and the breaker (cancel 1) holds it
      const halted = await eon.status(idOf(task));
      expect(halted).toMatchObject({
        state: 'halted',
        outcome: {
          state: 'failed',
          worker: 'eon',
          cycles: 1,
          error: { message: 'upstream said no', code: 'E_UPSTREAM' },
          endedAt: '2023-10-20T00:00:02Z',
        },
      });
    } finally {
      await worker.stop();
    }
  });
});
