import type { Task } from '../../lib/task/task.js';
import type { Handler } from '../../lib/worker/handler.js';
import type { Worker } from '../../lib/worker/worker.js';
import { countingClient, type CountingClient } from '../harness/counting.js';
import { resolved, until, useWorkerQueue } from '../harness/worker.js';

// One claimable task wakes one idle slot, of a worker that may take it: no
// thundering herd. Workers here poll once a minute, so within a test only
// wake-ups explain their searches.

describe('Worker wake-ups, one slot per task', () => {
  const queue = useWorkerQueue();
  const clients: CountingClient[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map(({ client }) => client.quit()));
  });

  /** start starts `count` workers of `slots` slots each, on counting clients, and waits until every slot parked. */
  async function start(count: number, slots: number, handler: (name: string) => Handler) {
    const workers: Worker[] = [];
    for (let index = 0; index < count; index++) {
      const counting = countingClient();
      clients.push(counting);
      const name = `w${index}`;
      const engine = queue().live(name, { redis: counting.client });
      workers.push(
        queue().worker(engine, [handler(name)], { concurrency: slots, pollInterval: 60_000 }),
      );
    }
    await Promise.all(workers.map((worker) => worker.start()));
    // every slot parked, and its worker has heard the answer of the search that parked it
    await until(
      async () =>
        (await queue().redis.hlen(queue().key['parked-slots'])) === count * slots &&
        clients.every((counting) => counting.scripts('search') === slots),
      5_000,
      'every slot parked',
    );
    for (const counting of clients) counting.reset();
    return workers;
  }

  const searches = () => clients.reduce((sum, counting) => sum + counting.scripts('search'), 0);

  it('10 workers of 10 idle slots: 100 creates cost about one search each', async () => {
    const ensured: Task[] = [];
    await start(10, 10, () => ({
      filter: () => true,
      ensure: (task) => resolved(ensured.push(task)),
    }));
    const producer = queue().live('producer');
    for (let index = 0; index < 100; index++) await producer.create({ meta: { n: String(index) } });
    await until(() => ensured.length === 100, 10_000, 'every task ensured');
    // one search per create, and now and then one more: a woken slot that the
    // share gate turns away (the shares moved before its search) hands its
    // wake-up to another parked slot, which may find the task already taken
    // by a busy slot's next claim (conformance/search/search-parking.spec.ts);
    // a herd would be 10,000
    expect(searches()).toBeLessThanOrEqual(110);
    expect(ensured.map((task) => task.meta?.['n']).sort()).toEqual(
      Array.from({ length: 100 }, (_, index) => String(index)).sort(),
    );
  });

  it('a task of one kind wakes no worker of another kind', async () => {
    const ensured: string[] = [];
    await start(3, 4, (name) => ({
      labels: { meta: { kind: name } },
      filter: (task) => task.meta?.['kind'] === name,
      ensure: (task) => resolved(ensured.push(`${name}:${task.meta?.['n']}`)),
    }));
    const producer = queue().live('producer');
    for (let index = 0; index < 5; index++) {
      await producer.create({ meta: { kind: 'w1', n: String(index) } });
    }
    await until(() => ensured.length === 5, 5_000, 'the w1 tasks ensured');
    expect(clients[0]?.scripts('search')).toBe(0);
    expect(clients[2]?.scripts('search')).toBe(0);
    expect(clients[1]?.scripts('search')).toBeLessThanOrEqual(5);
    expect(ensured.every((entry) => entry.startsWith('w1:'))).toBe(true);
  });
});
