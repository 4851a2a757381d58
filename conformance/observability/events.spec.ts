import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { QueueEvent } from '../../lib/engine/events.js';
import { noFilters } from '../../lib/engine/filters.js';
import { deleteThenSearch } from '../../lib/engine/runtime.js';
import { useQueue } from '../harness/queue.js';
import { idOf, next, useWorkerQueue } from '../harness/worker.js';

// The events stream: every script that changes a task adds what happened,
// for `rescue tail`; engine.events() reads it.

const brief = (events: QueueEvent[]) =>
  events.map((event) => [event.kind, event.task, event.worker]);

describe('engine.events()', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('records nothing until someone reads the events: a queue nobody watches pays nothing', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.create({ meta: { k: 'a' } });
    await one.search();
    expect(await q.keys()).not.toContain(q.key.events);
    expect(await one.events()).toEqual([]);
    const b = await one.create({ meta: { k: 'b' } });
    expect(brief(await one.events())).toEqual([['created', idOf(b), '']]);
    const ttl = await q.redis.pttl(q.key.events);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it("records the worker runtime's step (delete-search) while someone reads, and nothing before", async () => {
    const q = queue();
    const one = q.engine('one');
    const tasks = [];
    for (let index = 0; index < 3; index++)
      tasks.push(await one.create({ meta: { n: String(index) } }));
    const step = async (task: Task) => {
      const [outcome] = await deleteThenSearch(one, [{ task, filters: noFilters }]);
      if (outcome?.deleted !== true || outcome.next === undefined) throw new Error('no next task');
      return outcome.next;
    };
    const second = await step((await one.search()) as Task);
    expect(await q.keys()).not.toContain(q.key.events);
    expect(await one.events()).toEqual([]); // from now on, the queue records events
    await step(second);
    expect(brief(await one.events())).toEqual([
      ['completed', idOf(tasks[1]), 'one'],
      ['claimed', idOf(tasks[2]), 'one'],
    ]);
  });

  it('records created, claimed, completed, revoked, requeued and released, in order', async () => {
    const q = queue();
    const one = q.engine('one', { expiry: 1_000 });
    const two = q.engine('two', { expiry: 1_000 });
    expect(await one.events()).toEqual([]); // from now on, the queue records events
    const a = await one.create({ meta: { k: 'a' } });
    const claimed = (await one.search()) as Task;
    await one.delete(claimed);
    const b = await one.create({ meta: { k: 'b' } });
    await two.search();
    q.clock.advance(2_000);
    await one.expire();
    const paged = (await one.search()) as Task;
    await one.delete({ ...paged, sync: { [Label.Paging]: 'page-2' } });
    const events = await one.events();
    expect(brief(events)).toEqual([
      ['created', idOf(a), ''],
      ['claimed', idOf(a), 'one'],
      ['completed', idOf(a), 'one'],
      ['created', idOf(b), ''],
      ['claimed', idOf(b), 'two'],
      ['revoked', idOf(b), 'two'],
      ['claimed', idOf(b), 'one'],
      ['requeued', idOf(b), 'one'],
    ]);
    expect(events[0]?.at).toEqual(new Date('2023-10-20T00:00:00Z'));
    expect(events[5]?.at).toEqual(new Date('2023-10-20T00:00:02Z'));
  });

  it('records the children a template emits', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.events();
    const template = await one.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 't' } });
    q.clock.set('2023-10-20T00:01:00.5Z');
    await one.ticker();
    const child = (await one.tasks({ state: 'claimable' })).tasks[0];
    expect(brief(await one.events())).toEqual([
      ['created', idOf(template), ''],
      ['emitted', idOf(child), ''],
    ]);
  });

  it('pages after an event id, and reads the newest ones without one', async () => {
    const q = queue();
    const one = q.engine('one');
    await one.events();
    for (let index = 0; index < 5; index++) await one.create({ meta: { k: String(index) } });
    const newest = await one.events({ limit: 2 });
    expect(newest).toHaveLength(2);
    const all = await one.events();
    expect(all.slice(3)).toEqual(newest);
    expect(await one.events({ after: all[1]?.id as string, limit: 2 })).toEqual(all.slice(2, 4));
    expect(await one.events({ after: all[4]?.id as string })).toEqual([]);
  });

  it('rejects a bad limit or id, and repair records nothing', async () => {
    const q = queue();
    const one = q.engine('one');
    await expect(one.events({ limit: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(one.events({ after: 'x' })).rejects.toBeInstanceOf(TypeError);
    await one.events();
    await one.create({ meta: { k: 'a' } });
    await one.repair();
    expect((await one.events()).map((event) => event.kind)).toEqual(['created']);
  });
});

describe('events of the worker runtime', () => {
  const queue = useWorkerQueue();

  it('records failed with the reason when an ensure rejects', async () => {
    const q = queue();
    const engine = q.live('eon');
    const worker = q.worker(engine, [
      {
        filter: () => true,
        ensure: () => Promise.reject(new Error('the printer is on fire')),
      },
    ]);
    worker.on('error', () => {});
    const failed = next(worker, 'task:failed', 5_000);
    await engine.events();
    await worker.start();
    const task = await engine.create({ meta: { k: 'x' } });
    await failed;
    let events: QueueEvent[] = [];
    for (let tries = 0; tries < 200 && !events.some((event) => event.kind === 'failed'); tries++) {
      events = await engine.events();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(events.find((event) => event.kind === 'failed')).toMatchObject({
      task: idOf(task),
      worker: 'eon',
      reason: 'the printer is on fire',
    });
  });
});
