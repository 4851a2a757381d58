import type { Engine } from '../../lib/engine/engine.js';
import { pageBudget, pageMostLimit } from '../../lib/engine/page.js';
import type { TaskPageState } from '../../lib/task/state.js';
import { TaskMetaEmptyError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { countingClient } from '../harness/counting.js';
import { useQueue } from '../harness/queue.js';
import { expectUnchanged } from '../harness/queue-state.js';

// engine.tasks(): pages of the tasks in one state, by label query and cursor.

const k = (task: Task) => task.meta?.['k'];

/** everyPage reads every page of a state and returns the tasks' `k` labels and the number of pages. */
async function everyPage(
  engine: Engine,
  state: TaskPageState,
  limit: number,
  query?: Task,
): Promise<{ ks: (string | undefined)[]; pages: number }> {
  const ks: (string | undefined)[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await engine.tasks({
      state,
      limit,
      ...(query ? { query } : {}),
      ...(cursor ? { cursor } : {}),
    });
    expect(page.tasks.length).toBeLessThanOrEqual(limit);
    ks.push(...page.tasks.map(k));
    cursor = page.cursor;
    pages++;
  } while (cursor !== undefined);
  return { ks, pages };
}

describe('engine.tasks()', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  async function fillStates(engine: Engine): Promise<void> {
    for (let index = 0; index < 5; index++) {
      await engine.create({ meta: { k: `c${index}`, even: String(index % 2 === 0) } });
    }
    await engine.create({
      meta: { k: 'u' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'two' },
    });
    await engine.create({ cron: { [Label.Exact]: '2023-10-20T01:00:00Z' }, meta: { k: 'w' } });
    await engine.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 't' } });
    await engine.create({ gate: { g: 'waiting' }, meta: { k: 'g' } });
    await engine.create({ meta: { k: 'b' }, node: { [Label.Method]: Method.All } });
  }

  it('lists each state from its index, oldest first where the index is by id', async () => {
    const q = queue();
    const one = q.engine('one');
    await fillStates(one);
    await one.search({ meta: { k: 'c0' } }); // owned now
    expect((await everyPage(one, 'claimable', 2)).ks).toEqual(['c1', 'c2', 'c3', 'c4', 'u']);
    expect((await everyPage(one, 'owned', 2)).ks).toEqual(['c0']);
    expect((await everyPage(one, 'waiting', 2)).ks).toEqual(['w']);
    expect((await everyPage(one, 'cron', 2)).ks).toEqual(['t']);
    expect((await everyPage(one, 'gate', 2)).ks).toEqual(['g']);
    expect((await everyPage(one, 'broadcast', 2)).ks).toEqual(['b']);
    expect((await everyPage(one, 'halted', 2)).ks).toEqual([]);
    expect((await everyPage(one, 'all', 3)).ks.sort()).toEqual(
      ['c0', 'c1', 'c2', 'c3', 'c4', 'u', 'w', 't', 'g', 'b'].sort(),
    );
  });

  it('pages with a cursor: every task once, in order, limit per page', async () => {
    const q = queue();
    const one = q.engine('one');
    for (let index = 0; index < 25; index++) {
      await one.create({ meta: { k: String(index).padStart(2, '0') } });
    }
    const { ks, pages } = await everyPage(one, 'claimable', 10);
    expect(ks).toEqual(Array.from({ length: 25 }, (_, index) => String(index).padStart(2, '0')));
    expect(pages).toBe(3);
  });

  it.each([
    ['distinct lease ends', 10],
    ['one lease end for all (ties ordered by id)', 0],
  ])(
    'pages owned tasks by score, and goes on where a task left meanwhile: %s',
    async (_name, step) => {
      const q = queue();
      const one = q.engine('one');
      for (let index = 0; index < 6; index++) {
        await one.create({ meta: { k: String(index) } });
        await one.search();
        q.clock.advance(step);
      }
      const first = await one.tasks({ state: 'owned', limit: 3 });
      expect(first.tasks.map(k)).toEqual(['0', '1', '2']);
      // the last task of the page completes: the next page still starts at '3'
      const last = first.tasks[2];
      if (last === undefined) throw new Error('no task');
      await one.delete(last);
      const second = await one.tasks({ state: 'owned', limit: 3, cursor: first.cursor as string });
      expect(second.tasks.map(k)).toEqual(['3', '4', '5']);
    },
  );

  it('selects by label query, pages that skip still carry a cursor', async () => {
    const q = queue();
    const one = q.engine('one');
    await fillStates(one);
    const even = await everyPage(one, 'claimable', 1, { meta: { even: 'true' } });
    expect(even.ks).toEqual(['c0', 'c2', 'c4']);
    expect((await everyPage(one, 'all', 100, { meta: { k: 'w' } })).ks).toEqual(['w']);
    expect((await one.tasks({ query: { meta: { k: 'nothing' } } })).tasks).toEqual([]);
  });

  it('reads at most 1,000 index entries a page, 500 a script, however many a query skips', async () => {
    const q = queue();
    const producer = q.engine('producer');
    const total = 2_500;
    for (let start = 0; start < total; start += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, offset) =>
          producer.create({ meta: { k: String(start + offset) } }),
        ),
      );
    }
    expect(pageBudget).toBe(1_000);
    const counting = countingClient();
    try {
      const one = q.engine('one', { redis: counting.client, stepTime: 0 });
      // a query that matches none: empty pages, each of at most 1,000 entries
      const none = await everyPage(one, 'claimable', 100, { meta: { k: 'none' } });
      expect(none.ks).toEqual([]);
      expect(none.pages).toBe(Math.ceil(total / pageBudget));
      // two scripts of 500 entries a page: the third page's first script reads
      // the last 500, its second finds the end
      expect(counting.scripts('page')).toBe(6);
    } finally {
      await counting.client.quit();
    }
  });

  it('returns tasks as stored, as lister does', async () => {
    const q = queue();
    const one = q.engine('one');
    const created = await one.create({ meta: { k: 'x' }, sync: { s: '1' } });
    const page = await one.tasks({ state: 'claimable' });
    expect(page).toEqual({ tasks: await one.lister({ meta: { k: 'x' } }), cursor: undefined });
    expect(page.tasks[0]?.core?.[Label.Object]).toBe(created.core?.[Label.Object]);
  });

  it.each([
    [
      'an unknown state',
      { state: 'ready' },
      TypeError,
      /option "state" must be one of all, claimable/,
    ],
    [
      'a limit of 0',
      { limit: 0 },
      TypeError,
      /option "limit" must be a positive integer; got number 0/,
    ],
    ['a limit above the most', { limit: pageMostLimit + 1 }, RangeError, /at most 1000/],
    [
      'a cursor of another state',
      { state: 'owned', cursor: 'all:0:0' },
      TypeError,
      /cursor of a page of state "owned"/,
    ],
    [
      'a cursor of a wrong form',
      { state: 'halted', cursor: 'halted:x' },
      TypeError,
      /not a cursor/,
    ],
    ['an empty query', { query: {} }, TaskMetaEmptyError, /tasks: the query must hold a label/],
  ])('rejects %s and writes nothing', async (_name, options, type, message) => {
    const q = queue();
    const one = q.engine('one');
    await one.create({ meta: { k: 'a' } });
    await expectUnchanged(q.redis, q.prefix, async () => {
      const call = one.tasks(options as never);
      await expect(call).rejects.toBeInstanceOf(type);
      await expect(call).rejects.toThrow(message);
    });
  });
});
