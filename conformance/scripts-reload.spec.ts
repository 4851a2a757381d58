import { Redis } from 'ioredis';
import { Engine } from '../lib/engine/engine.js';
import { Label } from '../lib/task/label.js';
import { startRedisServer } from '../lib/testing/redis-server.js';
import { fakeClock } from '../spec/helpers/clock.js';
import { useQueue } from './harness/queue.js';

describe('scripts', () => {
  const queue = useQueue();

  it('keep working after SCRIPT FLUSH (NOSCRIPT, then EVAL)', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'a' } });
    await queue().redis.script('FLUSH');
    await eon.create({ meta: { k: 'b' } });
    const claimed = await eon.search();
    expect(claimed?.core?.[Label.Worker]).toBe('eon');
    await queue().redis.script('FLUSH');
    await eon.delete(claimed!);
    expect((await eon.lister({ meta: { '*': '*' } })).map((task) => task.meta?.['k'])).toEqual([
      'b',
    ]);
  });

  it('keep working after the Redis server restarts', async () => {
    // A server of its own, so the restart does not disturb other tests.
    let server = await startRedisServer({ env: {} });
    const port = server.port;
    const clock = fakeClock();
    const eon = new Engine({ redis: server.url, queue: 'restart', worker: 'eon', clock });
    try {
      await eon.create({ meta: { k: 'before' } });
      await server.stop();
      server = await startRedisServer({ env: {}, port });
      // the new server is empty and has never seen the scripts
      await eon.create({ meta: { k: 'after' } });
      const claimed = await eon.search();
      expect(claimed?.meta).toEqual({ k: 'after' });
      await eon.delete(claimed!);
      expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
    } finally {
      await eon.close();
      await server.stop();
    }
  });

  it('run on a client the caller passed in, which stays open after close', async () => {
    const client = new Redis(process.env['REDIS_URL'] ?? '');
    try {
      const eon = queue().engine('eon', { redis: client });
      await eon.create({ meta: { k: 'v' } });
      await client.script('FLUSH');
      expect(await eon.search()).toBeDefined();
      await eon.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });
});
