import { Label } from '../../lib/task/label.js';
import { countingClient } from '../harness/counting.js';
import { createMany as createTasks, useQueue, type TestQueue } from '../harness/queue.js';

// exists and lister read the queue in steps of about 500 records (and
// 256 KiB); a query that names one object id reads that record, and one that
// names a template's id reads its children, 500 a step.

const queue = useQueue('2023-10-20T00:00:00Z');

/** count tasks `{ meta: { n } }`, 500 in flight */
function createMany(q: TestQueue, count: number) {
  return createTasks(q, count, (index) => ({ meta: { n: String(index) } }), 500);
}

describe('exists and lister', () => {
  it('read one record for a query that names an object id, however big the queue', async () => {
    const q = queue();
    const created = await createMany(q, 6_000);
    const id = created[4_321]?.core?.[Label.Object] ?? '';
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client });
      expect(await eon.exists({ core: { [Label.Object]: id } })).toBe(true);
      expect(await eon.exists({ core: { [Label.Object]: id }, meta: { n: '1' } })).toBe(false);
      expect(counting.scripts('scan')).toBe(2);
      // without an id: steps of about 500 records at most (HSCAN batches of
      // about 32 until 500 are read, 256 KiB, or the stepTime), so at least 10
      // for 6,000 records
      expect(await eon.exists({ meta: { n: 'none' } })).toBe(false);
      expect(counting.scripts('scan')).toBeGreaterThanOrEqual(2 + 10);
    } finally {
      await counting.client.quit();
    }
  });

  it('read a template’s children for a query that names its id as their root', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const template = await eon.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 't' } });
    await createMany(q, 100);
    q.clock.set('2023-10-20T00:01:00.5Z');
    await eon.ticker();
    const root = { [Label.Object]: template.core?.[Label.Object] ?? '' };
    expect(await eon.exists({ root })).toBe(true);
    expect(await eon.exists({ root, meta: { k: 'other' } })).toBe(false);
  });

  it('read the children of a template with many (exists), 500 a step', async () => {
    const q = queue();
    const producer = q.engine('producer');
    const template = await producer.create({ gate: { g: 'waiting' }, meta: { k: 't' } });
    const root = { [Label.Object]: template.core?.[Label.Object] ?? '' };
    // each trigger that completes makes the gate template emit a child
    for (let start = 0; start < 1_200; start += 200) {
      const triggers = await Promise.all(
        Array.from({ length: 200 }, () =>
          producer.create({ gate: { g: 'trigger' }, meta: { k: 'x' } }),
        ),
      );
      const claimed = await Promise.all(
        triggers.map(() => producer.search({ gate: { g: 'trigger' } })),
      );
      await Promise.all(claimed.map((task) => producer.delete(task!)));
    }
    await createMany(q, 100); // others, not read
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, stepTime: 0 }); // counts alone
      expect(await eon.exists({ root, meta: { k: 't' } })).toBe(true);
      expect(counting.scripts('scan')).toBe(1);
      // no child matches: every child is read, in three steps
      expect(await eon.exists({ root, meta: { k: 'other' } })).toBe(false);
      expect(counting.scripts('scan')).toBe(4);
    } finally {
      await counting.client.quit();
    }
  });
});
