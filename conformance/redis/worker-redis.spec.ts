import { Engine } from '../../lib/engine/engine.js';
import { TaskOutdatedError } from '../../lib/errors.js';
import { has } from '../../lib/matcher/matcher.js';
import type { Task } from '../../lib/task/task.js';
import { startRedisServer, type RedisServer } from '../../lib/testing/redis-server.js';
import type { WorkerOptions } from '../../lib/worker/options.js';
import { Worker } from '../../lib/worker/worker.js';
import { aborted, idOf, next, resolved, signal, until, within } from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

/**
 * withPrivateRedis runs a worker on a redis-server of its own, which the test
 * may stop and start again on the same port without disturbing other tests.
 */
async function withPrivateRedis(
  options: WorkerOptions,
  body: (context: {
    engine: Engine;
    worker: Worker;
    seen: string[];
    errors: unknown[];
    restart: () => Promise<void>;
    stopServer: () => Promise<void>;
    url: string;
  }) => Promise<void>,
): Promise<void> {
  let server: RedisServer = await startRedisServer({ env: {} });
  const port = server.port;
  const engine = new Engine({ redis: server.url, queue: 'restart', worker: 'eon' });
  const seen: string[] = [];
  const errors: unknown[] = [];
  const worker = new Worker(
    engine,
    [{ filter: kind('a'), ensure: (task) => resolved(seen.push(idOf(task))) }],
    options,
  );
  worker.on('error', (error) => errors.push(error));
  try {
    await worker.start();
    await body({
      engine,
      worker,
      seen,
      errors,
      url: server.url,
      stopServer: () => server.stop(),
      restart: async () => {
        server = await startRedisServer({ env: {}, port });
      },
    });
  } finally {
    await worker.stop();
    await engine.close();
    await server.stop();
  }
}

describe('Worker and Redis failures', () => {
  it('reports Redis errors and keeps working after the server restarts (searching slots back off and resume)', async () => {
    await withPrivateRedis(
      { pollInterval: 50, background: true, expireInterval: 50, tickerInterval: 50 },
      async ({ engine, worker, seen, errors, stopServer, restart }) => {
        const first = await engine.create({ meta: { kind: 'a' } });
        await until(() => seen.length === 1, 3_000, 'first task ensured');
        await stopServer();
        await until(() => errors.length > 0, 3_000, 'an error event while Redis is away');
        await restart();
        const ensured = next(worker, 'task:ensured', 3_000);
        const second = await engine.create({ meta: { kind: 'a' } });
        await ensured;
        expect(seen).toEqual([idOf(first), idOf(second)]);
      },
    );
  });

  it('finds work created while its wake-up subscription was reconnecting, without polling', async () => {
    await withPrivateRedis(
      { pollInterval: 60_000, background: false },
      async ({ engine, worker, seen, errors, stopServer, restart, url }) => {
        const first = await engine.create({ meta: { kind: 'a' } });
        await until(() => seen.length === 1, 3_000, 'first task ensured');
        await stopServer();
        await until(() => errors.length > 0, 3_000, 'an error event while Redis is away');
        await restart();
        // a producer on a fresh connection creates work at once: its wake-up
        // message may be published before the worker's subscriber is back
        const producer = new Engine({ redis: url, queue: 'restart', worker: 'producer' });
        try {
          const ensured = next(worker, 'task:ensured', 3_000);
          const second = await producer.create({ meta: { kind: 'a' } });
          await ensured;
          expect(seen).toEqual([idOf(first), idOf(second)]);
        } finally {
          await producer.close();
        }
      },
    );
  });

  it('aborts a running handler once its lease ends while Redis is away and renewals fail', async () => {
    let server = await startRedisServer({ env: {} });
    const port = server.port;
    const engine = new Engine({ redis: server.url, queue: 'away', worker: 'eon', expiry: 400 });
    const errors: unknown[] = [];
    let abortedAfterMs: number | undefined;
    const started = signal<number>();
    const worker = new Worker(
      engine,
      [
        {
          filter: kind('a'),
          ensure: async (_task, context) => {
            const at = performance.now();
            started.resolve(at);
            await within(aborted(context.signal), 3_000, 'the signal aborted');
            abortedAfterMs = performance.now() - at;
          },
        },
      ],
      { background: false, pollInterval: 60_000 },
    );
    worker.on('error', (error) => errors.push(error));
    const lost = next(worker, 'task:lost', 4_000);
    try {
      await worker.start();
      await engine.create({ meta: { kind: 'a' } });
      await within(started.promise, 3_000, 'ensure started');
      await server.stop(); // the renewal at half the expiry waits for Redis, or fails
      const [, error] = await lost;

      expect(error).toBeInstanceOf(TaskOutdatedError);
      expect((error as Error).message).toMatch(/without renewal$/);
      // not before the lease ended (400 ms after the claim; the handler started a little later)
      expect(abortedAfterMs).toBeGreaterThan(300);
    } finally {
      // back, so the commands waiting in the client's queue are answered and stop() returns
      server = await startRedisServer({ env: {}, port });
      await worker.stop();
      await engine.close();
      await server.stop();
    }
  });
});
