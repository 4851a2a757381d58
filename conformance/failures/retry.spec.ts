import { systemClock } from '../../lib/clock.js';
import type { Engine } from '../../lib/engine/engine.js';
import { TaskCoreError, UnrecoverableError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { Handler } from '../../lib/worker/handler.js';
import type { WorkerOptions } from '../../lib/worker/options.js';
import { Worker } from '../../lib/worker/worker.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';
import { idOf, next, until, within } from '../harness/worker.js';

// Failures people steer: retry policies (handler option `retry`,
// worker option `retry`, the task's core retry label), UnrecoverableError,
// and the behaviour without a policy. The engines run on the test clock
// (q.clock) unless a test measures real wake-ups.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

/** failing is a handler that rejects `times` times (every time without it), then resolves; it counts its runs. */
function failing(
  error: (run: number) => Error,
  options: Partial<Handler> = {},
  times = Infinity,
): Handler & { runs: number } {
  const handler: Handler & { runs: number } = {
    runs: 0,
    filter: () => true,
    ensure: (): Promise<unknown> => {
      handler.runs += 1;
      return handler.runs <= times ? Promise.reject(error(handler.runs)) : Promise.resolve('done');
    },
    ...options,
  };
  return handler;
}

/**
 * useRetryQueue: a queue on the test clock and `start`, which starts a Worker
 * (no background loops, a short poll) that the test's end stops.
 */
function useRetryQueue() {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const workers: Worker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });
  const start = async (engine: Engine, handlers: Handler[], options: WorkerOptions = {}) => {
    const worker = new Worker(engine, handlers, {
      background: false,
      pollInterval: 100,
      ...options,
    });
    workers.push(worker);
    await worker.start();
    return worker;
  };
  return { queue, start };
}

describe('retry: UnrecoverableError', () => {
  const { queue, start } = useRetryQueue();

  it('halts the task at once with outcome failed and the error, and runs it no more', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(() => new UnrecoverableError('no such customer 42'));
    const worker = await start(eon, [handler]);
    const failed = next(worker, 'task:failed', 3_000);
    const task = await eon.create({ meta: { k: 'a' } });
    const [, error] = await failed;
    expect(error).toBeInstanceOf(UnrecoverableError);
    await until(async () => (await eon.status(idOf(task)))?.state === 'halted', 3_000, 'halted');
    // the test clock did not move: no lease ended, no expire ran
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'halted',
      outcome: {
        state: 'failed',
        cycles: 1,
        error: { message: 'no such customer 42', code: 'UNRECOVERABLE' },
      },
    });
    expect((await stored(eon, idOf(task)))?.core).toEqual({
      [Label.Object]: idOf(task),
      [Label.Cycles]: '1',
      [Label.Cancel]: '1',
    });
    expect((await eon.stats()).halted).toBe(1);
    // a search finds nothing, also after the lease would have ended
    q.clock.advance(60_000);
    await eon.expire();
    expect(await q.engine('etw').search()).toBeUndefined();
    expect(handler.runs).toBe(1);
  });

  it('halts whatever the retry policy, and `cycles` lets it run again', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(
      () => new UnrecoverableError('bad input'),
      {
        retry: { attempts: 10, delay: 0 },
      },
      1,
    );
    const worker = await start(eon, [handler]);
    const task = await eon.create({ core: { [Label.Cancel]: '5' }, meta: { k: 'a' } });
    await until(async () => (await eon.status(idOf(task)))?.state === 'halted', 3_000, 'halted');
    expect(handler.runs).toBe(1);
    // the breaker was lowered to the cycle that halted it
    expect((await stored(eon, idOf(task)))?.core?.[Label.Cancel]).toBe('1');
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.cycles({ core: { [Label.Object]: idOf(task), [Label.Cancel]: '1' } });
    await ensured;
    expect(handler.runs).toBe(2);
  });
});

describe('retry: policies', () => {
  const { queue, start } = useRetryQueue();

  it('without a policy leaves a failed task owned until its lease ends, as the Go original', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(() => new Error('flaky'));
    const worker = await start(eon, [handler]);
    const failed = next(worker, 'task:failed', 3_000);
    const task = await eon.create({ meta: { k: 'a' } });
    await failed;
    await until(
      async () => (await eon.status(idOf(task)))?.failure !== undefined,
      3_000,
      'the failure recorded',
    );
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'owned' });
    expect(handler.runs).toBe(1);
  });

  it('gives a failed task back at once, due after a fixed delay of 200 ms, and runs it again once that passed', async () => {
    const q = queue();
    const eon = q.engine('eon'); // lease 30 s: far from 200 ms
    const handler = failing(
      () => new Error('flaky'),
      { retry: { backoff: 'fixed', delay: 200 } },
      1,
    );
    const worker = await start(eon, [handler]);
    const failed = next(worker, 'task:failed', 3_000);
    const task = await eon.create({ meta: { k: 'a' } });
    await failed;
    await until(async () => (await eon.status(idOf(task)))?.state === 'waiting', 3_000, 'waiting');
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'waiting',
      dueAt: '2023-10-20T00:00:01.2Z',
      failure: { state: 'failed', error: { message: 'flaky' } },
    });
    expect((await stored(eon, idOf(task)))?.core).toEqual({
      [Label.Object]: idOf(task),
      [Label.Cycles]: '1',
      [Label.RetryAt]: '2023-10-20T00:00:01.2Z',
    });
    // 199 ms on, another engine finds nothing; at 200 ms the worker runs it again
    q.clock.set('2023-10-20T00:00:01.199Z');
    expect(await q.engine('etw').search()).toBeUndefined();
    const ensured = next(worker, 'task:ensured', 3_000);
    q.clock.set('2023-10-20T00:00:01.2Z');
    await ensured;
    expect(handler.runs).toBe(2);
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'completed',
      outcome: { cycles: 1, result: 'done' },
    });
  });

  it('keeps a retried task waiting until its due time through a repair of the indexes', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(() => new Error('flaky'), {
      retry: { backoff: 'fixed', delay: 5_000 },
    });
    const worker = await start(eon, [handler]);
    const task = await eon.create({ meta: { k: 'a' } });
    await until(async () => (await eon.status(idOf(task)))?.state === 'waiting', 3_000, 'waiting');
    await worker.stop();
    await eon.repair();
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'waiting',
      dueAt: '2023-10-20T00:00:06Z',
    });
    q.clock.set('2023-10-20T00:00:05.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:06Z');
    expect(idOf(await eon.search())).toBe(idOf(task));
  });

  it('doubles an exponential delay from one failure to the next', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(() => new Error('flaky'), { retry: { delay: 100, maxDelay: 150 } });
    const worker = await start(eon, [handler]);
    const task = await eon.create({ meta: { k: 'a' } });
    const dueAt = async () => (await stored(eon, idOf(task)))?.core?.[Label.RetryAt];
    await until(async () => (await dueAt()) !== undefined, 3_000, 'the first retry');
    expect(await dueAt()).toBe('2023-10-20T00:00:01.1Z');
    const second = next(worker, 'task:failed', 3_000);
    q.clock.set('2023-10-20T00:00:01.1Z');
    await second;
    // 2 x 100 ms, capped at maxDelay 150
    await until(
      async () => (await dueAt()) === '2023-10-20T00:00:01.25Z',
      3_000,
      'the second retry',
    );
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'waiting' });
  });

  it('halts a task out of attempts as the circuit breaker does, with the last error as outcome', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing((run) => new Error(`flaky ${run}`), {
      retry: { attempts: 3, delay: 0 },
    });
    await start(eon, [handler]);
    const task = await eon.create({ meta: { k: 'a' } });
    await until(async () => (await eon.status(idOf(task)))?.state === 'halted', 3_000, 'halted');
    expect(handler.runs).toBe(3);
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'halted',
      outcome: { state: 'failed', cycles: 3, error: { message: 'flaky 3' } },
    });
    expect((await stored(eon, idOf(task)))?.core?.[Label.Cancel]).toBe('3');
    expect((await eon.stats()).halted).toBe(1);
  });

  it('keeps a lower cancel label of the task: the breaker halts at the lower of the two', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(() => new Error('flaky'), { retry: { attempts: 5, delay: 0 } });
    await start(eon, [handler]);
    const task = await eon.create({ core: { [Label.Cancel]: '2' }, meta: { k: 'a' } });
    await until(async () => (await eon.status(idOf(task)))?.state === 'halted', 3_000, 'halted');
    expect(handler.runs).toBe(2);
    expect((await stored(eon, idOf(task)))?.core?.[Label.Cancel]).toBe('2');
  });

  it("takes the task's retry label over its handler's policy", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = failing(() => new Error('flaky'), { retry: { attempts: 10, delay: 0 } });
    const worker = await start(eon, [handler]);
    const task = await eon.create({
      core: { [Label.Retry]: 'fixed 1 second x 2' },
      meta: { k: 'a' },
    });
    await until(async () => (await eon.status(idOf(task)))?.state === 'waiting', 3_000, 'waiting');
    expect((await eon.status(idOf(task)))?.dueAt).toBe('2023-10-20T00:00:02Z');
    const second = next(worker, 'task:failed', 3_000);
    q.clock.set('2023-10-20T00:00:02Z');
    await second;
    await until(async () => (await eon.status(idOf(task)))?.state === 'halted', 3_000, 'halted');
    expect(handler.runs).toBe(2);
    expect((await stored(eon, idOf(task)))?.core).toMatchObject({
      [Label.Retry]: 'fixed 1 second x 2',
      [Label.Cancel]: '2',
      [Label.Cycles]: '2',
    });
  });

  it("uses the worker's retry option for handlers without one, the handler's over it", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const plain = failing(() => new Error('a'), { filter: (task) => task.meta?.['k'] === 'a' });
    const own = failing(() => new Error('b'), {
      filter: (task) => task.meta?.['k'] === 'b',
      retry: { backoff: 'fixed', delay: 5_000 },
    });
    await start(eon, [plain, own], { retry: { backoff: 'fixed', delay: 3_000 } });
    const a = await eon.create({ meta: { k: 'a' } });
    const b = await eon.create({ meta: { k: 'b' } });
    await until(
      async () =>
        (await eon.status(idOf(a)))?.state === 'waiting' &&
        (await eon.status(idOf(b)))?.state === 'waiting',
      3_000,
      'both waiting',
    );
    expect((await eon.status(idOf(a)))?.dueAt).toBe('2023-10-20T00:00:04Z');
    expect((await eon.status(idOf(b)))?.dueAt).toBe('2023-10-20T00:00:06Z');
  });

  it("uses the engine's retry option when neither the handler nor the worker has one", async () => {
    const q = queue();
    const eon = q.engine('eon', { retry: { backoff: 'fixed', delay: 2_000 } });
    const etw = q.engine('etw', { retry: { backoff: 'fixed', delay: 2_000 } });
    const onlyA = (task: Task) => task.meta?.['k'] === 'a';
    const onlyB = (task: Task) => task.meta?.['k'] === 'b';
    await start(eon, [failing(() => new Error('a'), { filter: onlyA })]);
    await start(etw, [failing(() => new Error('b'), { filter: onlyB })], {
      retry: { backoff: 'fixed', delay: 7_000 },
    });
    const a = await eon.create({ meta: { k: 'a' } });
    const b = await eon.create({ meta: { k: 'b' } });
    await until(
      async () =>
        (await eon.status(idOf(a)))?.state === 'waiting' &&
        (await eon.status(idOf(b)))?.state === 'waiting',
      3_000,
      'both waiting',
    );
    expect((await eon.status(idOf(a)))?.dueAt).toBe('2023-10-20T00:00:03Z');
    expect((await eon.status(idOf(b)))?.dueAt).toBe('2023-10-20T00:00:08Z'); // the worker's wins
    expect(() => q.engine('bad', { retry: { delay: -1 } })).toThrow(
      /Engine option "retry" delay must be an integer/,
    );
  });

  it('rejects a retry label that is not a policy with TaskCoreError, writing nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    for (const value of [
      'sometimes',
      'fixed 30 secs',
      'exponential 1 hour .. 1 second',
      'fixed 1 second x 0',
    ]) {
      await expectUnchanged(q.redis, q.prefix, async () => {
        await expect(
          eon.create({ core: { [Label.Retry]: value }, meta: { k: 'a' } }),
        ).rejects.toThrow(TaskCoreError);
      });
    }
    await expect(
      eon.create({ core: { [Label.Retry]: 'fixed 1 second x 0' }, meta: { k: 'a' } }),
    ).rejects.toThrow(
      'create: Task.core "task.rescue.io/retry": "fixed 1 second x 0": expected the attempts after "x" as digits from 1 (e.g. "x 5"), got "0"',
    );
    await expect(
      eon.create({ core: { [Label.RetryAt]: '2023-10-20T00:00:02Z' }, meta: { k: 'a' } }),
    ).rejects.toThrow(TaskCoreError);
  });

  it('rejects a bad policy of a handler or of the worker with a TypeError', () => {
    const eon = queue().engine('eon');
    const ensure = () => Promise.resolve();
    expect(() => new Worker(eon, [{ filter: () => true, ensure, retry: { attempts: 0 } }])).toThrow(
      new TypeError(
        'Worker: handler 0 retry attempts must be an integer from 1 to 1000000; got number 0',
      ),
    );
    expect(
      () => new Worker(eon, [{ filter: () => true, ensure }], { retry: { delay: -5 } }),
    ).toThrow(TypeError);
  });
});

describe('retry: real wake-ups', () => {
  const queue = useQueue();
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
  });

  it('runs a handler that failed once with delay 200 again within 200 ms and one wake-up, not after its lease', async () => {
    const eon = queue().engine('eon', { clock: systemClock, expiry: 30_000 });
    const runs: number[] = [];
    let failures = 0;
    // a poll far beyond the delay: only the wake-up can bring the second run soon
    worker = new Worker(
      eon,
      [
        {
          filter: () => true,
          ensure: () => {
            runs.push(performance.now());
            return failures++ === 0 ? Promise.reject(new Error('once')) : Promise.resolve();
          },
          retry: { backoff: 'fixed', delay: 200 },
        },
      ],
      { background: false, pollInterval: 20_000 },
    );
    await worker.start();
    const ensured = next(worker, 'task:ensured', 5_000);
    await eon.create({ meta: { k: 'a' } });
    await within(ensured, 5_000, 'the second run');
    expect(runs).toHaveLength(2);
    const gap = (runs[1] ?? 0) - (runs[0] ?? 0);
    expect(gap).toBeGreaterThanOrEqual(195); // timers may fire a few ms early by performance.now
    expect(gap).toBeLessThan(200 + 1_000);
  });
});
