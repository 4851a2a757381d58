import type { Engine } from '../../lib/engine/engine.js';
import { LabelReservedError, TaskMetaEmptyError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.4: exists is true iff some task of the queue, of any kind,
// owned or not, due or not, satisfies matches(task, query).

describe('exists', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('is false on an empty queue, even for the query that matches every task', async () => {
    const eon = queue().engine('eon');
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
    expect(await eon.exists({ meta: { k: 'foo' } })).toBe(false);
  });

  it('is true for a matching task and false when no task matches', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo', one: 'two' } });
    expect(await eon.exists({ meta: { k: 'foo' } })).toBe(true);
    expect(await eon.exists({ meta: { k: 'foo', one: 'two' } })).toBe(true);
    expect(await eon.exists({ meta: { k: '*' } })).toBe(true);
    expect(await eon.exists({ meta: { 'o*': 'two' } })).toBe(true);
    expect(await eon.exists({ meta: { k: 'bar' } })).toBe(false);
    expect(await eon.exists({ meta: { k: 'foo', one: 'three' } })).toBe(false);
    expect(await eon.exists({ meta: { k: 'foo' }, node: { [Label.Method]: Method.All } })).toBe(
      false,
    );
    expect(await eon.exists({ meta: { k: 'foo' }, node: { [Label.Method]: Method.Any } })).toBe(
      true,
    );
  });

  it('sees tasks of every kind, owned or not, due or not, templates included', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const kinds: Task[] = [
      { cron: { [Label.Every]: 'hour' }, meta: { kind: 'cron template' } },
      { gate: { g: 'waiting' }, meta: { kind: 'gate template' } },
      { gate: {}, meta: { kind: 'empty gate template' } },
      { gate: { g: 'trigger' }, meta: { kind: 'trigger' } },
      { cron: { [Label.Exact]: '2023-10-21T00:00:00Z' }, meta: { kind: 'exact, not due' } },
      { meta: { kind: 'broadcast' }, node: { [Label.Method]: Method.All } },
      {
        meta: { kind: 'unicast for another worker' },
        node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eth' },
      },
      { meta: { kind: 'leaf' }, root: { nothing: 'matches' } },
      { core: { [Label.Cancel]: '1' }, meta: { kind: 'halted' }, sync: { [Label.Paging]: '0' } },
      { meta: { kind: 'owned' } },
    ];
    for (const kind of kinds) await eon.create(kind);
    const halted = await eon.search({ meta: { kind: 'halted' } });
    await eon.delete({ ...halted, sync: { [Label.Paging]: '1' } });
    expect(await eon.search({ meta: { kind: 'owned' } })).toBeDefined();
    const etw = q.engine('etw');
    for (const kind of kinds)
      expect([kind.meta?.['kind'], await etw.exists({ meta: kind.meta })]).toEqual([
        kind.meta?.['kind'],
        true,
      ]);
    // and the deferred task, not due yet
    const deferred = await eon.create({ meta: { kind: 'deferred' } });
    await eon.delete({
      ...(await eon.search({ meta: { kind: 'deferred' } })),
      cron: { [Label.Defer]: 'hour' },
    });
    expect(
      await etw.exists({ core: { [Label.Object]: idOf(deferred) }, cron: { [Label.Defer]: '*' } }),
    ).toBe(true);
  });

  it('{ root: { [Label.Object]: "*" } } is true iff an emitted child exists', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const childQuery: Task = { root: { [Label.Object]: '*' } };
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } });
    await eon.create({ meta: { k: 'leaf' }, root: { k: 'nothing' } });
    await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    expect(await eon.exists(childQuery)).toBe(false);
    q.clock.set('2023-10-20T01:00:00Z');
    await eon.ticker();
    expect(await eon.exists(childQuery)).toBe(true);
    const child = await eon.search({ meta: { k: 'template' } });
    await eon.delete(child!);
    expect(await eon.exists(childQuery)).toBe(false);
    // a gate emission is an emitted child too
    await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } });
    await eon.delete((await eon.search({ meta: { k: 'trigger' } }))!);
    expect(await eon.exists(childQuery)).toBe(true);
  });

  it('answers core queries: object id and owner', async () => {
    const eon = queue().engine('eon');
    const task = await eon.create({ meta: { k: 'foo' } });
    const id = idOf(task);
    expect(await eon.exists({ core: { [Label.Object]: id } })).toBe(true);
    expect(await eon.exists({ core: { [Label.Object]: id, [Label.Worker]: 'eon' } })).toBe(false);
    await eon.search();
    expect(await eon.exists({ core: { [Label.Object]: id, [Label.Worker]: 'eon' } })).toBe(true);
    expect(await eon.exists({ core: { [Label.Object]: id, [Label.Worker]: 'etw' } })).toBe(false);
    expect(await eon.exists({ core: { [Label.Expiry]: '2023-10-20T00:00:31Z' } })).toBe(true);
    expect(await eon.exists({ core: { [Label.Object]: '1697760001000-000000000099' } })).toBe(
      false,
    );
  });

  it('answers gate, cron and node queries', async () => {
    const eon = queue().engine('eon');
    expect(await eon.exists({ gate: { '*': 'deleted' } })).toBe(false);
    expect(await eon.exists({ cron: { [Label.Every]: '*' } })).toBe(false);
    await eon.create({ gate: { g0: 'waiting', g1: 'waiting' }, meta: { k: 'gate' } });
    await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'trigger' } });
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } });
    await eon.create({
      meta: { k: 'uni' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
    });
    await eon.delete((await eon.search({ meta: { k: 'trigger' } }))!);
    expect(await eon.exists({ gate: { '*': 'deleted' } })).toBe(true);
    expect(await eon.exists({ gate: { g1: 'deleted' } })).toBe(false);
    expect(await eon.exists({ cron: { [Label.Every]: '*' } })).toBe(true);
    expect(await eon.exists({ cron: { [Label.TickP1]: '2023-10-20T01:00:00Z' } })).toBe(true);
    expect(await eon.exists({ node: { [Label.Worker]: 'etw' } })).toBe(true);
    expect(await eon.exists({ node: { [Label.Worker]: 'eth' } })).toBe(false);
  });

  it('compares the sync map of the query too', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' }, sync: { s: '1' } });
    await eon.create({ meta: { k: 'bar' } });
    expect(await eon.exists({ meta: { k: 'foo' }, sync: { s: '1' } })).toBe(true);
    expect(await eon.exists({ meta: { k: 'foo' }, sync: { s: '2' } })).toBe(false);
    expect(await eon.exists({ meta: { k: 'bar' }, sync: { s: '*' } })).toBe(false);
    // { '*': '*' } is satisfied even by an absent map; an empty query map is ignored
    expect(await eon.exists({ meta: { k: 'bar' }, sync: { '*': '*' } })).toBe(true);
    expect(await eon.exists({ meta: { k: 'bar' }, sync: {} })).toBe(true);
  });

  it('treats a query root without patterns as exact keys, and one with the object key as an emitted child query', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'leaf' }, root: { 'k-10': 'x' } });
    expect(await eon.exists({ root: { 'k-10': 'x' } })).toBe(true);
    expect(await eon.exists({ root: { 'k-1': 'x' } })).toBe(false);
    const template = await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } });
    q.clock.set('2023-10-20T01:00:00Z');
    await eon.ticker();
    expect(await eon.exists({ root: { [Label.Object]: idOf(template) } })).toBe(true);
    expect(
      await eon.exists({ root: { [Label.Object]: idOf(template), [Label.Worker]: '*' } }),
    ).toBe(false);
  });

  it('rejects { root: { [Label.Worker]: "*" } } with LabelReservedError and { sync: { k: "x" } } with TaskMetaEmptyError', async () => {
    const eon = queue().engine('eon');
    await expect(eon.exists({ root: { [Label.Worker]: '*' } })).rejects.toBeInstanceOf(
      LabelReservedError,
    );
    await expect(eon.exists({ sync: { k: 'x' } })).rejects.toBeInstanceOf(TaskMetaEmptyError);
  });

  it('writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } });
    await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } }); // obsolete, but exists never deletes
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await eon.exists({ meta: { k: 'leaf' } })).toBe(true);
      expect(await eon.exists({ meta: { k: 'none' } })).toBe(false);
    });
  });
});

describe('exists on a large queue', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  async function fill(engine: Engine, count: number): Promise<void> {
    for (let start = 0; start < count; start += 1000) {
      await Promise.all(
        Array.from({ length: Math.min(1000, count - start) }, (_, n) =>
          engine.create({ meta: { n: String(start + n) } }),
        ),
      );
    }
  }

  it('finds the last of 12,000 tasks, and nothing that is not there', async () => {
    const eon = queue().engine('eon');
    await fill(eon, 11_999);
    const last = await eon.create({ meta: { n: 'last' } });
    expect(await eon.exists({ meta: { n: 'last' } })).toBe(true);
    expect(await eon.exists({ core: { [Label.Object]: idOf(last) } })).toBe(true);
    expect(await eon.exists({ meta: { n: '0' } })).toBe(true);
    expect(await eon.exists({ meta: { n: '12000' } })).toBe(false);
  });
});
