import type { Engine } from '../../lib/engine/engine.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { TestQueue } from './queue.js';

// Probes that look at the engine from outside, through its public calls.

/**
 * countsInN tells whether the tasks stored so far (besides three probe tasks)
 * count as candidates, through the share gate: probes A, C, B are stored, eon
 * claims A and etw claims C, so with n candidates etw's share is ⌊n / 2⌋. etw's
 * next search claims B when n ≥ 4, that is when the other task counts in n, and
 * returns undefined when n = 3. The probes' filter keeps the pick away from the
 * other task. Only for a queue with exactly one other task.
 */
export async function countsInN(q: TestQueue): Promise<boolean> {
  const eon = q.engine('eon');
  const etw = q.engine('etw');
  const probe: Task = { meta: { probe: '*' } };
  await eon.create({ meta: { probe: 'A' } });
  await eon.create({ meta: { probe: 'C' } });
  await eon.create({ meta: { probe: 'B' } });
  expect((await eon.search(probe))?.meta).toEqual({ probe: 'A' });
  expect((await etw.search(probe))?.meta).toEqual({ probe: 'C' });
  const second = await etw.search(probe);
  expect([undefined, 'B']).toContain(second?.meta?.['probe']);
  return second !== undefined;
}

/**
 * storeUnreadableTemplate makes the engine itself store a cron template whose
 * @every it cannot read: a paging requeue keeps the copy's cron. Returns its id.
 */
export async function storeUnreadableTemplate(engine: Engine): Promise<string> {
  await engine.create({ meta: { k: 'foo' } });
  const claimed = await engine.search();
  if (claimed === undefined) throw new Error('storeUnreadableTemplate: nothing to claim');
  await engine.delete({
    ...claimed,
    cron: { [Label.Every]: 'every blue moon' },
    sync: { [Label.Paging]: '1' },
  });
  const id = claimed.core?.[Label.Object];
  if (id === undefined) throw new Error('storeUnreadableTemplate: no object id');
  return id;
}
