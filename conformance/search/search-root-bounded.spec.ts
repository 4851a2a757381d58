import { TaskLimitError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { countingClient } from '../harness/counting.js';
import { createMany, idOf, type TestQueue, useQueue } from '../harness/queue.js';

// Leaves with the same root form one group: a task stored with the root's
// pairs in its meta is checked against the groups anchored at one of its
// pairs, never against every leaf; search deletes the leaves of an obsolete
// group 64 a step; what has to read the queue (a key a root names for the
// first time, the witness of a new group among the tasks stored before) are
// jobs of at most 256 records a script.

const queue = useQueue('2023-10-20T00:00:00Z');

describe('leaves with one root', () => {
  it('are one group: a task with the root in its meta marks it, and search deletes them 64 a step', async () => {
    const q = queue();
    await createMany(q, 1_000, (index) => ({ meta: { n: String(index) }, root: { job: 'x' } }));
    expect(await q.redis.hlen(q.key.roots)).toBe(1);
    expect(await q.redis.zcard(q.key['root-leaves'])).toBe(1_000);

    const witness = await q.engine('producer').create({ meta: { job: 'x' } });
    expect(await q.redis.zcard(q.key['obsolete-groups'])).toBe(1);

    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: 0 });
      expect(idOf(await eon.search())).toBe(idOf(witness));
      // 15 steps of 64 deletions, and a 16th that deletes the last 40 and claims
      expect(counting.scripts('search')).toBe(Math.ceil(1_000 / 64));
    } finally {
      await counting.client.quit();
    }
    expect(await q.redis.exists(q.key['root-leaves'], q.key.roots)).toBe(0);
  });
});

describe('a root of several pairs', () => {
  it('finds its witness under the rarest pair, and a leaf stored into a big queue waits for its jobs', async () => {
    const q = queue();
    await createMany(q, 500, (index) => ({ meta: { kind: 'a', n: String(index) } }));
    const witness = await q.engine('producer').create({ meta: { kind: 'a', n: '7', id: '7' } });
    const leaf = await q.engine('producer').create({
      meta: { name: 'leaf' },
      root: { kind: 'a', id: '7' },
    });
    const eon = q.engine('eon');
    // the keys kind and id are listed a job step (256 records) per script
    for (let step = 0; step < 8; step++) await eon.expire();
    expect(await q.redis.llen(q.key['root-jobs'])).toBe(0);
    expect(await q.redis.hget(q.key.witnesses, await groupOf(q))).toBe(idOf(witness));
    await eon.search();
    expect(await eon.exists({ core: { [Label.Object]: idOf(leaf) } })).toBe(false);
  });

  it('looks for another witness once the one it had is gone', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'a', j: 'b' } });
    const first = await eon.create({ meta: { name: 'first', k: 'a', j: 'b' } });
    await eon.create({ meta: { name: 'second', k: 'a', j: 'b' } });
    await eon.delete({ core: { [Label.Object]: idOf(first), [Label.Bypass]: 'true' } });
    expect((await eon.search())?.meta?.['name']).toBe('second');
    expect(await eon.exists({ core: { [Label.Object]: idOf(leaf) } })).toBe(false);
  });
});

describe('roots with patterns', () => {
  it('are at most 256 different ones in a queue: a create of another is refused and writes nothing', async () => {
    const q = queue();
    await createMany(q, 256, (index) => ({
      meta: { n: String(index) },
      root: { [`k${index}*`]: 'v' },
    }));
    const eon = q.engine('eon');
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(
        eon.create({ meta: { n: 'one more' }, root: { 'z*': 'v' } }),
      ).rejects.toBeInstanceOf(TaskLimitError);
    });
    // a root with patterns the queue has already is fine
    await eon.create({ meta: { n: 'again' }, root: { 'k0*': 'v' } });
  });
});

async function groupOf(q: TestQueue): Promise<string> {
  const [gid] = await q.redis.hkeys(q.key.roots);
  return gid ?? '';
}
