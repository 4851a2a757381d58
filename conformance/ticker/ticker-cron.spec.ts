import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.9 (ticker) for `any` templates and cron expressions, with
// the consequences of §5.1 for concurrent tickers. Instants in comments are UTC.

const everything: Task = { meta: { '*': '*' } };

/** stored returns the stored task with this id (lister sees every task). */
async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

/** ticks returns a template's tick-1 and tick+1 labels as stored. */
async function ticks(
  engine: Engine,
  id: string,
): Promise<[string | undefined, string | undefined]> {
  const template = await stored(engine, id);
  return [template?.cron?.[Label.TickM1], template?.cron?.[Label.TickP1]];
}

/** childrenOf returns the stored children of a template, oldest first. */
async function childrenOf(engine: Engine, templateId: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter((task) => {
    const root = task.root ?? {};
    return Object.keys(root).length === 1 && root[Label.Object] === templateId;
  });
}

describe('ticker: the `any` template example of docs/semantics.md §3.9', () => {
  const queue = useQueue('2023-09-28T14:23:24.161Z');

  async function exampleUpTo1700(): Promise<{
    eon: Engine;
    etw: Engine;
    templateId: string;
    s1: Task;
  }> {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    const templateId = idOf(template);
    q.clock.set('2023-09-28T15:00:00.161Z');
    await eon.ticker();
    const s1 = await etw.search();
    q.clock.set('2023-09-28T16:00:00.161Z');
    await eon.ticker();
    q.clock.set('2023-09-28T17:00:00.161Z');
    await eon.ticker();
    if (s1 === undefined) throw new Error('etw found no child');
    return { eon, etw, templateId, s1 };
  }

  it('creates the template with tick-1 14:00 and tick+1 15:00', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    expect(template.cron).toEqual({
      [Label.Every]: 'hour',
      [Label.TickM1]: '2023-09-28T14:00:00Z',
      [Label.TickP1]: '2023-09-28T15:00:00Z',
    });
  });

  it('changes nothing and emits no child when ticker runs twice before the tick', async () => {
    const eon = queue().engine('eon');
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    const before = await eon.lister(everything);
    await eon.ticker();
    await eon.ticker();
    expect(await eon.lister(everything)).toEqual(before);
  });

  it('emits child S1 at 15:00:00.161 and moves tick+1 to 16:00, tick-1 staying 14:00', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T15:00:00.161Z');
    await eon.ticker();
    const children = await childrenOf(eon, templateId);
    expect(children).toHaveLength(1);
    const childId = idOf(children[0]);
    expect(childId).toMatch(/^1695913200161-\d{12}$/); // created at the ticker's now
    expect(children[0]).toEqual({
      core: { [Label.Object]: childId },
      meta: { k: 'foo' },
      node: { [Label.Method]: Method.Any },
      root: { [Label.Object]: templateId },
    });
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T16:00:00Z']);
  });

  it('hands S1 to a searching worker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    expect(await etw.search()).toBeUndefined(); // the template itself is never searchable
    q.clock.set('2023-09-28T15:00:00.161Z');
    await eon.ticker();
    const s1 = await etw.search();
    expect(s1?.root).toEqual({ [Label.Object]: templateId });
    expect(s1?.core?.[Label.Worker]).toBe('etw');
  });

  it('skips the ticks of 16:00 and 17:00 while S1 lingers, advancing only tick+1', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T15:00:00.161Z');
    await eon.ticker();
    await q.engine('etw').search();
    q.clock.set('2023-09-28T16:00:00.161Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T17:00:00Z']);
    q.clock.set('2023-09-28T17:00:00.161Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T18:00:00Z']);
  });

  it('lets eon delete the S1 copy carrying worker etw, and the next ticker moves tick-1 to 17:00', async () => {
    const { eon, templateId, s1 } = await exampleUpTo1700();
    expect(s1.core?.[Label.Worker]).toBe('etw');
    await eon.delete(s1);
    expect(await childrenOf(eon, templateId)).toEqual([]);
    await eon.ticker();
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T17:00:00Z', '2023-09-28T18:00:00Z']);
    expect(await childrenOf(eon, templateId)).toEqual([]);
  });

  it('gives the template the sync S1 was deleted with, and the next child copies it', async () => {
    const q = queue();
    const { eon, templateId, s1 } = await exampleUpTo1700();
    await eon.delete({ ...s1, sync: { lat: 'updated' } });
    expect((await stored(eon, templateId))?.sync).toEqual({ lat: 'updated' });
    await eon.ticker();
    q.clock.set('2023-09-28T18:00:00.161Z');
    await eon.ticker();
    const children = await childrenOf(eon, templateId);
    expect(children).toHaveLength(1);
    expect(children[0]?.sync).toEqual({ lat: 'updated' });
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T17:00:00Z', '2023-09-28T19:00:00Z']);
  });
});

describe('ticker: emission rules (docs/semantics.md §3.9)', () => {
  const queue = useQueue('2023-09-28T14:23:00Z');

  it('coalesces missed ticks: a template created at 14:23 and ticked at 18:30 emits exactly one child', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T15:00:00Z']);
    q.clock.set('2023-09-28T18:30:00Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T19:00:00Z']);
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
  });

  it('treats a tick+1 equal to now as due', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T14:59:59.999Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toEqual([]);
    q.clock.set('2023-09-28T15:00:00Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    // 15:00 is itself a point, so the next tick is 16:00
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T16:00:00Z']);
  });

  it('skips the grid point a template is created on, moves tick-1 to it at 14:30 without a child, and emits at 15:00', async () => {
    const q = queue();
    q.clock.set('2023-09-28T14:00:00Z');
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T13:00:00Z', '2023-09-28T15:00:00Z']);
    await eon.ticker();
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T13:00:00Z', '2023-09-28T15:00:00Z']);
    q.clock.set('2023-09-28T14:30:00Z');
    await eon.ticker();
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T15:00:00Z']);
    expect(await childrenOf(eon, templateId)).toEqual([]);
    q.clock.set('2023-09-28T15:00:00Z');
    await eon.ticker();
    const children = await childrenOf(eon, templateId);
    expect(children).toHaveLength(1);
    expect(idOf(children[0]).startsWith(String(Date.parse('2023-09-28T15:00:00Z')))).toBe(true);
  });

  it('emits one child per due tick however often ticker runs', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T15:00:01Z');
    for (let run = 0; run < 4; run++) await eon.ticker();
    const first = await childrenOf(eon, templateId);
    expect(first).toHaveLength(1);
    await eon.delete({ ...first[0], core: { ...first[0]?.core, [Label.Bypass]: 'true' } });
    for (let run = 0; run < 4; run++) await eon.ticker(); // same tick: nothing more
    expect(await childrenOf(eon, templateId)).toEqual([]);
    q.clock.set('2023-09-28T16:00:01Z');
    for (let run = 0; run < 4; run++) await eon.ticker();
    const second = await childrenOf(eon, templateId);
    expect(second).toHaveLength(1);
    expect(idOf(second[0])).not.toBe(idOf(first[0]));
  });

  it('emits one child per template and due tick when several engines run ticker at once', async () => {
    const q = queue();
    const engines = [q.engine('eon'), q.engine('etw'), q.engine('eth')];
    const eon = engines[0]!;
    const templateIds: string[] = [];
    for (let n = 0; n < 5; n++) {
      templateIds.push(
        idOf(await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { n: String(n) } })),
      );
    }
    q.clock.set('2023-09-28T15:00:01Z');
    await Promise.all(
      engines.flatMap((engine) => [engine.ticker(), engine.ticker(), engine.ticker()]),
    );
    for (const id of templateIds) expect(await childrenOf(eon, id)).toHaveLength(1);
    expect(await eon.lister(everything)).toHaveLength(10);

    // delete every child; the next tick again gives exactly one each
    for (const id of templateIds) {
      for (const child of await childrenOf(eon, id)) {
        await eon.delete({ ...child, core: { ...child.core, [Label.Bypass]: 'true' } });
      }
    }
    q.clock.set('2023-09-28T16:00:01Z');
    await Promise.all(
      engines.flatMap((engine) => [engine.ticker(), engine.ticker(), engine.ticker()]),
    );
    for (const id of templateIds) {
      expect(await childrenOf(eon, id)).toHaveLength(1);
      // no ticker ran between the deletions and the due tick, so tick-1 never moved (A needs a ticker before tick+1)
      expect(await ticks(eon, id)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T17:00:00Z']);
    }
    expect(await eon.lister(everything)).toHaveLength(10);
  });

  it('blocks on a child nobody picked: later ticks are skipped, not queued', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    const [first] = await childrenOf(eon, templateId);
    for (const instant of [
      '2023-09-28T16:00:01Z',
      '2023-09-28T17:00:01Z',
      '2023-09-28T18:00:01Z',
    ]) {
      q.clock.set(instant);
      await eon.ticker();
    }
    expect(await childrenOf(eon, templateId)).toEqual([first]);
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T19:00:00Z']);
  });

  it('handles templates oldest first, so their children are created in the same order', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateIds: string[] = [];
    for (let n = 0; n < 5; n++) {
      q.clock.advance(n % 2 === 0 ? 1 : 0);
      templateIds.push(
        idOf(await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { n: String(n) } })),
      );
    }
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    const children = (await eon.lister(everything)).filter((task) => task.root !== undefined);
    expect(children.map((child) => child.root?.[Label.Object])).toEqual(templateIds);
  });

  it('emits for every due template in one call, also for more than a few hundred', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await Promise.all(
      Array.from({ length: 450 }, (_, n) =>
        eon.create({ cron: { [Label.Every]: 'hour' }, meta: { n: String(n) } }),
      ),
    );
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    const listed = await eon.lister(everything);
    expect(listed.filter((task) => task.root !== undefined)).toHaveLength(450);
    expect(
      listed.filter((task) => task.cron?.[Label.TickP1] === '2023-09-28T16:00:00Z'),
    ).toHaveLength(450);
  });

  it('copies gate, meta, node and sync into the child, sets its root to the template, and gives it no cron', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({
        cron: { [Label.Every]: 'hour' },
        gate: { g0: 'trigger' },
        meta: { k: 'foo', other: 'x' },
        node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
        sync: { s: '1', t: '' },
      }),
    );
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    const [child] = await childrenOf(eon, templateId);
    expect(child).toEqual({
      core: { [Label.Object]: idOf(child) },
      gate: { g0: 'trigger' },
      meta: { k: 'foo', other: 'x' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      root: { [Label.Object]: templateId },
      sync: { s: '1', t: '' },
    });
    // the unicast target is copied: only etw may take the child
    expect(await eon.search()).toBeUndefined();
    expect(idOf(await q.engine('etw').search())).toBe(idOf(child));
  });

  it('keeps maps absent on the template absent on the child, and empty ones empty', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, sync: {} }),
    );
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    const [child] = await childrenOf(eon, templateId);
    expect(child && Object.keys(child).sort()).toEqual(['core', 'meta', 'node', 'root', 'sync']);
    expect(child?.sync).toEqual({});
  });

  it('emits trigger tasks from a template with trigger values, and deleting one counts toward gate templates', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({
        cron: { [Label.Every]: 'hour' },
        gate: { g0: 'trigger' },
        meta: { k: 'foo' },
      }),
    );
    const gateId = idOf(await eon.create({ gate: { g0: 'waiting' }, meta: { k: 'gated' } }));
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    const child = await eon.search();
    expect(child?.root).toEqual({ [Label.Object]: templateId });
    await eon.delete(child!);
    const fired = (await eon.lister({ meta: { k: 'gated' } })).filter(
      (task) => task.root?.[Label.Object] === gateId,
    );
    expect(fired).toHaveLength(1);
  });

  it('runs a `3 days` template across the year end: 2022-12-30, 2023-01-02, 2023-01-05', async () => {
    const q = queue();
    q.clock.set('2022-12-29T12:00:00Z');
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: '3 days' }, meta: { k: 'foo' } }),
    );
    expect(await ticks(eon, templateId)).toEqual(['2022-12-27T00:00:00Z', '2022-12-30T00:00:00Z']);
    const points = [
      '2022-12-30T00:00:00Z',
      '2023-01-02T00:00:00Z',
      '2023-01-05T00:00:00Z',
      '2023-01-08T00:00:00Z',
    ];
    for (let index = 0; index + 1 < points.length; index++) {
      q.clock.set(points[index]!.replace('Z', '.5Z'));
      await eon.ticker();
      const children = await childrenOf(eon, templateId);
      expect(children).toHaveLength(1);
      expect(await ticks(eon, templateId)).toEqual([
        index === 0 ? '2022-12-27T00:00:00Z' : points[index - 1],
        points[index + 1],
      ]);
      await eon.delete({ ...children[0], core: { ...children[0]?.core, [Label.Bypass]: 'true' } });
      await eon.ticker(); // tick-1 maintenance now that the child is gone
      expect(await ticks(eon, templateId)).toEqual([points[index], points[index + 1]]);
    }
  });

  it('runs a cron expression template `*/15 * * * *` on the quarter hours', async () => {
    const q = queue();
    q.clock.set('2023-09-28T14:23:24.161Z');
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: '*/15 * * * *' }, meta: { k: 'foo' } }),
    );
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:15:00Z', '2023-09-28T14:30:00Z']);
    q.clock.set('2023-09-28T14:29:59.999Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toEqual([]);
    q.clock.set('2023-09-28T14:30:00Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:15:00Z', '2023-09-28T14:45:00Z']);
    const [first] = await childrenOf(eon, templateId);
    await eon.delete({ ...first, core: { ...first?.core, [Label.Bypass]: 'true' } });
    q.clock.set('2023-09-28T14:45:00.5Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:15:00Z', '2023-09-28T15:00:00Z']);
  });

  it('runs a zoned template `day at 08:00 in Europe/Berlin` across the switch to summer time', async () => {
    const q = queue();
    q.clock.set('2023-03-25T12:00:00Z');
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({
        cron: { [Label.Every]: 'day at 08:00 in Europe/Berlin' },
        meta: { k: 'foo' },
      }),
    );
    // 08:00 CET is 07:00Z; from 26 March 08:00 CEST is 06:00Z
    expect(await ticks(eon, templateId)).toEqual(['2023-03-25T07:00:00Z', '2023-03-26T06:00:00Z']);
    q.clock.set('2023-03-26T06:00:00.5Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-03-25T07:00:00Z', '2023-03-27T06:00:00Z']);
    const [first] = await childrenOf(eon, templateId);
    await eon.delete({ ...first, core: { ...first?.core, [Label.Bypass]: 'true' } });
    await eon.ticker();
    expect(await ticks(eon, templateId)).toEqual(['2023-03-26T06:00:00Z', '2023-03-27T06:00:00Z']);
    q.clock.set('2023-03-27T06:00:00.5Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-03-26T06:00:00Z', '2023-03-28T06:00:00Z']);
  });

  it('never hands a template to search', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { k: 'bar' },
      node: { [Label.Method]: Method.All },
    });
    await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { k: 'baz' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
    });
    expect(await eon.search()).toBeUndefined();
    expect(await eon.search({ meta: { k: 'foo' } })).toBeUndefined();
    q.clock.set('2023-10-30T00:00:00Z'); // long overdue, never ticked
    expect(await eon.search()).toBeUndefined();
    expect(await q.engine('etw').search()).toBeUndefined();
  });

  it('never deletes a template by retention', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 1000 });
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } });
    q.clock.set('2024-09-28T14:23:00Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual([template]);
  });

  it('moves tick-1 only once the lingering child is deleted', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    q.clock.set('2023-09-28T15:30:00Z');
    await eon.ticker(); // not due, but the child blocks tick-1 maintenance
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T16:00:00Z']);
    const [child] = await childrenOf(eon, templateId);
    await eon.delete({ ...child, core: { ...child?.core, [Label.Bypass]: 'true' } });
    await eon.ticker();
    expect(await ticks(eon, templateId)).toEqual(['2023-09-28T15:00:00Z', '2023-09-28T16:00:00Z']);
  });
});
