import {
  TaskCancelledError,
  TaskCoreError,
  TaskNotFoundError,
  TaskTimeoutError,
} from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import { callIn } from '../harness/call-in.js';
import type { Task } from '../../lib/task/task.js';
import { Worker } from '../../lib/worker/worker.js';
import { aborted, idOf, next, signal, until, useWorkerQueue, within } from '../harness/worker.js';

// engine.cancel stops a task from any process (a running handler's signal
// aborts through the queue's control channel), and a handler's timeout aborts
// its signal and fails the attempt.

/** untilAborted is a handler body: it runs until its signal aborts, and records why and when. */
function untilAborted(seen: { reason?: unknown; at?: number }, started?: () => void) {
  return async (_task: Task, context: { signal: AbortSignal }) => {
    started?.();
    seen.reason = await aborted(context.signal);
    seen.at = Date.now();
    throw seen.reason;
  };
}

describe('engine.cancel', () => {
  const queue = useWorkerQueue();

  it('removes a task nobody claimed; its outcome is cancelled, and its waiters hear it', async () => {
    const eon = queue().live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const waiting = eon.wait(idOf(task));
    expect(await eon.cancel(idOf(task))).toBe(true);
    expect(await eon.search()).toBeUndefined();
    const outcome = await waiting;
    expect(outcome).toMatchObject({
      state: 'cancelled',
      error: { message: 'cancelled by eon', code: 'TASK_CANCELLED' },
    });
    expect(outcome.worker).toBeUndefined();
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'cancelled' });
  });

  it('aborts a handler running in this process from another process, within milliseconds', async () => {
    const q = queue();
    const eon = q.live('eon');
    const seen: { reason?: unknown; at?: number } = {};
    const started = signal();
    const worker = q.worker(eon, [
      { filter: () => true, ensure: untilAborted(seen, () => started.resolve()) },
    ]);
    const lost = next(worker, 'task:lost', 10_000);
    await worker.start();
    const task = await eon.create({ meta: { k: 'a' } });
    await started.promise;
    const answer = await within(callIn([q.name, 'cancel', idOf(task)]), 10_000, 'the cancel');
    expect(answer.value).toBe(true);
    const [lostTask, error] = await lost;
    expect(idOf(lostTask)).toBe(idOf(task));
    expect(error).toBeInstanceOf(TaskCancelledError);
    expect(seen.reason).toBeInstanceOf(TaskCancelledError);
    // loose: the benchmark measures it (scripts/bench/cancel.js); here it must not wait for a lease
    expect((seen.at ?? Infinity) - (answer.startedAt ?? 0)).toBeLessThan(2_000);
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'cancelled',
      outcome: { worker: 'eon' },
    });
    expect(q.log(worker).ensured).toEqual([]);
    expect(q.log(worker).failed).toEqual([]);
  });

  it('aborts a broadcast task on every worker that runs it', async () => {
    const q = queue();
    const eon = q.live('eon');
    const etw = q.live('etw');
    const seen = [{}, {}] as { reason?: unknown }[];
    const both = [signal(), signal()];
    const workers = [eon, etw].map((engine, index) =>
      q.worker(engine, [
        {
          filter: () => true,
          ensure: untilAborted(seen[index] ?? {}, () => both[index]?.resolve()),
        },
      ]),
    );
    await Promise.all(workers.map((worker) => worker.start()));
    const task = await eon.create({ meta: { k: 'a' }, node: { [Label.Method]: Method.All } });
    await Promise.all(both.map((started) => started.promise));
    await eon.cancel(idOf(task));
    await until(() => seen.every((entry) => entry.reason !== undefined), 3_000, 'both aborted');
    for (const entry of seen) expect(entry.reason).toBeInstanceOf(TaskCancelledError);
  });

  it('answers false for a task that finished, TaskNotFoundError for an unknown one, TaskCoreError for a bad id', async () => {
    const eon = queue().live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    await eon.delete((await eon.search()) as Task);
    expect(await eon.cancel(idOf(task))).toBe(false);
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'completed' });
    await expect(eon.cancel('1697760001000-000000000042')).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(eon.cancel('')).rejects.toBeInstanceOf(TaskCoreError);
  });

  it('makes the former owner’s delete and extend find the task gone', async () => {
    const eon = queue().live('eon');
    await eon.create({ meta: { k: 'a' } });
    const copy = (await eon.search()) as Task;
    await eon.cancel(idOf(copy));
    await expect(eon.extend(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(eon.delete(copy)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(await eon.status(idOf(copy))).toMatchObject({ state: 'cancelled' });
  });
});

describe('handler timeout', () => {
  const queue = useWorkerQueue();

  it('aborts the signal with TaskTimeoutError and records the attempt as timeout', async () => {
    const q = queue();
    const eon = q.live('eon');
    const seen: { reason?: unknown } = {};
    const worker = q.worker(eon, [{ filter: () => true, timeout: 30, ensure: untilAborted(seen) }]);
    const failed = next(worker, 'task:failed', 3_000);
    await worker.start();
    const task = await eon.create({ meta: { k: 'a' } });
    const [, error] = await failed;
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(seen.reason).toBe(error);
    await until(
      async () => (await eon.status(idOf(task)))?.failure !== undefined,
      3_000,
      'the failure recorded',
    );
    expect(await eon.status(idOf(task))).toMatchObject({
      state: 'owned', // until its lease ends: the retry follows the cycle rules
      failure: { state: 'timeout', error: { code: 'TASK_TIMEOUT' } },
    });
  });

  it('fails the attempt even when ensure ignores the signal and resolves', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: () => true,
        timeout: 20,
        ensure: () => new Promise((resolve) => setTimeout(() => resolve('late'), 60)),
      },
    ]);
    const failed = next(worker, 'task:failed', 3_000);
    await worker.start();
    const task = await eon.create({ meta: { k: 'a' } });
    expect((await failed)[1]).toBeInstanceOf(TaskTimeoutError);
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'owned' });
    expect(q.log(worker).ensured).toEqual([]);
  });

  it('reads a per-task timeout from a function of the task; no limit when it answers undefined', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: () => true,
        timeout: (task) =>
          task.meta?.['timeout'] === undefined ? undefined : Number(task.meta['timeout']),
        ensure: (_task, context) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve('done'), 80);
            context.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(context.signal.reason as Error);
            });
          }),
      },
    ]);
    await worker.start();
    const quick = await eon
      .run({ meta: { k: 'a', timeout: '20' } }, { timeout: 200 })
      .catch((error: unknown) => error);
    expect(quick).toMatchObject({ code: 'WAIT_TIMEOUT' }); // timed out, so retried later: no outcome yet
    expect(await eon.run({ meta: { k: 'b' } }, { timeout: 3_000 })).toMatchObject({
      state: 'completed',
      result: 'done',
    });
  });

  it('gives the outcome timeout when the circuit breaker halts a task that timed out', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const worker = new Worker(
      eon,
      [{ filter: () => true, timeout: 20, ensure: untilAborted({}) }],
      {
        background: false,
        pollInterval: 100,
      },
    );
    try {
      const failed = next(worker, 'task:failed', 3_000);
      await worker.start();
      const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'a' } });
      const waiting = eon.wait(idOf(task));
      await failed;
      await until(
        async () => (await eon.status(idOf(task)))?.failure !== undefined,
        3_000,
        'the failure recorded',
      );
      await worker.stop();
      q.clock.advance(1_000);
      await eon.expire();
      expect(await waiting).toMatchObject({
        state: 'timeout',
        error: { code: 'TASK_TIMEOUT' },
        worker: 'eon',
      });
    } finally {
      await worker.stop();
    }
  });

  it('rejects a timeout that is not a positive integer of ms at construction', () => {
    const eon = queue().live('eon');
    for (const timeout of [0, -5, 1.5, '10', 2 ** 31]) {
      expect(
        () =>
          new Worker(eon, [
            { filter: () => true, ensure: () => Promise.resolve(), timeout } as never,
          ]),
      ).toThrow(TypeError);
    }
  });
});
