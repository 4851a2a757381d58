import { outcomeFields } from '../../lib/engine/outcome.js';
import { completeTask } from '../../lib/engine/runtime.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue } from '../harness/queue.js';

// What the queue keeps besides its tasks stays bounded: the kept answers of
// idempotent writes (one entry per engine instance and slot, for an hour) are
// swept a thousand per expire call, and outcome records are capped in bytes
// (large ones in count on their own), not in count alone.

describe('bounded growth', () => {
  const queue = useQueue();

  it('expire sweeps up to 1,000 kept answers a call: an hour-old crowd of engines goes in one run', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const requests = q.key.requests;
    const old = q.clock().getTime() - 3_700_000;
    const entries: string[] = [];
    for (let index = 0; index < 900; index++)
      entries.push(`instance-${index}:0`, `1|${old}|1697760001000-000000000001`);
    await q.redis.hset(requests, ...entries);
    await eon.expire();
    expect(await q.redis.hlen(requests)).toBe(0);
  });

  it('keeps at most 200 outcome records over 4 KiB, whatever the count cap, and every small one', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const large = outcomeFields({ result: 'x'.repeat(5_000) });
    const small = outcomeFields({ result: 42 });
    for (let index = 0; index < 210; index++) {
      await eon.create({ meta: { n: String(index) } });
      await completeTask(eon, (await eon.search()) as Task, index < 205 ? large : small, '');
    }
    const outcomes = await q.redis.hvals(q.key.outcomes);
    expect(outcomes.filter((json) => json.length > 4_096)).toHaveLength(200);
    expect(outcomes.filter((json) => json.length <= 4_096)).toHaveLength(5);
    expect(await q.redis.zcard(q.key['outcome-expiry'])).toBe(205);
  });
});
