import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { createMany, idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.6 step 1 (retention): expire deletes a task that has no cron
// map and is not a gate template once now − created > cleanup (strictly).

const everything: Task = { meta: { '*': '*' } };

async function ids(engine: Engine): Promise<string[]> {
  return (await engine.lister(everything)).map(idOf);
}

describe('expire: retention', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('keeps a task created at 00:00:01 at 2023-10-27T00:00:01Z and deletes it at 2023-10-27T00:00:01.001Z (default cleanup)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ meta: { k: 'foo' } });
    q.clock.set('2023-10-27T00:00:01Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual([task]);
    q.clock.set('2023-10-27T00:00:01.001Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual([]);
    expect(await eon.exists({ meta: { k: 'foo' } })).toBe(false);
  });

  it('deletes every kind of task without a cron map, owned or not, once past retention', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const doomed: string[] = [];
    const keep = async (task: Task) => {
      doomed.push(idOf(await eon.create(task)));
    };

    // an emitted child, from a template created first (the template stays)
    const template = await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { kind: 'template' },
    });
    q.clock.set('2023-10-20T00:01:00.5Z');
    await eon.ticker();
    const child = (await eon.lister({ meta: { kind: 'template' } })).find(
      (task) => task.root !== undefined,
    );
    doomed.push(idOf(child));

    await keep({ meta: { kind: 'plain, owned' } });
    expect(await eon.search({ meta: { kind: 'plain, owned' } })).toBeDefined();
    await keep({ meta: { kind: 'plain' } });
    await keep({
      meta: { kind: 'unicast, owned' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
    });
    expect(await etw.search({ meta: { kind: 'unicast, owned' } })).toBeDefined();
    await keep({
      meta: { kind: 'unicast' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eth' },
    });
    await keep({ meta: { kind: 'broadcast' }, node: { [Label.Method]: Method.All } });
    await keep({ meta: { kind: 'trigger' }, gate: { g: 'trigger' } });
    await keep({ meta: { kind: 'leaf' }, root: { nothing: 'matches' } });
    await keep({ meta: { kind: 'paging' }, sync: { [Label.Paging]: '1' } });
    // halted: cancel 1, requeued once by a paging delete
    await keep({
      core: { [Label.Cancel]: '1' },
      meta: { kind: 'halted' },
      sync: { [Label.Paging]: '0' },
    });
    const claimed = await etw.search({ meta: { kind: 'halted' } });
    await etw.delete({ ...claimed, sync: { [Label.Paging]: '1' } });
    const [halted] = await eon.lister({ meta: { kind: 'halted' } });
    expect(halted?.core?.[Label.Cycles]).toBe('1');

    const before = await ids(eon);
    expect(before).toHaveLength(doomed.length + 1);
    // all of them were created at 00:01:00.5: exactly cleanup later they stay
    q.clock.set('2023-10-27T00:01:00.5Z');
    await eon.expire();
    expect(await ids(eon)).toEqual(before);
    q.clock.set('2023-10-27T00:01:00.501Z');
    await eon.expire();
    expect(await ids(eon)).toEqual([idOf(template)]);
  });

  it('never deletes cron templates, gate templates, exact, deferred or other cron tasks', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 1000 });
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { kind: 'cron template' } });
    await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { kind: 'broadcast template' },
      node: { [Label.Method]: Method.All },
    });
    await eon.create({ gate: { g: 'waiting' }, meta: { kind: 'gate template' } });
    await eon.create({ gate: {}, meta: { kind: 'empty gate template' } });
    await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:05Z' },
      meta: { kind: 'exact, due later' },
    });
    await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:02Z' },
      meta: { kind: 'exact, past' },
    });
    await eon.create({
      cron: { [Label.TickP1]: '2023-10-20T00:00:02Z' },
      meta: { kind: 'other cron' },
    });
    await eon.create({ cron: { foo: 'bar' }, meta: { kind: 'other cron, user key' } });
    await eon.create({ meta: { kind: 'deferred' } });
    const claimed = await eon.search({ meta: { kind: 'deferred' } });
    await eon.delete({ ...claimed, cron: { [Label.Defer]: 'hour' } });
    const before = await eon.lister(everything);
    expect(before).toHaveLength(9);
    expect(before.find((task) => task.meta?.['kind'] === 'deferred')?.cron).toEqual({
      [Label.Defer]: 'hour',
      [Label.TickP1]: '2023-10-20T01:00:01Z',
    });
    q.clock.set('2023-12-20T00:00:00Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual(before);
  });

  it('revokes but never deletes an owned exact task past retention', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 1000 });
    const exact = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:02Z' },
      meta: { kind: 'exact' },
    });
    q.clock.set('2023-10-20T00:00:02Z');
    expect(idOf(await eon.search())).toBe(idOf(exact));
    q.clock.set('2023-11-20T00:00:00Z');
    await eon.expire();
    const [after] = await eon.lister(everything);
    expect(idOf(after)).toBe(idOf(exact));
    expect(after?.core).toEqual({ [Label.Object]: idOf(exact), [Label.Cycles]: '1' });
  });

  it('deletes an owned task past retention behind more than a batch of owned tasks retention keeps', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 1000 });
    // 501 owned tasks with a cron map (kept), older than the plain owned one
    await createMany(q, 501, (index) => ({
      cron: { foo: 'bar' },
      meta: { kind: 'cron', n: String(index) },
    }));
    for (let claimed = 0; claimed < 501; claimed += 50)
      await Promise.all(Array.from({ length: 50 }, () => eon.search({ meta: { kind: 'cron' } })));
    const plain = await eon.create({ meta: { kind: 'plain' } });
    expect(idOf(await eon.search({ meta: { kind: 'plain' } }))).toBe(idOf(plain));
    expect(await q.redis.zcard(q.key.owned)).toBe(502);
    q.clock.set('2023-10-20T00:00:02.001Z'); // past retention, the leases (30 s) run on
    // counts alone (no step time): the calls of the run go on past them, a batch a call
    await q.engine('etw', { cleanup: 1000, stepTime: 0 }).expire();
    expect(await eon.exists({ core: { [Label.Object]: idOf(plain) } })).toBe(false);
    expect(await q.redis.zcard(q.key.owned)).toBe(501);
    expect(await q.redis.hget(q.key.owners, 'eon')).toBe('501');
  });

  it('uses the cleanup option of the engine that runs expire', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const short = q.engine('etw', { cleanup: 60_000 });
    const task = await eon.create({ meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:01:01Z');
    await short.expire();
    expect(await eon.lister(everything)).toEqual([task]);
    q.clock.set('2023-10-20T00:01:01.001Z');
    await eon.expire(); // 7 days: keeps it
    expect(await eon.lister(everything)).toEqual([task]);
    await short.expire(); // 60 s: deletes it
    expect(await eon.lister(everything)).toEqual([]);
  });

  it('deletes only the tasks past retention and keeps the younger ones', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 10_000 });
    const old = await eon.create({ meta: { k: 'old' } });
    q.clock.set('2023-10-20T00:00:05Z');
    const young = await eon.create({ meta: { k: 'young' } });
    q.clock.set('2023-10-20T00:00:11.001Z');
    await eon.expire();
    expect(await ids(eon)).toEqual([idOf(young)]);
    expect(await eon.exists({ core: { [Label.Object]: idOf(old) } })).toBe(false);
  });

  it('deletes more than 500 victims of every kind in one expire call', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const kinds: Task[] = [
      { meta: { kind: 'plain' } },
      { meta: { kind: 'broadcast' }, node: { [Label.Method]: Method.All } },
      { meta: { kind: 'trigger' }, gate: { g: 'trigger' } },
      { meta: { kind: 'unicast' }, node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' } },
    ];
    for (let chunk = 0; chunk < 6; chunk++) {
      await Promise.all(
        Array.from({ length: 200 }, (_, index) => {
          const kind = kinds[index % kinds.length]!;
          return eon.create({ ...kind, meta: { ...kind.meta, n: `${chunk}-${index}` } });
        }),
      );
    }
    // half of them owned
    await Promise.all(Array.from({ length: 300 }, () => eon.search({ meta: { kind: 'plain' } })));
    await Promise.all(Array.from({ length: 300 }, () => etw.search({ meta: { kind: 'unicast' } })));
    const listed = await eon.lister(everything);
    expect(listed).toHaveLength(1200);
    expect(listed.filter((task) => task.core?.[Label.Worker] !== undefined)).toHaveLength(600);
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { kind: 'template' },
    });
    q.clock.set('2023-10-28T00:00:00Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual([template]);
  });
});
