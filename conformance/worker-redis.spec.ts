import { Engine } from '../lib/engine/engine.js';
import { has } from '../lib/matcher/matcher.js';
import type { Task } from '../lib/task/task.js';
import { startRedisServer, type RedisServer } from '../lib/testing/redis-server.js';
import type { WorkerOptions } from '../lib/worker/options.js';
import { Worker } from '../lib/worker/worker.js';
import { idOf, next, resolved, until } from './harness/worker.js';

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
});
