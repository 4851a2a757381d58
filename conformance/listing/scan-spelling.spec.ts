import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { createMany, useQueue, type TestQueue } from '../harness/queue.js';

// exists, lister, engine.tasks() and the filling of a filter's pool pass over
// a record without decoding it when it cannot hold a value the query asks for
// exactly (include/has.lua may_match). Records written by something else may spell their strings in
// any way JSON allows; each such spelling is still matched as decoded
// (docs/semantics.md §1.10, §2), and a record the check passes over never matches.

const queue = useQueue('2023-10-20T00:00:01Z');

/** an id whose creation instant is 2023-10-20T00:00:00Z */
const idOf = (n: number) => `1697760000000-${String(n).padStart(12, '0')}`;

/** the id of the one filter the queue knows */
async function onlyFilter(q: TestQueue): Promise<string> {
  const filters = await q.redis.hkeys(q.key.filters);
  expect(filters).toHaveLength(1);
  return filters[0] ?? '';
}

/** the ids a query finds through lister, exists and the tasks page of every state */
async function found(
  engine: Engine,
  query: Task,
): Promise<{ listed: string[]; paged: string[]; exists: boolean }> {
  const ids = (tasks: Task[]) => tasks.map((task) => task.core?.[Label.Object] ?? '').sort();
  const paged: Task[] = [];
  let cursor: string | undefined;
  do {
    const page = await engine.tasks({ state: 'all', query, cursor });
    paged.push(...page.tasks);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return {
    listed: ids(await engine.lister(query)),
    paged: ids(paged),
    exists: await engine.exists(query),
  };
}

describe('records spelled in any way JSON allows', () => {
  const cases: { name: string; record: string; query: Task; matches: boolean }[] = [
    {
      name: 'a value written with \\u escapes',
      record: '{"meta":{"k":"\\u0076"}}',
      query: { meta: { k: 'v' } },
      matches: true,
    },
    {
      name: 'a value with an escaped slash',
      record: '{"meta":{"k":"a\\/b"}}',
      query: { meta: { k: 'a/b' } },
      matches: true,
    },
    {
      name: 'a value with a slash as it is',
      record: '{"meta":{"k":"a/b"}}',
      query: { meta: { k: 'a/b' } },
      matches: true,
    },
    {
      name: 'white space between the tokens',
      record: '{ "meta" : { "k" : "v" } }',
      query: { meta: { k: 'v' } },
      matches: true,
    },
    {
      name: 'a value with quotes',
      record: '{"meta":{"k":"say \\"hi\\""}}',
      query: { meta: { k: 'say "hi"' } },
      matches: true,
    },
    {
      name: 'a value under a key pattern',
      record: '{"meta":{"x":"v"}}',
      query: { meta: { '*': 'v' } },
      matches: true,
    },
    {
      name: 'a gate value',
      record: '{"gate":{"g":"deleted"},"meta":{"k":"v"}}',
      query: { gate: { g: 'deleted' } },
      matches: true,
    },
    {
      name: 'the default node, which the record leaves out',
      record: '{"meta":{"k":"v"}}',
      query: { meta: { k: 'v' }, node: { [Label.Method]: Method.Any } },
      matches: true,
    },
    {
      name: 'slashes escaped elsewhere in the record',
      record: '{"meta":{"k":"v","u":"a\\/b"}}',
      query: { meta: { k: 'v' } },
      matches: true,
    },
    {
      name: 'the value only as a key',
      record: '{"meta":{"v":"k"}}',
      query: { meta: { k: 'v' } },
      matches: false,
    },
    {
      name: 'the value only in another map',
      record: '{"meta":{"k":"x"},"sync":{"s":"v"}}',
      query: { meta: { k: 'v' } },
      matches: false,
    },
    {
      name: 'another value with escaped slashes',
      record: '{"meta":{"k":"a\\/c"}}',
      query: { meta: { k: 'v' } },
      matches: false,
    },
    {
      name: 'another value with \\u escapes',
      record: '{"meta":{"k":"\\u0077"}}',
      query: { meta: { k: 'v' } },
      matches: false,
    },
    {
      name: 'a value spelled between two tokens',
      record: '{"meta":{"a":"b"}}',
      query: { meta: { a: ':' } },
      matches: false,
    },
    {
      name: 'a value that is part of another',
      record: '{"meta":{"k":"vv"}}',
      query: { meta: { k: 'v' } },
      matches: false,
    },
  ];

  it.each(cases)('$name: matched as decoded', async ({ record, query, matches }) => {
    const q = queue();
    const eon = q.engine('eon');
    await q.redis.hset(q.key.tasks, idOf(1), record);
    const expected = matches ? [idOf(1)] : [];
    expect(await found(eon, query)).toEqual({ listed: expected, paged: expected, exists: matches });
  });

  it('finds by exact core values, which the stored form may leave out', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await q.redis.hset(q.key.tasks, idOf(2), '{"meta":{"k":"v"}}');
    expect(await eon.exists({ core: { '*': idOf(2) }, meta: { k: 'v' } })).toBe(true);
    expect(await eon.exists({ core: { '*': idOf(3) }, meta: { k: 'v' } })).toBe(false);
  });

  it("fills a new filter's pool with tasks whose records another program spelled with escapes", async () => {
    const q = queue();
    const eon = q.engine('eon');
    // more than one search walks: the filter gets a pool, filled from the queue
    await createMany(q, 300, (index) => ({ meta: { k: 'other', n: String(index) } }));
    const escaped = await eon.create({ meta: { k: 'v', n: 'escaped' } });
    await eon.create({ meta: { k: 'v', n: 'plain' } });
    await eon.create({ meta: { k: 'w', n: 'not wanted' } });
    await q.redis.hset(
      q.key.tasks,
      escaped.core?.[Label.Object] ?? '',
      '{"meta":{"k":"\\u0076","n":"escaped"}}',
    );
    const claimed: string[] = [];
    for (let task = await eon.search({ meta: { k: 'v' } }); task !== undefined;) {
      claimed.push(task.meta?.['n'] ?? '');
      task = await eon.search({ meta: { k: 'v' } });
    }
    expect(claimed).toEqual(['escaped', 'plain']);
    expect(await q.redis.hget(q.key['filter-pools'], await onlyFilter(q))).toBe('');
  });

  it.each([
    ['exact', { tenant: 't1', stage: 'done' }],
    ['with a pattern', { tenant: 't1', 'st*': 'done' }],
  ])(
    'finds the witness of a new root (%s) in a record another program spelled with escapes, stored before',
    async (_, root) => {
      const q = queue();
      const eon = q.engine('eon');
      // due long after the test: never claimed, so its record stays as written
      const cron = { [Label.Exact]: '2099-01-01T00:00:00Z' };
      const witness = await eon.create({ cron, meta: { tenant: 't1', stage: 'done' } });
      await q.redis.hset(
        q.key.tasks,
        witness.core?.[Label.Object] ?? '',
        `{"cron":${JSON.stringify(cron)},"meta":{"\\u0074enant":"\\u00741","stage":"d\\u006fne"}}`,
      );
      // more than one script reads: the root's jobs go on in the searches
      await createMany(q, 300, (index) => ({ meta: { tenant: 't2', n: String(index) } }));
      const leaf = await eon.create({ meta: { kind: 'leaf' }, root });
      const claimed: string[] = [];
      for (let task = await eon.search(); task !== undefined; task = await eon.search()) {
        claimed.push(task.core?.[Label.Object] ?? '');
        await eon.delete(task);
      }
      expect(claimed).toHaveLength(300);
      expect(claimed).not.toContain(leaf.core?.[Label.Object]);
      expect(await eon.exists({ meta: { kind: 'leaf' } })).toBe(false);
    },
  );

  it('finds tasks the engine rewrote (claimed: core labels with slashes) among many it passes over', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await Promise.all(
      Array.from({ length: 50 }, (_, n) => eon.create({ meta: { k: 'other', n: String(n) } })),
    );
    const wanted = await eon.create({ meta: { k: 'v/w', n: 'x' } });
    const plain = await eon.create({ meta: { k: 'v', n: 'y' } });
    const claimed = await eon.search({ meta: { k: 'v/w' } });
    expect(claimed?.core?.[Label.Object]).toBe(wanted.core?.[Label.Object]);
    const byValue = async (query: Task) => (await found(eon, query)).listed;
    expect(await byValue({ meta: { k: 'v/w' } })).toEqual([wanted.core?.[Label.Object]]);
    expect(await byValue({ meta: { k: 'v' } })).toEqual([plain.core?.[Label.Object]]);
    expect(await byValue({ meta: { n: 'x', k: 'v/w' } })).toEqual([wanted.core?.[Label.Object]]);
    expect(await byValue({ meta: { k: 'none' } })).toEqual([]);
    const owned = await eon.tasks({ state: 'owned', query: { meta: { n: 'x' } } });
    expect(owned.tasks.map((task) => task.core?.[Label.Object])).toEqual([
      wanted.core?.[Label.Object],
    ]);
  });
});
