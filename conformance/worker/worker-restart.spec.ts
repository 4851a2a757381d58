import { Engine } from '../../lib/engine/engine.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { startRedisServer, type RedisServer } from '../../lib/testing/redis-server.js';
import { Worker } from '../../lib/worker/worker.js';
import { unusedPort } from '../harness/ports.js';
import {
  aborted,
  idOf,
  resolved,
  signal,
  stored,
  until,
  useWorkerQueue,
  within,
} from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

describe('Worker.start() again', () => {
  const queue = useWorkerQueue();

  it('works after a start that failed because Redis was away', async () => {
    const port = await unusedPort();
    // reconnects quickly and keeps trying; each command gives up after one retry
    const engine = new Engine({
      redis: { host: '127.0.0.1', port, retryStrategy: () => 20, maxRetriesPerRequest: 1 },
      queue: 'restartable',
      worker: 'eon',
    });
    const seen: string[] = [];
    const worker = new Worker(
      engine,
      [{ filter: kind('a'), ensure: (task) => resolved(seen.push(idOf(task))) }],
      { background: false, pollInterval: 100 },
    );
    worker.on('error', () => {});
    let server: RedisServer | undefined;
    try {
      await expect(worker.start()).rejects.toThrow();
      server = await startRedisServer({ env: {}, port });
      await worker.start();
      const task = await engine.create({ meta: { kind: 'a' } });
      await until(() => seen.length === 1, 3_000, 'the task ensured');
      expect(seen).toEqual([idOf(task)]);
    } finally {
      await worker.stop();
      await engine.close();
      await server?.stop();
    }
  });

  it('works after stop(): the worker takes work again', async () => {
    const eon = queue().live('eon');
    const seen: string[] = [];
    const worker = queue().worker(eon, [
      { filter: kind('a'), ensure: (task) => resolved(seen.push(idOf(task))) },
    ]);
    await worker.start();
    const first = await eon.create({ meta: { kind: 'a' } });
    await until(() => seen.length === 1, 3_000, 'the first task ensured');
    await worker.stop();

    const second = await eon.create({ meta: { kind: 'a' } });
    await queue().redis.ping();
    expect(seen).toEqual([idOf(first)]); // stopped: nobody takes it
    await worker.start();
    await until(() => seen.length === 2, 3_000, 'the second task ensured after the restart');
    expect(seen).toEqual([idOf(first), idOf(second)]);
  });

  it('rejects a second start() while running, and a start() while stop() is under way', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const release = signal();
    const started = signal();
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: async () => {
          started.resolve();
          await release.promise;
        },
      },
    ]);
    await worker.start();
    await expect(worker.start()).rejects.toThrow('Worker.start: already started');
    await eon.create({ meta: { kind: 'a' } });
    await within(started.promise, 3_000, 'the ensure started');
    const stopping = worker.stop();
    await expect(worker.start()).rejects.toThrow('Worker.start: stop() is under way');
    release.resolve();
    await stopping;
  });
});

describe('engine.close() under a running worker', () => {
  const queue = useWorkerQueue();

  it('stops the worker: ensures aborted with the engine closed reason, the task left in Redis, one error', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const observer = queue().live('observer');
    const started = signal();
    let reason: unknown;
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (_task, context) => {
            started.resolve();
            reason = await within(aborted(context.signal), 3_000, 'the signal aborted');
          },
        },
      ],
      // background loops on: their timers and locks must stop too
      { background: true, expireInterval: 50, tickerInterval: 50, pollInterval: 20 },
    );
    const log = queue().log(worker);
    await worker.start();
    const task = await observer.create({ meta: { kind: 'a' } });
    await within(started.promise, 3_000, 'the ensure started');

    await eon.close();
    await within(worker.stop(), 3_000, 'stop() after close()');
    // real time in which an endless error loop (20 ms polls) would have reported many times
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect((reason as Error).message).toBe('Engine.close: the engine was closed');
    expect(log.errors).toHaveLength(1);
    expect((log.errors[0] as Error).message).toMatch(/^Worker: engine.close\(\) was called/);
    expect(log.failed.map(({ task: failed }) => idOf(failed))).toEqual([idOf(task)]);
    expect(log.ensured).toEqual([]);
    // neither deleted nor released: still owned by eon until its lease ends
    expect((await stored(observer, idOf(task)))?.core?.[Label.Worker]).toBe('eon');
    // a closed engine's worker cannot start again
    await expect(worker.start()).rejects.toThrow('the engine is closed');
  });

  it('stops an idle worker silently but for the one error, and stop() still resolves', async () => {
    const eon = queue().live('eon');
    const worker = queue().worker(eon, [{ filter: kind('a'), ensure: () => resolved() }], {
      pollInterval: 20,
    });
    const log = queue().log(worker);
    await worker.start();
    await eon.close();
    // real time: slots searching on a closed engine would report, back off and report again
    await new Promise((resolve) => setTimeout(resolve, 500));
    await within(worker.stop(), 3_000, 'stop() after close()');
    expect(log.errors).toHaveLength(1);
    expect((log.errors[0] as Error).message).toMatch(/^Worker: engine.close\(\) was called/);
  });
});
