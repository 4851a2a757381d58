import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Labels, Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.9 A (tick-1 maintenance) and its order before B (emission):
// "If tick+1(x) ≥ now (not overdue), and tick-1(x) ≠ S.tickM1, and x has no
// children: set tick-1 to S.tickM1", evaluated before B on the same template.

const everything: Task = { meta: { '*': '*' } };

async function ticks(
  engine: Engine,
  id: string,
): Promise<[string | undefined, string | undefined]> {
  const template = (await engine.lister(everything)).find((task) => idOf(task) === id);
  return [template?.cron?.[Label.TickM1], template?.cron?.[Label.TickP1]];
}

async function childrenOf(engine: Engine, templateId: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter((task) => {
    const root = task.root ?? {};
    return Object.keys(root).length === 1 && root[Label.Object] === templateId;
  });
}

async function deleteAll(engine: Engine, tasks: Task[]): Promise<void> {
  for (const task of tasks)
    await engine.delete({ core: { [Label.Object]: idOf(task), [Label.Bypass]: 'true' } });
}

describe('ticker: tick-1 maintenance (docs/semantics.md §3.9 A)', () => {
  const queue = useQueue('2023-09-28T14:23:00Z');

  it.each<[string, Labels]>([
    ['an `any`', { [Label.Method]: Method.Any }],
    ['a `uni`', { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' }],
  ])(
    'moves tick-1 of %s template before emitting when a ticker runs exactly at tick+1',
    async (_name, node) => {
      const q = queue();
      const eon = q.engine('eon');
      const id = idOf(
        await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node }),
      );
      q.clock.set('2023-09-28T15:00:01Z');
      await eon.ticker();
      expect(await ticks(eon, id)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T16:00:00Z']);
      // the child goes, and no ticker runs until the next tick itself
      await deleteAll(eon, await childrenOf(eon, id));
      q.clock.set('2023-09-28T16:00:00Z');
      await eon.ticker();
      // A (tick+1 16:00 ≥ now, tick-1 14:00 ≠ 15:00, no child) before B (due: emit)
      expect(await childrenOf(eon, id)).toHaveLength(1);
      expect(await ticks(eon, id)).toEqual(['2023-09-28T15:00:00Z', '2023-09-28T17:00:00Z']);
    },
  );

  it('leaves tick-1 alone in a call where the template is overdue, and moves it at the next call that finds it not overdue and childless', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const id = idOf(await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' } }));
    q.clock.set('2023-09-28T15:30:00Z'); // overdue since 15:00: A does nothing, B emits
    await eon.ticker();
    expect(await ticks(eon, id)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T16:00:00Z']);
    await deleteAll(eon, await childrenOf(eon, id));
    await eon.ticker(); // same instant, not overdue any more, no child: A
    expect(await ticks(eon, id)).toEqual(['2023-09-28T15:00:00Z', '2023-09-28T16:00:00Z']);
    expect(await childrenOf(eon, id)).toEqual([]);
  });

  it("counts only the template's own children: another template's lingering child does not hold it back", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const blocked = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'blocked' } }),
    );
    const free = idOf(await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'free' } }));
    q.clock.set('2023-09-28T15:00:01Z');
    await eon.ticker();
    await deleteAll(eon, await childrenOf(eon, free));
    q.clock.set('2023-09-28T15:10:00Z');
    await eon.ticker();
    expect(await ticks(eon, free)).toEqual(['2023-09-28T15:00:00Z', '2023-09-28T16:00:00Z']);
    expect(await ticks(eon, blocked)).toEqual(['2023-09-28T14:00:00Z', '2023-09-28T16:00:00Z']);
  });
});
