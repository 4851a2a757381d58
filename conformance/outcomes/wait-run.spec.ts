import {
  AcceptTimeoutError,
  TaskCoreError,
  TaskNotFoundError,
  WaitTimeoutError,
} from '../../lib/errors.js';
import { watchChannel } from '../../lib/engine/keys.js';
import { scripts } from '../../lib/engine/lua/scripts.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { callIn } from '../harness/call-in.js';
import type { TestQueue } from '../harness/queue.js';
import { channelSubscribers, monitorQueue } from '../harness/redis.js';
import { aborted, idOf, next, signal, until, useWorkerQueue, within } from '../harness/worker.js';

// engine.wait and engine.run: a task's outcome reaches whoever waits for it,
// in this process or another, through the task's watch channel (no polling).

/** subscribers tells how many connections listen on a task's watch channel. */
async function subscribers(q: TestQueue, id: string): Promise<number> {
  return channelSubscribers(q.redis, watchChannel(q.key, id));
}

describe('engine.wait', () => {
  const queue = useWorkerQueue();

  it('resolves at once with the outcome of a task that finished', async () => {
    const eon = queue().live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    await eon.delete((await eon.search()) as Task);
    expect(await eon.wait(idOf(task))).toMatchObject({ id: idOf(task), state: 'completed' });
  });

  it('hears the outcome in another process, with the handler’s result', async () => {
    const q = queue();
    const eon = q.live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const waiter = callIn([q.name, 'wait', idOf(task), '10000']);
    await until(
      async () => (await subscribers(q, idOf(task))) === 1,
      5_000,
      'the other process listens',
    );
    const worker = q.worker(eon, [
      { filter: () => true, ensure: () => Promise.resolve({ n: 42 }) },
    ]);
    await worker.start();
    const { value } = await within(waiter, 10_000, 'the waiter’s answer');
    expect(value).toMatchObject({
      id: idOf(task),
      state: 'completed',
      result: { n: 42 },
      worker: 'eon',
    });
  });

  it('listens instead of polling: one status read, then the message', async () => {
    const q = queue();
    const eon = q.live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    let reads = 0;
    const monitor = await monitorQueue(q.redis, (args) => {
      if (args[0]?.toLowerCase() === 'fcall' && args[1] === scripts.status.library.name) reads++;
    });
    try {
      const waiting = eon.wait(idOf(task));
      await until(async () => (await subscribers(q, idOf(task))) === 1, 3_000, 'the wait listens');
      await new Promise((resolve) => setTimeout(resolve, 200)); // a poll would read again meanwhile
      await eon.delete((await eon.search()) as Task);
      expect(await waiting).toMatchObject({ state: 'completed' });
      expect(reads).toBe(1);
    } finally {
      await monitor.stop();
    }
    expect(await subscribers(q, idOf(task))).toBe(0);
  });

  it('rejects with WaitTimeoutError after its timeout and leaves the task as it is', async () => {
    const eon = queue().live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    await expect(eon.wait(idOf(task), { timeout: 50 })).rejects.toBeInstanceOf(WaitTimeoutError);
    expect(await eon.status(idOf(task))).toMatchObject({ state: 'queued' });
  });

  it('rejects with the signal’s reason when it aborts', async () => {
    const eon = queue().live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const controller = new AbortController();
    const waiting = eon.wait(idOf(task), { signal: controller.signal });
    const reason = new Error('no longer interested');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(eon.wait(idOf(task), { signal: controller.signal })).rejects.toBe(reason);
  });

  it('rejects with TaskNotFoundError for a task the queue does not know, TaskCoreError for a bad id', async () => {
    const eon = queue().live('eon');
    await expect(eon.wait('1697760001000-000000000042')).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(eon.wait('x')).rejects.toBeInstanceOf(TaskCoreError);
    await expect(eon.wait('1697760001000-000000000042', { timeout: -1 })).rejects.toBeInstanceOf(
      TypeError,
    );
  });

  it('rejects with TaskNotFoundError when the task leaves the queue without an outcome', async () => {
    const q = queue();
    const eon = q.live('eon', { cleanup: 1 });
    const task = await eon.create({ meta: { k: 'a' } });
    const waiting = eon.wait(idOf(task));
    await until(async () => (await subscribers(q, idOf(task))) === 1, 3_000, 'the wait listens');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await eon.expire(); // retention removes it
    await expect(waiting).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('tells onClaim who claimed the task', async () => {
    const q = queue();
    const eon = q.live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const claimedBy: string[] = [];
    const waiting = eon.wait(idOf(task), { onClaim: (worker) => claimedBy.push(worker) });
    await until(async () => (await subscribers(q, idOf(task))) === 1, 3_000, 'the wait listens');
    await eon.delete((await eon.search()) as Task);
    await waiting;
    expect(claimedBy).toEqual(['eon']);
  });

  it('resolves with the outcome failed when the circuit breaker halts the task', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'a' } });
    await eon.search();
    const waiting = eon.wait(idOf(task));
    q.clock.advance(1_000);
    await eon.expire();
    expect(await waiting).toMatchObject({ state: 'failed', cycles: 1 });
  });

  it('rejects when the engine closes', async () => {
    const eon = queue().live('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const waiting = eon.wait(idOf(task));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const rejected = waiting.then(
      () => undefined,
      (error: unknown) => error,
    );
    await eon.close();
    expect(String(await rejected)).toContain('closed');
  });
});

describe('engine.run', () => {
  const queue = useWorkerQueue();

  it('creates the task and resolves with its outcome and result', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      { filter: () => true, ensure: (task) => Promise.resolve({ echo: task.meta?.['k'] }) },
    ]);
    await worker.start();
    const outcome = await eon.run({ meta: { k: 'hello' } }, { timeout: 5_000 });
    expect(outcome).toMatchObject({ state: 'completed', result: { echo: 'hello' }, worker: 'eon' });
  });

  it('with acceptTimeout, removes a task nobody claimed and leaves nothing behind', async () => {
    const q = queue();
    const eon = q.live('eon');
    await expect(eon.run({ meta: { k: 'a' } }, { acceptTimeout: 50 })).rejects.toBeInstanceOf(
      AcceptTimeoutError,
    );
    const counters = [q.key.sequence, q.key.requests, q.key.layout];
    expect((await q.keys()).filter((key) => !counters.includes(key))).toEqual([]);
    expect(await eon.lister({ meta: { '*': '*' } })).toEqual([]);
  });

  it('with acceptTimeout, goes on waiting for a task claimed in time that finishes later', async () => {
    const q = queue();
    const eon = q.live('eon');
    const release = signal();
    const worker = q.worker(eon, [
      { filter: () => true, ensure: () => release.promise.then(() => 7) },
    ]);
    await worker.start();
    const claimed = signal();
    const running = eon.run(
      { meta: { k: 'a' } },
      { acceptTimeout: 100, onClaim: () => claimed.resolve() },
    );
    await claimed.promise;
    await new Promise((resolve) => setTimeout(resolve, 150)); // past the accept timeout
    release.resolve();
    expect(await running).toMatchObject({ state: 'completed', result: 7 });
  });

  it('with acceptTimeout, goes on waiting for a task whose handler a stopping worker cut short', async () => {
    const q = queue();
    const eon = q.live('eon');
    const etw = q.live('etw');
    const started = signal<string>();
    const stopping = q.worker(
      eon,
      [
        {
          filter: () => true,
          ensure: (task, context) => {
            started.resolve(idOf(task));
            return aborted(context.signal).then(() => undefined);
          },
        },
      ],
      { stopTimeout: 10 },
    );
    await stopping.start();
    const running = eon.run({ meta: { k: 'a' } }, { acceptTimeout: 200 });
    running.catch(() => {}); // awaited below
    const id = await started.promise;
    await stopping.stop(); // the grace period runs out: the task is released, no cycle
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the accept timeout
    expect(await eon.status(id)).toMatchObject({ state: 'queued' });
    const finishing = q.worker(etw, [{ filter: () => true, ensure: () => Promise.resolve(7) }]);
    await finishing.start();
    expect(await running).toMatchObject({ state: 'completed', result: 7, worker: 'etw' });
  });

  it('checks its options before it creates anything', async () => {
    const q = queue();
    const eon = q.live('eon');
    await expect(eon.run({ meta: { k: 'a' } }, { acceptTimeout: 1.5 })).rejects.toBeInstanceOf(
      TypeError,
    );
    expect(await q.keys()).toEqual([]);
  });

  it('delivers a result to a worker-started run in the same process without the handler noticing', async () => {
    const q = queue();
    const eon = q.live('eon');
    const etw = q.live('etw');
    const worker = q.worker(etw, [{ filter: () => true, ensure: () => Promise.resolve('done') }]);
    const ensured = next(worker, 'task:ensured', 5_000);
    await worker.start();
    const outcome = await eon.run({ meta: { k: 'a' } });
    await ensured;
    expect(outcome).toMatchObject({ state: 'completed', result: 'done', worker: 'etw' });
  });
});
