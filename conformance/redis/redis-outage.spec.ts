import { randomUUID } from 'node:crypto';
import { Engine } from '../../lib/engine/engine.js';
import { RedisUnavailableError } from '../../lib/errors.js';
import { elapsed, outageProxy, type OutageProxy } from '../harness/outage.js';
import { redisUrl } from '../harness/redis.js';
import { idOf, within } from '../harness/worker.js';

// An engine whose network to Redis goes away while calls wait: they reject
// with RedisUnavailableError within connectTimeout, and a command not sent by
// then never runs once the network is back. Runs on one server through a
// proxy (conformance/harness/modes.js leaves it out of the cluster and ACL
// runs).

/** How much later than connectTimeout a call may reject: timers and a loaded machine. */
const slackMs = 1_500;

describe('an engine whose network to Redis goes away', () => {
  let proxy: OutageProxy;
  let engine: Engine;
  let watcher: Engine;
  const queue = `test-${randomUUID()}`;

  beforeEach(async () => {
    proxy = await outageProxy(redisUrl());
    engine = new Engine({ redis: proxy.url, queue, worker: 'eon', connectTimeout: 400 });
    watcher = new Engine({ redis: redisUrl(), queue, worker: 'etw' });
  });

  afterEach(async () => {
    await engine.close();
    await watcher.close();
    await proxy.close();
  });

  it('rejects calls under way and new ones within connectTimeout; those not sent never run when it is back', async () => {
    const first = await engine.create({ meta: { k: 'before' } });
    const waiting = engine.wait(idOf(first));
    waiting.catch(() => {}); // looked at below
    proxy.cut(); // a black hole: connections are accepted and hear nothing
    const ended = await within(
      Promise.all([
        elapsed(() => engine.create({ meta: { k: 'during' } })),
        elapsed(() => engine.stats()),
        elapsed(() => engine.status(idOf(first))),
      ]),
      10_000,
      'the calls during the outage ended',
    );
    for (const { error, ms } of ended) {
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect(ms).toBeLessThan(400 + slackMs);
    }
    proxy.restore();
    // the same engine works again once the network is back
    const after = await within(engine.create({ meta: { k: 'after' } }), 10_000, 'a create after');
    const kept = await watcher.lister({ meta: { k: '*' } });
    expect(kept.map((task) => task.meta?.['k']).sort()).toEqual(['after', 'before']);
    expect(idOf(after)).not.toBe(idOf(first));
  });
});
