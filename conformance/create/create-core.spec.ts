import { TaskKeyError, TaskMetaEmptyError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { creationTime } from '../../lib/task/object-id.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';

describe('create', () => {
  const queue = useQueue('2023-10-20T00:00:03Z');

  it('stores the task with an object id and the default node, and returns it', async () => {
    const eon = queue().engine('eon');
    const stored = await eon.create({ meta: { k: 'bar' } });
    const id = stored.core?.[Label.Object] ?? '';
    expect(id).toMatch(/^1697760003000-\d{12}$/);
    expect(stored).toEqual({
      core: { [Label.Object]: id },
      meta: { k: 'bar' },
      node: { [Label.Method]: 'any' },
    });
    expect(await eon.lister({ meta: { '*': '*' } })).toEqual([stored]);
  });

  it('sets the first ticks of a cron template and keeps the gate (docs/semantics.md §3.1 example)', async () => {
    const eon = queue().engine('eon');
    const stored = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'bar' },
      gate: { g0: 'trigger' },
    });
    expect(stored).toEqual({
      core: { [Label.Object]: stored.core?.[Label.Object] },
      cron: {
        [Label.Every]: 'hour',
        [Label.TickM1]: '2023-10-20T00:00:00Z',
        [Label.TickP1]: '2023-10-20T01:00:00Z',
      },
      gate: { g0: 'trigger' },
      meta: { k: 'bar' },
      node: { [Label.Method]: 'any' },
    });
  });

  it('applies the same additions to the caller object and returns a separate copy', async () => {
    const eon = queue().engine('eon');
    const argument: {
      cron: Record<string, string>;
      meta: Record<string, string>;
      core?: Record<string, string>;
      node?: Record<string, string>;
    } = {
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'bar' },
    };
    const stored = await eon.create(argument);
    expect(argument).toEqual(stored);
    expect(stored.meta).not.toBe(argument.meta);
    stored.meta!['k'] = 'changed';
    expect((await eon.lister({ meta: { '*': '*' } }))[0]?.meta).toEqual({ k: 'bar' });
  });

  it('keeps absent maps absent and empty maps empty', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' }, sync: {}, gate: {} });
    const [listed] = await eon.lister({ meta: { k: 'v' } });
    expect(listed?.sync).toEqual({});
    expect(listed?.gate).toEqual({});
    expect(listed && 'root' in listed).toBe(false);
    expect(listed && 'cron' in listed).toBe(false);
  });

  it('keeps a given cancel and adds no worker, expiry or cycles', async () => {
    const eon = queue().engine('eon');
    const stored = await eon.create({ core: { [Label.Cancel]: '05' }, meta: { k: 'v' } });
    expect(Object.keys(stored.core ?? {}).sort()).toEqual([Label.Cancel, Label.Object].sort());
    expect(stored.core?.[Label.Cancel]).toBe('05');
  });

  it('gives unique ids in creation order, also within one millisecond and across engines', async () => {
    const q = queue();
    const engines = [q.engine('eon'), q.engine('etw'), q.engine('eth')];
    const created = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        engines[index % 3]!.create({ meta: { n: String(index) } }),
      ),
    );
    const ids = created.map((task) => task.core?.[Label.Object] ?? '');
    expect(new Set(ids).size).toBe(60);
    expect(ids.every((id) => creationTime(id)?.toISOString() === '2023-10-20T00:00:03.000Z')).toBe(
      true,
    );
    const listed = await engines[0]!.lister({ meta: { '*': '*' } });
    expect(listed.map((task) => task.core?.[Label.Object])).toEqual([...ids].sort());
  });

  it('orders ids by creation instant first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const late = await eon.create({ meta: { n: 'late' } });
    q.clock.set('2023-10-20T00:00:01Z'); // a clock that runs behind
    const early = await eon.create({ meta: { n: 'early' } });
    const listed = await eon.lister({ meta: { '*': '*' } });
    expect(listed.map((task) => task.meta?.['n'])).toEqual(['early', 'late']);
    expect((early.core?.[Label.Object] ?? '') < (late.core?.[Label.Object] ?? '')).toBe(true);
  });

  it('stores labels that are not ASCII, empty, or named __proto__ exactly', async () => {
    const eon = queue().engine('eon');
    const meta = JSON.parse(
      '{"__proto__":"p","":"","größe":"über","键":"值 🚀","quote\\"s":"a/b\\\\c"}',
    ) as Record<string, string>;
    await eon.create({ meta });
    const [listed] = await eon.lister({ meta: { '*': '*' } });
    // a label map has no order; compare its pairs
    expect(Object.entries(listed?.meta ?? {}).sort()).toEqual(Object.entries(meta).sort());
  });

  it('reads null maps as absent: it stores and returns none of them, and adds core and node', async () => {
    const eon = queue().engine('eon');
    const argument = {
      core: null,
      cron: null,
      gate: null,
      meta: { k: 'v' },
      node: null,
      root: null,
      sync: null,
    } as unknown as Task;
    const stored = await eon.create(argument);
    const id = stored.core?.[Label.Object] ?? '';
    const expected = {
      core: { [Label.Object]: id },
      meta: { k: 'v' },
      node: { [Label.Method]: 'any' },
    };
    expect(stored).toEqual(expected);
    expect(Object.keys(stored).sort()).toEqual(['core', 'meta', 'node']);
    const [listed] = await eon.lister({ meta: { '*': '*' } });
    expect(listed && Object.keys(listed).sort()).toEqual(['core', 'meta', 'node']);
    expect(argument.core).toEqual(expected.core);
    expect(argument.node).toEqual(expected.node);
  });

  it('rejects properties other than the seven maps and the payload, writing nothing; queries ignore them', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'seed' } });
    const argument = { meta: { k: 'v' }, extra: { a: 'b' }, note: 'text', count: 5 };
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(eon.create(argument as unknown as Task)).rejects.toThrow(
        new TaskKeyError(
          'create: a task has no key "extra"; the keys of a task are core, cron, gate, meta, node, root, sync, payload',
        ),
      );
    });
    expect(argument).toEqual({ meta: { k: 'v' }, extra: { a: 'b' }, note: 'text', count: 5 });
    // a query of only such properties has no map at all (X2)
    await expect(eon.exists({ extra: { a: 'b' } } as unknown as Task)).rejects.toBeInstanceOf(
      TaskMetaEmptyError,
    );
    expect(await eon.exists({ meta: { k: 'seed' }, extra: 1 } as unknown as Task)).toBe(true);
  });

  it('accepts the largest cancel value, 2^53 - 1, and stores it as given', async () => {
    const eon = queue().engine('eon');
    const stored = await eon.create({
      core: { [Label.Cancel]: '9007199254740991' },
      meta: { k: 'v' },
    });
    expect(stored.core?.[Label.Cancel]).toBe('9007199254740991');
  });
});
