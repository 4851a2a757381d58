import type { Engine } from '../../lib/engine/engine.js';
import { filterList, searchFor } from '../../lib/engine/runtime.js';
import { leanClaimOf } from '../../lib/engine/search.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { queueContents } from '../harness/queue-state.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// search.lua claims on a plain queue through the lean claim (include/lean.lua)
// when the search brings nothing but a slot: most often a slot woken for a
// new task. Anything else runs the general search (include/search.lua). These
// tests run the same story on two queues with the same clock: one searches as
// the runtime does, one with an exclusion of an id no task has (the general
// search, with the same result), and compare what each answered and every key.

const nobody = '0000000000000-000000000000'; // an id no task has: the general path, excluding nothing

describe('search: the lean claim and the general search agree', () => {
  const lean = useQueue('2023-10-20T00:00:01Z');
  const general = useQueue('2023-10-20T00:00:01Z');

  type Story = (
    q: TestQueue,
    search: (engine: Engine, slot?: string) => Promise<Task | undefined>,
  ) => Promise<void>;

  /** both runs the story on each queue, its searches one way each, and compares every key. */
  async function both(story: Story): Promise<[Task | undefined, Task | undefined][]> {
    const found: (Task | undefined)[][] = [[], []];
    const ways = [[], [nobody]].map((exclude, side) => async (engine: Engine, slot?: string) => {
      const parking = slot === undefined ? undefined : { slot, forMs: 60_000 };
      const task = await searchFor(engine, filterList([]), exclude, parking);
      found[side]!.push(task);
      return task;
    });
    await story(lean(), ways[0]!);
    await story(general(), ways[1]!);
    const [a, b] = [lean(), general()];
    // every key but the answers kept for requests (each engine has its own instance)
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    expect(found[0]).toEqual(found[1]);
    return found[0]!.map((task, index) => [task, found[1]![index]]);
  }

  it('claims the oldest task for a slot that a create woke', async () => {
    const pairs = await both(async (q, search) => {
      const eon = q.engine('eon');
      expect(await search(eon, '0')).toBeUndefined(); // parks: nothing to claim
      await eon.create({ meta: { n: 'a' } }); // wakes it (and unparks it)
      await eon.create({ meta: { n: 'b' } });
      await search(eon, '0');
      await search(eon, '1');
      expect(await search(eon, '2')).toBeUndefined(); // parks again
    });
    expect(pairs.map(([task]) => task?.meta?.n)).toEqual([undefined, 'a', 'b', undefined]);
    expect(pairs[1]![0]!.core?.[Label.Worker]).toBe('eon');
    // the engine keeps the lean claim's record: its completion need not decode it
    expect(leanClaimOf(pairs[1]![0]!)?.token).toBe(pairs[1]![0]!.core?.[Label.Token]);
    expect(leanClaimOf(pairs[1]![1]!)).toBeUndefined();
  });

  it('keeps the owners counts and the share gate of several workers', async () => {
    const pairs = await both(async (q, search) => {
      const [eon, etw] = [q.engine('eon'), q.engine('etw')];
      for (const n of ['a', 'b', 'c', 'd', 'e']) await eon.create({ meta: { n } });
      await search(eon, '0');
      await search(etw, '0');
      await search(eon, '1');
      await search(etw, '1');
      await search(eon, '2'); // its share of five among two is three
      await search(eon, '3'); // and not four: the gate turns it away
    });
    expect(pairs.map(([task]) => task?.meta?.n ?? null)).toEqual(['a', 'b', 'c', 'd', 'e', null]);
  });

  it('claims a task whose lease ended and expire revoked, as the general search does', async () => {
    const pairs = await both(async (q, search) => {
      const eon = q.engine('eon');
      await eon.create({ meta: { n: 'a' } });
      await search(eon);
      q.clock.advance(120_000); // the lease ends
      await eon.expire();
      await search(eon, '0');
    });
    expect(pairs.map(([task]) => task?.core?.[Label.Cycles])).toEqual([undefined, '1']);
  });

  it('leaves a slot that is still parked, and an id without a record, to the general search', async () => {
    const pairs = await both(async (q, search) => {
      const eon = q.engine('eon');
      expect(await search(eon, '0')).toBeUndefined(); // parked
      expect(await search(eon, '1')).toBeUndefined(); // parked
      await eon.create({ meta: { n: 'a' } }); // wakes one of them: the other stays parked
      await search(eon, '1'); // unparks itself first
      await q.redis.zadd(q.key.ready, 0, '1697760000000-000000000099'); // the head: a stray id
      await eon.create({ meta: { n: 'b' } });
      await search(eon, '0');
    });
    expect(pairs.map(([task]) => task?.meta?.n ?? null)).toEqual([null, null, 'a', 'b']);
  });
});
