import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, type TestQueue, useQueue } from '../harness/queue.js';

// Ownership under faults: an index and the record it points at can disagree when something
// else rewrites a label in place. The record decides: a pick checks the
// record against the pool it came from, a revocation counts the owner the
// index gave the task to, and neither hands out a task its record says is
// owned or halted. (Each test failed on the code before the fix: the task was
// handed out by every engine in turn, or the owner's count stayed forever.)

const everything: Task = { meta: { '*': '*' } };

/** store writes a record in the stored form (object id left out) over a task's field, as another program would. */
async function store(q: TestQueue, id: string, record: Task): Promise<void> {
  await q.redis.hset(q.key.tasks, id, JSON.stringify(record));
}

async function owners(q: TestQueue): Promise<Record<string, string>> {
  return q.redis.hgetall(q.key.owners);
}

describe('labels rewritten in place', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('does not hand out a claimable task whose record now names an owner, to any engine', async () => {
    const q = queue();
    const task = await q.engine('eon').create({ meta: { k: 'a' } });
    await store(q, idOf(task), {
      core: { [Label.Worker]: 'ghost', [Label.Expiry]: '2023-10-20T00:00:20Z' },
      meta: { k: 'a' },
    });

    const claims = [
      await q.engine('eon').search(),
      await q.engine('etw').search(),
      await q.engine('edr').search(),
    ];

    expect(claims).toEqual([undefined, undefined, undefined]);
    // the record keeps its owner: nothing overwrote it
    const [stored] = await q.engine('aux').lister(everything);
    expect(stored?.core?.[Label.Worker]).toBe('ghost');
  });

  it('revokes such a task once, and then hands it out once', async () => {
    const q = queue();
    const task = await q.engine('eon').create({ meta: { k: 'a' } });
    await store(q, idOf(task), {
      core: { [Label.Worker]: 'ghost', [Label.Expiry]: '2023-10-20T00:00:20Z' },
      meta: { k: 'a' },
    });
    expect(await q.engine('eon').search()).toBeUndefined();

    q.clock.set('2023-10-20T00:00:21Z');
    await q.engine('eon').expire();
    const first = await q.engine('etw').search();
    const second = await q.engine('edr').search();

    expect(idOf(first)).toBe(idOf(task));
    expect(first?.core?.[Label.Cycles]).toBe('1');
    expect(second).toBeUndefined();
    expect(await owners(q)).toEqual({ etw: '1' });
  });

  it('does not hand out a task whose cycles were raised in place to its cancel (halted)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ core: { [Label.Cancel]: '2' }, meta: { k: 'a' } });
    await store(q, idOf(task), {
      core: { [Label.Cancel]: '2', [Label.Cycles]: '2' },
      meta: { k: 'a' },
    });

    expect(await eon.search()).toBeUndefined();
    expect(await q.engine('etw').search()).toBeUndefined();

    // a reset of the circuit breaker makes it claimable again
    const [halted] = await eon.lister(everything);
    if (halted === undefined) throw new Error('the halted task is gone');
    await eon.cycles(halted);
    expect(idOf(await eon.search())).toBe(idOf(task));
  });

  it('leaves no owner count behind when an owner was removed from a record by hand', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const owned = await eon.create({ meta: { k: 'a' } });
    await eon.create({ meta: { k: 'b' } });
    expect(idOf(await eon.search())).toBe(idOf(owned));
    await store(q, idOf(owned), { core: {}, meta: { k: 'a' } });

    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();

    expect(await owners(q)).toEqual({});
    // with no phantom count, two workers share the queue evenly: each gets one
    const claimed = [await q.engine('etw').search(), await q.engine('edr').search()];
    expect(claimed.map((task) => task?.meta?.k).sort()).toEqual(['a', 'b']);
  });
});
