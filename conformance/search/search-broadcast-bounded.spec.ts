import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { countingClient } from '../harness/counting.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// Broadcast delivery walks the queue's broadcast tasks from a floor per set of
// filters, at most 256 a step: what it passes (created before the engine
// started, matched by none of the filters, or received already) is settled, so
// a broadcast task an engine never takes stops costing it anything.

const queue = useQueue('2023-10-20T00:00:00Z');
const all: Task['node'] = { [Label.Method]: Method.All };

async function broadcasts(q: TestQueue, count: number, kind: string): Promise<void> {
  const producer = q.engine('producer');
  for (let start = 0; start < count; start += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - start) }, (_, offset) =>
        producer.create({ meta: { kind, n: String(start + offset) }, node: all }),
      ),
    );
  }
}

describe('broadcast tasks an engine never takes', () => {
  it('are walked past once, in steps of 256, and cost nothing after', async () => {
    const q = queue();
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: 0 });
      q.clock.advance(1);
      await broadcasts(q, 1_000, 'a');
      const filter = { meta: { kind: 'b' } };
      expect(await eon.search(filter)).toBeUndefined();
      expect(counting.scripts('search')).toBe(4); // 256 + 256 + 256 + 232
      counting.reset();
      expect(await eon.search(filter)).toBeUndefined();
      expect(counting.scripts('search')).toBe(1);
      // without a filter the same engine still receives them, oldest first
      expect((await eon.search())?.meta).toEqual({ kind: 'a', n: '0' });
    } finally {
      await counting.client.quit();
    }
  });

  it('passes over the ones it received without carrying their ids along', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.advance(1);
    await broadcasts(q, 300, 'a');
    for (let index = 0; index < 300; index++) {
      const copy = await eon.search();
      expect(copy?.meta?.['n']).toBe(String(index));
      await eon.delete(copy!);
    }
    expect(await eon.search()).toBeUndefined();
    // the 300 are below the floor: a search carries none of their ids
    const { ledger } = (
      eon as unknown as { context: { ledger: { skipIds(set: string): string[] } } }
    ).context;
    expect(ledger.skipIds('')).toEqual([]);
  });
});

describe('a sequence counter that went backwards', () => {
  it('is noticed, and broadcast tasks stored after it are still delivered', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.advance(1);
    await broadcasts(q, 3, 'a');
    for (let index = 0; index < 3; index++) await eon.delete((await eon.search())!);
    expect(await eon.search()).toBeUndefined();
    // Redis restored from a snapshot taken before the three were stored
    const ids = await q.redis.zrange(q.key.broadcast, 0, -1);
    await q.redis.zrem(q.key.broadcast, ...ids);
    await q.redis.hdel(q.key.tasks, ...ids);
    await q.redis.set(q.key.sequence, '0');
    q.clock.advance(60_000); // a restore takes a while
    const late = await q.engine('producer').create({ meta: { kind: 'late' }, node: all });
    expect(late.core?.[Label.Object]?.endsWith('000000000001')).toBe(true);
    expect((await eon.search())?.meta).toEqual({ kind: 'late' });
  });
});
