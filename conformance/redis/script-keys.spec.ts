import { Engine } from '../../lib/engine/engine.js';
import { queueKeys } from '../../lib/engine/keys.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue } from '../harness/queue.js';
import { engineRedis, monitorQueue, scanKeys } from '../harness/redis.js';

// A script call passes one key, the queue's `tasks`, and the script names the
// others from it (lib/engine/lua/loader.ts): cheaper for Redis than passing
// all of them, and it must still name exactly the queue's own keys.
describe('the keys of a script call', () => {
  const queue = useQueue();

  it('passes only the queue’s tasks key', async () => {
    const q = queue();
    const engine = q.engine('one');
    await engine.create({ meta: { k: 'warm' } }); // loads the library first
    const calls: string[][] = [];
    const monitor = await monitorQueue(q.redis, (args) => {
      const command = args[0]?.toLowerCase();
      if (command === 'fcall' || command === 'evalsha' || command === 'eval') calls.push(args);
    });
    try {
      await engine.create({ meta: { k: 'a' } });
      await engine.delete((await engine.search()) as Task);
    } finally {
      await monitor.stop();
    }
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const args of calls) expect(args.slice(2, 4)).toEqual(['1', q.key.tasks]);
  });

  it('names each queue’s own keys, for more queues than a library keeps tables of', async () => {
    const q = queue();
    const names = Array.from({ length: 70 }, (_, index) => `${q.name}-${index}`);
    const engines = names.map(
      (name) => new Engine({ redis: engineRedis(), queue: name, worker: 'one', clock: q.clock }),
    );
    try {
      // 70 queues, then the first ones again: their key tables were dropped and made anew
      for (const [index, engine] of [...engines, ...engines.slice(0, 3)].entries()) {
        await engine.create({ meta: { n: String(index) } });
      }
      for (const [index, name] of names.entries()) {
        const key = queueKeys(name);
        const created = index < 3 ? 2 : 1;
        expect(await q.redis.hlen(key.tasks)).toBe(created);
        expect(await q.redis.zcard(key.ready)).toBe(created);
        const task = (await engines[index]?.search()) as Task;
        expect(task.meta?.['n']).toBe(String(index));
        expect(await q.redis.zcard(key.leases)).toBe(1);
      }
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
      for (const name of names) {
        const keys = await scanKeys(q.redis, `rescue.io:{${name}}`);
        if (keys.length > 0) await q.redis.del(...keys);
      }
    }
  });
});
