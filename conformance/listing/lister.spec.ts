import { LabelReservedError, TaskCoreError, TaskMetaEmptyError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.5: lister returns every task matching the query, oldest
// first, exactly as stored (core included), `[]` when none.

const everything: Task = { meta: { '*': '*' } };

describe('lister', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('returns [] when no task matches', async () => {
    const eon = queue().engine('eon');
    expect(await eon.lister(everything)).toEqual([]);
    await eon.create({ meta: { k: 'foo' } });
    expect(await eon.lister({ meta: { k: 'bar' } })).toEqual([]);
  });

  it('returns the matching tasks oldest first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const a = await eon.create({ meta: { k: 'foo', n: 'a' } });
    q.clock.set('2023-10-20T00:00:00.5Z'); // a clock behind: b is older than a
    const b = await eon.create({ meta: { k: 'foo', n: 'b' } });
    q.clock.set('2023-10-20T00:00:02Z');
    await eon.create({ meta: { k: 'bar', n: 'c' } });
    const d = await eon.create({ meta: { k: 'foo', n: 'd' } });
    const e = await eon.create({ meta: { k: 'foo', n: 'e' } });
    expect(await eon.lister({ meta: { k: 'foo' } })).toEqual([b, a, d, e]);
    expect((await eon.lister(everything)).map((task) => task.meta?.['n'])).toEqual([
      'b',
      'a',
      'c',
      'd',
      'e',
    ]);
  });

  it('returns tasks exactly as stored, with owner, expiry, cycles and cancel in core', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({
      core: { [Label.Cancel]: '5' },
      meta: { k: 'foo' },
      sync: { s: '' },
    });
    await eon.search();
    q.clock.set('2023-10-20T00:00:31Z');
    await eon.expire();
    q.clock.set('2023-10-20T00:00:40Z');
    const claimed = await q.engine('etw').search();
    const [listed] = await eon.lister({ meta: { k: 'foo' } });
    expect(listed).toEqual({
      core: {
        [Label.Object]: idOf(task),
        [Label.Cancel]: '5',
        [Label.Cycles]: '1',
        [Label.Worker]: 'etw',
        [Label.Expiry]: '2023-10-20T00:01:10Z',
        [Label.Token]: '2',
      },
      meta: { k: 'foo' },
      node: { [Label.Method]: Method.Any },
      sync: { s: '' },
    });
    expect(listed).toEqual(claimed);
  });

  it('returns templates, gate templates, halted, broadcast and emitted tasks with { meta: { "*": "*" } }', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = [
      await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { kind: 'cron template' } }),
      await eon.create({ gate: { g: 'waiting' }, meta: { kind: 'gate template' } }),
      await eon.create({ gate: {}, meta: { kind: 'empty gate' } }),
      await eon.create({
        cron: { [Label.Exact]: '2023-10-21T00:00:00Z' },
        meta: { kind: 'exact' },
      }),
      await eon.create({ meta: { kind: 'broadcast' }, node: { [Label.Method]: Method.All } }),
      await eon.create({
        meta: { kind: 'unicast' },
        node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eth' },
      }),
      await eon.create({ meta: { kind: 'leaf' }, root: { nothing: 'matches' } }),
      await eon.create({
        core: { [Label.Cancel]: '1' },
        meta: { kind: 'halted' },
        sync: { [Label.Paging]: '0' },
      }),
    ];
    const claimed = await eon.search({ meta: { kind: 'halted' } });
    await eon.delete({ ...claimed, sync: { [Label.Paging]: '1' } });
    q.clock.set('2023-10-20T01:00:00Z');
    await eon.ticker();
    const listed = await eon.lister(everything);
    expect(listed.map(idOf).slice(0, created.length)).toEqual(created.map(idOf));
    expect(listed).toHaveLength(created.length + 1);
    expect(listed[created.length]?.root).toEqual({ [Label.Object]: idOf(created[0]) });
    expect(listed[7]?.core?.[Label.Cycles]).toBe('1');
    expect(listed[7]?.sync).toEqual({ [Label.Paging]: '1' });
  });

  it('filters by cron, gate, node and root, and compares sync', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'a' },
      sync: { s: '1' },
    });
    const gate = await eon.create({ gate: { g: 'waiting' }, meta: { k: 'b' } });
    const uni = await eon.create({
      meta: { k: 'c' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
    });
    const leaf = await eon.create({ meta: { k: 'd' }, root: { r: 'x' }, sync: { s: '2' } });
    expect(await eon.lister({ cron: { [Label.Every]: '*' } })).toEqual([template]);
    expect(await eon.lister({ gate: { '*': 'waiting' } })).toEqual([gate]);
    expect(await eon.lister({ node: { [Label.Method]: Method.Uni } })).toEqual([uni]);
    expect(await eon.lister({ root: { r: '*' } })).toEqual([leaf]);
    expect(await eon.lister({ meta: { '*': '*' }, sync: { s: '2' } })).toEqual([leaf]);
    expect(await eon.lister({ meta: { '*': '*' }, sync: { s: '*' } })).toEqual([template, leaf]);
    expect(await eon.lister({ meta: { k: 'a' }, sync: { s: '2' } })).toEqual([]);
  });

  it('returns copies the caller may change without affecting the queue', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const [first] = await eon.lister(everything);
    first!.meta!['k'] = 'changed';
    delete first!.core;
    const [second] = await eon.lister(everything);
    expect(second?.meta).toEqual({ k: 'foo' });
    expect(second?.core?.[Label.Object]).toBeDefined();
  });

  it('gives a copy that carries the owner label, which passes the ownership check of delete', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    await eon.search();
    const [listed] = await q.engine('etw').lister({ meta: { k: 'foo' } });
    expect(listed?.core?.[Label.Worker]).toBe('eon');
    await q.engine('etw').delete(listed!);
    expect(await eon.lister(everything)).toEqual([]);
  });

  it('rejects a core query, a sync-only query and reserved root keys', async () => {
    const eon = queue().engine('eon');
    await expect(eon.lister({ core: {}, meta: { k: 'foo' } })).rejects.toBeInstanceOf(
      TaskCoreError,
    );
    await expect(eon.lister({ sync: { k: 'x' } })).rejects.toBeInstanceOf(TaskMetaEmptyError);
    await expect(eon.lister({ root: { [Label.Object]: '*' } })).rejects.toBeInstanceOf(
      LabelReservedError,
    );
  });

  it('writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } }); // obsolete, but lister never deletes
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await eon.lister(everything)).toHaveLength(2);
    });
  });
});

describe('lister on a queue larger than one scan', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('returns all 12,000 tasks, sorted oldest first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created: Task[] = [];
    for (let start = 0; start < 12_000; start += 1000) {
      q.clock.advance(1); // a few different creation instants
      created.push(
        ...(await Promise.all(
          Array.from({ length: 1000 }, (_, n) => eon.create({ meta: { n: String(start + n) } })),
        )),
      );
    }
    const listed = await eon.lister(everything);
    expect(listed).toHaveLength(12_000);
    const ids = listed.map(idOf);
    expect(ids).toEqual(created.map(idOf).sort());
    expect(new Set(ids).size).toBe(12_000);
    expect(listed[listed.length - 1]).toEqual(
      created.find((task) => idOf(task) === ids[ids.length - 1]),
    );
    expect(await eon.lister({ meta: { n: '11999' } })).toHaveLength(1);
    expect(await eon.exists({ core: { [Label.Object]: ids[ids.length - 1]! } })).toBe(true);
  });
});
