import { featureKeys } from '../../lib/engine/keys.js';
import { failTask, filterList, searchFor } from '../../lib/engine/runtime.js';
import { Label, Method } from '../../lib/task/label.js';
import { queueContents } from '../harness/queue-state.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// The `features` hash (docs/redis-layout.md, include/features.lua): a queue
// notes each optional key it writes, in the script that writes it, so that
// hot paths read one hash instead of probing each key. A field is never
// missing while its key exists; repair makes the hash anew from the keys.

/** The fields of `features`, and the optional keys that exist. */
async function featuresAndKeys(q: TestQueue): Promise<{ fields: string[]; keys: string[] }> {
  const fields = Object.keys(await q.redis.hgetall(q.key.features)).sort();
  const present = new Set((await q.keys()).map((key) => key.slice(q.prefix.length + 1)));
  return { fields, keys: featureKeys.filter((name) => present.has(name)).sort() };
}

/** A queue that uses most optional keys: due, broadcast, unicast, cron, held, rooted and filtered tasks, a parked slot, a failed attempt, the events stream. */
async function busyQueue(q: TestQueue): Promise<void> {
  const eon = q.engine('eon');
  await eon.events();
  await eon.create({ meta: { k: 'plain' } });
  const first = await eon.create({ meta: { k: 'first' } });
  await eon.create({ meta: { k: 'later' } }, { after: first.core![Label.Object]! });
  await eon.create({ meta: { k: 'due' }, cron: { [Label.Exact]: '2023-10-20T01:00:00Z' } });
  await eon.create({ meta: { k: 'all' }, node: { [Label.Method]: Method.All } });
  await eon.create({
    meta: { k: 'uni' },
    node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
  });
  await eon.create({ meta: { k: 'hourly' }, cron: { [Label.Every]: 'hour' } });
  await eon.create({ meta: { k: 'leaf' }, root: { k: 'nobody' } });
  const claimed = await eon.search({ meta: { k: 'plain' } });
  await failTask(eon, claimed!, 'failed', '{}');
  await searchFor(eon, filterList([{ meta: { k: 'nothing' } }]), [], { slot: 's1', forMs: 60_000 });
}

describe('the features hash', () => {
  const queue = useQueue();

  it('names every optional key the queue holds, set by the script that wrote it', async () => {
    const q = queue();
    await busyQueue(q);
    const { fields, keys } = await featuresAndKeys(q);
    expect(keys).toEqual(
      expect.arrayContaining([
        'attempts',
        'broadcast',
        'events',
        'filters',
        'followers',
        'parked-slots',
        'ready-uni',
        'roots',
        'waiting',
      ]),
    );
    expect(keys.filter((name) => !fields.includes(name))).toEqual([]);
    await expect(queueContents(q.redis, q.prefix)).resolves.toBeDefined(); // its own check of the same
  });

  it('is made anew by repair from the keys, an old queue without it included', async () => {
    const q = queue();
    await busyQueue(q);
    await q.redis.del(q.key.features);
    await q.engine('etw').repair();
    const { fields, keys } = await featuresAndKeys(q);
    expect(keys.length).toBeGreaterThan(5);
    expect(keys.filter((name) => !fields.includes(name))).toEqual([]);
  });

  it('stays empty in a queue that only creates plain tasks', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'a' } });
    await eon.create({ meta: { k: 'b' } });
    expect(await q.redis.exists(q.key.features)).toBe(0);
  });
});
