import type { Engine } from '../../lib/engine/engine.js';
import { TaskNotFoundError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Labels, Task } from '../../lib/task/task.js';
import { watchChannel } from '../../lib/engine/keys.js';
import { idOf, useQueue } from '../harness/queue.js';
import { channelSubscribers } from '../harness/redis.js';
import { until } from '../harness/worker.js';

// docs/semantics.md §3.9: `all` and `uni` templates, whose lingering children never
// block but are replaced at every due tick. Day 2023-10-20, instants UTC.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

async function ticks(
  engine: Engine,
  id: string,
): Promise<[string | undefined, string | undefined]> {
  const template = await stored(engine, id);
  return [template?.cron?.[Label.TickM1], template?.cron?.[Label.TickP1]];
}

async function childrenOf(engine: Engine, templateId: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter((task) => {
    const root = task.root ?? {};
    return Object.keys(root).length === 1 && root[Label.Object] === templateId;
  });
}

const allNode: Labels = { [Label.Method]: Method.All };
const uniNode: Labels = { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' };

describe('ticker: the `all` template example of docs/semantics.md §3.9', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('creates the template with tick-1 00:00 and tick+1 01:00', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'foo' },
      node: allNode,
    });
    expect(await ticks(eon, idOf(template))).toEqual([
      '2023-10-20T00:00:00Z',
      '2023-10-20T01:00:00Z',
    ]);
  });

  it('emits S1 at 01:00:01 and moves tick-1 with the emission: 01:00 / 02:00', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: allNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const children = await childrenOf(eon, templateId);
    expect(children).toEqual([
      {
        core: { [Label.Object]: idOf(children[0]) },
        meta: { k: 'foo' },
        node: allNode,
        root: { [Label.Object]: templateId },
      },
    ]);
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T01:00:00Z', '2023-10-20T02:00:00Z']);
  });

  it('deletes S1 and stores S2 at 02:00:01, moving the template to 02:00 / 03:00', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: allNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const [s1] = await childrenOf(eon, templateId);
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    const children = await childrenOf(eon, templateId);
    expect(children).toHaveLength(1);
    expect(idOf(children[0])).not.toBe(idOf(s1));
    expect(idOf(children[0])).toMatch(new RegExp(`^${Date.parse('2023-10-20T02:00:01Z')}-`));
    expect(await stored(eon, idOf(s1))).toBeUndefined();
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T02:00:00Z', '2023-10-20T03:00:00Z']);
  });

  it('delivers every child to every engine started before it', async () => {
    const q = queue();
    const engines = [q.engine('eon'), q.engine('etw'), q.engine('eth')];
    const eon = engines[0]!;
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: allNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const [s1] = await childrenOf(eon, templateId);
    for (const engine of engines) {
      const received = await engine.search();
      expect(received).toEqual(s1);
      expect(received?.core?.[Label.Worker]).toBeUndefined();
    }
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    const [s2] = await childrenOf(eon, templateId);
    for (const engine of engines) expect(idOf(await engine.search())).toBe(idOf(s2));
  });

  it('replaces a child an engine is still working on; extending it then fails with TaskNotFoundError', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: allNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const s1 = await etw.search();
    expect(s1?.root).toEqual({ [Label.Object]: templateId });
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    await expect(etw.extend(s1!)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      etw.delete({ ...s1, core: { ...s1?.core, [Label.Bypass]: 'true' } }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

describe('ticker: the `uni` template example of docs/semantics.md §3.9', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('keeps tick-1 at 00:00 while tick+1 goes 02:00, then 03:00, and replaces S1 by S2', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: uniNode }),
    );
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T00:00:00Z', '2023-10-20T01:00:00Z']);
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const [s1] = await childrenOf(eon, templateId);
    expect(s1).toEqual({
      core: { [Label.Object]: idOf(s1) },
      meta: { k: 'foo' },
      node: uniNode,
      root: { [Label.Object]: templateId },
    });
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T00:00:00Z', '2023-10-20T02:00:00Z']);
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    const children = await childrenOf(eon, templateId);
    expect(children).toHaveLength(1);
    expect(idOf(children[0])).not.toBe(idOf(s1));
    expect(await stored(eon, idOf(s1))).toBeUndefined();
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T00:00:00Z', '2023-10-20T03:00:00Z']);
  });

  it("replaces a child its worker owns; the worker's delete and extend then get TaskNotFoundError", async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: uniNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    expect(await eon.search()).toBeUndefined(); // addressed to etw only
    const s1 = await etw.search();
    expect(s1?.core?.[Label.Worker]).toBe('etw');
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    const [s2] = await childrenOf(eon, templateId);
    expect(idOf(s2)).not.toBe(idOf(s1));
    expect(s2?.core?.[Label.Worker]).toBeUndefined();
    await expect(etw.extend(s1!)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(etw.delete(s1!)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(idOf(await etw.search())).toBe(idOf(s2));
  });

  it('a replaced child leaves without an outcome: its wait rejects with TaskNotFoundError, a task held after it is dropped', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: uniNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const [s1] = await childrenOf(eon, templateId);
    const follower = await eon.create({ meta: { k: 'next' } }, { after: idOf(s1) });
    expect((await eon.status(idOf(follower)))?.state).toBe('held');
    const waiting = eon.wait(idOf(s1), { timeout: 10_000 });
    const waitingFollower = eon.wait(idOf(follower), { timeout: 10_000 });
    await until(
      async () =>
        (await channelSubscribers(q.redis, watchChannel(q.key, idOf(s1)))) === 1 &&
        (await channelSubscribers(q.redis, watchChannel(q.key, idOf(follower)))) === 1,
      3_000,
      'both waits listen',
    );
    q.clock.set('2023-10-20T02:00:01Z');
    await eon.ticker();
    await expect(waiting).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(waitingFollower).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(await eon.status(idOf(s1))).toBeUndefined();
    expect(await eon.status(idOf(follower))).toBeUndefined();
    expect(await q.redis.exists(q.key.held, q.key.followers)).toBe(0);
  });

  it('moves tick-1 once the child is gone and the template is not overdue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: uniNode }),
    );
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const s1 = await etw.search();
    await etw.delete(s1!);
    await eon.ticker();
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T01:00:00Z', '2023-10-20T02:00:00Z']);
  });
});

describe('ticker: `all` and `uni` templates over several ticks', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('coalesces missed ticks of an `all` template into one child, with tick-1 the tick before the late ticker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: allNode }),
    );
    q.clock.set('2023-10-20T03:30:00Z'); // the ticks 01:00, 02:00 and 03:00 were missed
    await eon.ticker();
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect(await ticks(eon, templateId)).toEqual(['2023-10-20T03:00:00Z', '2023-10-20T04:00:00Z']);
  });

  it.each<[string, Labels]>([
    ['an `all`', allNode],
    ['a `uni`', uniNode],
  ])(
    'replaces the lingering child of %s template exactly once when three engines run ticker at once',
    async (_name, node) => {
      const q = queue();
      const engines = [q.engine('eon'), q.engine('etw'), q.engine('eth')];
      const eon = engines[0]!;
      const templateId = idOf(
        await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node }),
      );
      q.clock.set('2023-10-20T01:00:01Z');
      await Promise.all(engines.flatMap((engine) => [engine.ticker(), engine.ticker()]));
      const [s1, ...extra] = await childrenOf(eon, templateId);
      expect(extra).toEqual([]);
      q.clock.set('2023-10-20T02:00:01Z');
      await Promise.all(engines.flatMap((engine) => [engine.ticker(), engine.ticker()]));
      const children = await childrenOf(eon, templateId);
      expect(children).toHaveLength(1);
      expect(idOf(children[0])).not.toBe(idOf(s1));
      expect(await eon.lister(everything)).toHaveLength(2); // the template and S2
    },
  );

  it('replaces an `all` child at every due tick while engines keep receiving and completing each one', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'foo' }, node: allNode }),
    );
    const seen: string[] = [];
    for (const hour of ['01', '02', '03']) {
      q.clock.set(`2023-10-20T${hour}:00:01Z`);
      await eon.ticker();
      const [child] = await childrenOf(eon, templateId);
      seen.push(idOf(child));
      expect(await eon.search()).toEqual(child);
      expect(await etw.search()).toEqual(child);
      await eon.delete(child!); // eon completes it locally; etw leaves it lingering
      expect(await ticks(eon, templateId)).toEqual([
        `2023-10-20T${hour}:00:00Z`,
        `2023-10-20T0${Number(hour) + 1}:00:00Z`,
      ]);
    }
    expect(new Set(seen).size).toBe(3);
    expect((await childrenOf(eon, templateId)).map(idOf)).toEqual([seen[2]]);
  });
});
