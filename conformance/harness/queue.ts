import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../lib/engine/connection.js';
import { Engine } from '../../lib/engine/engine.js';
import { queueKeys, type QueueKeys } from '../../lib/engine/keys.js';
import type { EngineOptions } from '../../lib/engine/options.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { fakeClock, type FakeClock } from '../../spec/helpers/clock.js';
import { adminClient, engineRedis, scanKeys } from './redis.js';

export { redisUrl } from './redis.js';

/**
 * TestQueue gives a test its own queue on the harness's Redis: engines with
 * named workers on one fake clock, a raw client to inspect keys, and cleanup
 * (engines closed, the queue's keys deleted) after each test. Nobody's Redis
 * is flushed.
 */
export interface TestQueue {
  readonly name: string;
  readonly prefix: string;
  /** The queue's Redis keys, from lib/engine/keys.ts: `q.key.tasks`, `q.key.worker('eon')`. */
  readonly key: QueueKeys;
  readonly clock: FakeClock;
  /** An unrestricted client of the harness's Redis (a Cluster in cluster mode). */
  readonly redis: RedisClient;
  /** engine returns an engine on this queue; options override the defaults (worker 'one', the clock). */
  engine(worker?: string, options?: EngineOptions): Engine;
  /** keys lists the queue's keys, sorted. */
  keys(): Promise<string[]>;
}

let shared: RedisClient | undefined;

function sharedClient(): RedisClient {
  shared ??= adminClient();
  return shared;
}

/**
 * useQueue registers beforeEach / afterEach hooks and returns an accessor for
 * the current test's queue.
 */
export function useQueue(start = '2023-10-20T00:00:00Z'): () => TestQueue {
  let current: (TestQueue & { engines: Engine[] }) | undefined;

  beforeEach(() => {
    const name = `test-${randomUUID()}`;
    const key = queueKeys(name);
    const prefix = key.prefix;
    const clock = fakeClock(start);
    const redis = sharedClient();
    const engines: Engine[] = [];
    current = {
      name,
      prefix,
      key,
      clock,
      redis,
      engines,
      engine(worker = 'one', options: EngineOptions = {}) {
        const engine = new Engine({ redis: engineRedis(), queue: name, worker, clock, ...options });
        engines.push(engine);
        return engine;
      },
      async keys() {
        return (await scanKeys(redis, prefix)).sort();
      },
    };
  });

  afterEach(async () => {
    if (current === undefined) return;
    await Promise.all(current.engines.map((engine) => engine.close()));
    const keys = await scanKeys(current.redis, current.prefix);
    if (keys.length > 0) await current.redis.del(...keys);
    current = undefined;
  });

  afterAll(async () => {
    await shared?.quit();
    shared = undefined;
  });

  return () => {
    if (current === undefined) throw new Error('useQueue: no test is running');
    return current;
  };
}

/**
 * createMany creates `count` tasks on the queue with a producer engine,
 * `inFlight` at a time, and returns them in the order of their index.
 */
export async function createMany(
  q: TestQueue,
  count: number,
  task: (index: number) => Task,
  inFlight = 200,
): Promise<Task[]> {
  const producer = q.engine('producer');
  const created: Task[] = [];
  for (let start = 0; start < count; start += inFlight) {
    created.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(inFlight, count - start) }, (_, offset) =>
          producer.create(task(start + offset)),
        ),
      )),
    );
  }
  return created;
}

/** idOf returns a stored task's object id; a task without one (none claimed, say) fails the test. */
export function idOf(task: Task | undefined): string {
  const id = task?.core?.[Label.Object];
  if (id === undefined) throw new Error('idOf: the task has no object id');
  return id;
}
