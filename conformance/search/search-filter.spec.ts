import type { Engine } from '../../lib/engine/engine.js';
import { LabelValueError, TaskEmptyError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.2 "With a filter", phases 1 (rule 4) and 4, §2.2 matches.

async function claimName(engine: Engine, filter?: Task): Promise<string | undefined> {
  return (await engine.search(filter))?.meta?.['name'];
}

describe('search with a filter', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('picks the oldest matching task, skipping older ones that do not match', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'a', k: 'x' } });
    await eon.create({ meta: { name: 'b', k: 'y' } });
    await eon.create({ meta: { name: 'c', k: 'y' } });
    expect(await claimName(eon, { meta: { k: 'y' } })).toBe('b');
    expect(await claimName(eon, { meta: { k: 'y' } })).toBe('c');
    expect(await claimName(eon, { meta: { k: 'y' } })).toBeUndefined();
    expect(await claimName(eon)).toBe('a');
  });

  it('does not shrink n to the matching tasks', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'c', 'b', 'd']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(etw)).toBe('c');
    // n = 4 (not 1): etw share 2, own 1
    expect(await claimName(etw, { meta: { name: 'b' } })).toBe('b');
  });

  it('counts owned tasks that do not match the filter in own', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'c', 'b']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(etw)).toBe('c');
    // n = 3: etw share 1, own 1 although c does not match the filter
    expect(await claimName(etw, { meta: { name: 'b' } })).toBeUndefined();
  });

  it('keeps workers that own only non-matching tasks in W', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a', k: 'other' } });
    await eon.create({ meta: { name: 'b', k: 'wanted' } });
    await eon.create({ meta: { name: 'c', k: 'wanted' } });
    expect(await claimName(eon)).toBe('a');
    const wanted: Task = { meta: { k: 'wanted' } };
    // W = [eon, etw], n = 3: etw share 1 (W = [etw] would give 3)
    expect(await claimName(etw, wanted)).toBe('b');
    expect(await claimName(etw, wanted)).toBeUndefined();
  });

  it('deletes obsolete leaves whatever the filter, even when it matches nothing', async () => {
    const eon = queue().engine('eon');
    const leaf = await eon.create({ meta: { name: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { name: 'r', k: 'foo' } });
    expect(await claimName(eon, { meta: { name: 'nothing' } })).toBeUndefined();
    expect(await eon.exists({ core: { [Label.Object]: idOf(leaf) } })).toBe(false);
  });

  it('returns undefined without claiming when nothing matches, and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await eon.search({ meta: { name: 'b' } })).toBeUndefined();
    });
    expect(await claimName(eon)).toBe('a');
  });

  it.each<[string, Task, Task, Task]>([
    [
      'core: the object id',
      { meta: { name: 'a' } },
      { meta: { name: 'b' } },
      { core: { [Label.Object]: '*' } }, // replaced by b's id below
    ],
    [
      'core: the cancel label',
      { meta: { name: 'a' } },
      { core: { [Label.Cancel]: '3' }, meta: { name: 'b' } },
      { core: { [Label.Cancel]: '3' } },
    ],
    [
      'cron: a reserved key with a value pattern',
      { meta: { name: 'a' } },
      { cron: { [Label.Exact]: '2023-10-20T00:00:00.001Z' }, meta: { name: 'b' } },
      { cron: { [Label.Exact]: '*' } },
    ],
    [
      'cron: a user key',
      { cron: { foo: 'baz' }, meta: { name: 'a' } },
      { cron: { foo: 'bar' }, meta: { name: 'b' } },
      { cron: { foo: 'bar' } },
    ],
    [
      'gate',
      { gate: { g0: 'trigger' }, meta: { name: 'a' } },
      { gate: { g1: 'trigger' }, meta: { name: 'b' } },
      { gate: { g1: 'trigger' } },
    ],
    [
      'meta',
      { meta: { name: 'a', k: 'x' } },
      { meta: { name: 'b', k: 'y' } },
      { meta: { k: 'y' } },
    ],
    [
      'node: the method',
      {
        meta: { name: 'a' },
        node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
      },
      { meta: { name: 'b' }, node: { [Label.Method]: Method.Any } },
      { node: { [Label.Method]: Method.Any } },
    ],
    [
      'root',
      { meta: { name: 'a' }, root: { r: 'x' } },
      { meta: { name: 'b' }, root: { r: 'y' } },
      { root: { r: 'y' } },
    ],
    [
      'sync: a user key',
      { meta: { name: 'a' }, sync: { s: '1' } },
      { meta: { name: 'b' }, sync: { s: '2' } },
      { sync: { s: '2' } },
    ],
    [
      'sync: the paging key',
      { meta: { name: 'a' }, sync: { [Label.Paging]: '0' } },
      { meta: { name: 'b' }, sync: { [Label.Paging]: '1' } },
      { sync: { [Label.Paging]: '1' } },
    ],
    [
      'two maps at once (both must match)',
      { meta: { name: 'a', k: 'y' }, sync: { s: '1' } },
      { meta: { name: 'b', k: 'y' }, sync: { s: '2' } },
      { meta: { k: 'y' }, sync: { s: '2' } },
    ],
    [
      'a key pattern *x (suffix)',
      { meta: { name: 'a', 'job.io/kind': 'v' } },
      { meta: { name: 'b', 'job.io/kind-x': 'v' } },
      { meta: { '*-x': 'v' } },
    ],
    [
      'a key pattern x* (prefix)',
      { meta: { name: 'a', 'x-job': 'v' } },
      { meta: { name: 'b', 'job-x': 'v' } },
      { meta: { 'job*': 'v' } },
    ],
    [
      'a key pattern *x* (contains)',
      { meta: { name: 'a', 'job-sy': 'v' } },
      { meta: { name: 'b', 'ajob-xyz': 'v' } },
      { meta: { '*-x*': 'v' } },
    ],
    [
      'an exact key, not a substring',
      { meta: { name: 'a', 'k-10': 'v' } },
      { meta: { name: 'b', 'k-1': 'v' } },
      { meta: { 'k-1': 'v' } },
    ],
    [
      'a key * with an exact value',
      { meta: { name: 'a', k: 'x' } },
      { meta: { name: 'b', other: 'wanted' } },
      { meta: { '*': 'wanted' } },
    ],
    [
      'an exact key with the value *',
      { meta: { name: 'a' } },
      { meta: { name: 'b', extra: '' } },
      { meta: { extra: '*' } },
    ],
  ])('matches by %s', async (_name, older, newer, filter) => {
    const eon = queue().engine('eon');
    await eon.create(older);
    const wanted = await eon.create(newer);
    const query =
      filter.core?.[Label.Object] === '*' ? { core: { [Label.Object]: idOf(wanted) } } : filter;
    queue().clock.set('2023-10-20T00:00:01Z'); // the @exact rows are due
    expect(idOf(await eon.search(query))).toBe(idOf(wanted));
  });

  it('selects owned tasks by a core worker filter only to find none free', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    expect(await claimName(q.engine('etw'))).toBe('a');
    expect(await claimName(eon, { core: { [Label.Worker]: '*' } })).toBeUndefined();
    expect(await claimName(eon, { core: { [Label.Worker]: 'etw' } })).toBeUndefined();
  });

  it('is satisfied by an absent map when the query map is { "*": "*" }', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'a' } }); // no sync, no root, no cron, no gate
    expect(
      await claimName(eon, {
        cron: { '*': '*' },
        gate: { '*': '*' },
        root: { '*': '*' },
        sync: { '*': '*' },
      }),
    ).toBe('a');
  });

  it('is not satisfied by an absent map for any other query', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'a' } });
    expect(await claimName(eon, { sync: { '*': 'x' } })).toBeUndefined();
    expect(await claimName(eon, { sync: { k: '*' } })).toBeUndefined();
    expect(await claimName(eon, { sync: { '*': '*', k: '*' } })).toBeUndefined();
  });

  it('ignores empty query maps and properties that are not label maps', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    expect(await claimName(eon, { meta: {}, sync: {} })).toBe('a');
    expect(await claimName(eon, { extra: { name: 'zzz' } } as Task)).toBe('b');
  });

  it('treats undefined and null as no filter', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    expect(await claimName(eon, undefined)).toBe('a');
    expect(await claimName(eon, null as unknown as Task)).toBe('b');
  });

  it('rejects a filter of the wrong shape and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'a' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.search([] as unknown as Task)).rejects.toBeInstanceOf(TaskEmptyError);
      await expect(eon.search('meta' as unknown as Task)).rejects.toBeInstanceOf(TaskEmptyError);
      await expect(eon.search({ meta: [] } as unknown as Task)).rejects.toBeInstanceOf(
        LabelValueError,
      );
      await expect(eon.search({ meta: { name: 1 } } as unknown as Task)).rejects.toBeInstanceOf(
        LabelValueError,
      );
    });
  });

  it('accepts reserved keys in every map of a filter (no validation beyond shape)', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'a' } });
    const reserved = { [Label.Worker]: '*' };
    expect(await claimName(eon, { meta: reserved })).toBeUndefined();
    expect(await claimName(eon, { root: reserved })).toBeUndefined();
    expect(await claimName(eon, { gate: { [Label.Every]: '*' } })).toBeUndefined();
    expect(await claimName(eon, { node: { [Label.Method]: 'any' }, meta: { name: 'a' } })).toBe(
      'a',
    );
  });

  it('picks a unicast task for this worker before an older matching any task', async () => {
    const eon = queue().engine('eon');
    const uni = { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' };
    await eon.create({ meta: { name: 'any', k: 'f' } });
    await eon.create({ meta: { name: 'uni-other', k: 'x' }, node: uni });
    await eon.create({ meta: { name: 'uni-match', k: 'f' }, node: uni });
    const filter: Task = { meta: { k: 'f' } };
    expect(await claimName(eon, filter)).toBe('uni-match');
    expect(await claimName(eon, filter)).toBe('any');
    expect(await claimName(eon, filter)).toBeUndefined();
    expect(await claimName(eon)).toBe('uni-other');
  });

  it('delivers a matching broadcast task before claiming', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    await eon.create({ meta: { name: 'plain', k: 'f' } });
    await eon.create({ meta: { name: 'other', k: 'x' }, node: { [Label.Method]: Method.All } });
    await eon.create({ meta: { name: 'match', k: 'f' }, node: { [Label.Method]: Method.All } });
    expect(await claimName(eon, { meta: { k: 'f' } })).toBe('match');
    expect(await claimName(eon, { meta: { k: 'f' } })).toBe('plain');
  });

  it('neither delivers nor records a broadcast task that does not match', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    await eon.create({ meta: { name: 'x' }, node: { [Label.Method]: Method.All } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      expect(await claimName(eon, { meta: { name: 'y' } })).toBeUndefined();
    });
    // no local lease was taken: an unfiltered search at the same instant delivers it
    expect(await claimName(eon)).toBe('x');
    expect(await claimName(eon)).toBeUndefined();
  });
});
