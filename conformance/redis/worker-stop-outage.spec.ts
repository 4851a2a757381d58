import { randomUUID } from 'node:crypto';
import { Engine } from '../../lib/engine/engine.js';
import { Worker } from '../../lib/worker/worker.js';
import { outageProxy, type OutageProxy } from '../harness/outage.js';
import { redisUrl } from '../harness/redis.js';
import { aborted, signal, within } from '../harness/worker.js';

// worker.stop() during a Redis outage ends within stopTimeout + 2 x the
// engine's connectTimeout (its handlers returning once their signals
// abort): the slots' last calls get one connectTimeout, the shutdown's calls
// (the slots' parking, the background locks, the presence) run at once and
// get one more; what they leave undone runs out by itself in Redis.

/** Timers and a loaded machine. */
const slackMs = 1_500;

describe('Worker.stop() while Redis cannot be reached', () => {
  let proxy: OutageProxy;
  let engine: Engine;
  let producer: Engine;

  beforeEach(async () => {
    const queue = `test-${randomUUID()}`;
    proxy = await outageProxy(redisUrl());
    engine = new Engine({ redis: proxy.url, queue, worker: 'eon', connectTimeout: 500 });
    producer = new Engine({ redis: redisUrl(), queue, worker: 'producer' });
  });

  afterEach(async () => {
    await engine.close();
    await producer.close();
    await proxy.close();
  });

  it('ends within stopTimeout + 2 x connectTimeout, its handler aborted, background loops and presence on', async () => {
    const started = signal();
    let abortedAt: number | undefined;
    const worker = new Worker(
      engine,
      [
        {
          filter: () => true,
          ensure: async (_task, context) => {
            started.resolve();
            await aborted(context.signal);
            abortedAt = performance.now();
          },
        },
      ],
      {
        concurrency: 2,
        stopTimeout: 200,
        pollInterval: 100,
        expireInterval: 100,
        tickerInterval: 100,
        heartbeatInterval: 100,
        presenceTtl: 1_000,
      },
    );
    const errors: unknown[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.start();
    await producer.create({ meta: { k: 'a' } });
    await within(started.promise, 5_000, 'the handler started');
    // the background loops hold their locks and renew the presence meanwhile
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.cut();
    const stopAt = performance.now();
    await within(worker.stop(), 30_000, 'stop() during the outage');
    const tookMs = performance.now() - stopAt;
    expect(abortedAt).toBeDefined();
    expect(tookMs).toBeLessThan(200 + 2 * 500 + slackMs);
    expect(errors.length).toBeGreaterThan(0); // the outage is reported, not hidden
  }, 40_000);
});
