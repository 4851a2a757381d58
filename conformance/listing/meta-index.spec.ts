import { Engine } from '../../lib/engine/engine.js';
import type { TaskPageState } from '../../lib/task/state.js';
import type { Task } from '../../lib/task/task.js';
import { countingClient } from '../harness/counting.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { createMany, idOf, type TestQueue, useQueue } from '../harness/queue.js';

// An engine's metaIndexes option makes the queue list its tasks under each
// value of the keys it names (`meta-tasks`), so exists, lister and pages of
// every state read only the tasks that hold a value asked exactly: the same
// answers as a scan of every record, whatever happened to the tasks before
// and after.

const queue = useQueue('2023-10-20T00:00:00Z');

/** every entry of `meta-tasks`, as `<key>=<value> <id>` */
async function listed(q: TestQueue): Promise<string[]> {
  const members = await q.redis.zrange(q.key['meta-tasks'], 0, -1);
  return members.map((member) => {
    const match = /^\d+:(.*?)\d+:(.*)\0(.*)$/s.exec(member);
    return match === null ? member : `${match[1]}=${match[2]} ${match[3]}`;
  });
}

/** count tasks of kind even and odd in turn, oldest first */
function createEvenOdd(q: TestQueue, count: number): Promise<Task[]> {
  return createMany(q, count, (index) => ({
    meta: { kind: index % 2 === 0 ? 'even' : 'odd', n: String(index) },
  }));
}

describe('metaIndexes', () => {
  it('lists what a scan of every record lists, for tasks stored before and after', async () => {
    const q = queue();
    const kinds = ['a', 'b', 'c'];
    const before = await createMany(q, 600, (index) => ({
      meta: { kind: kinds[index % 3] ?? 'a', n: String(index) },
    }));
    const indexed = q.engine('indexed', { metaIndexes: ['kind'] });
    const scanning = q.engine('scanning');
    const query = { meta: { kind: 'b' } };
    expect(await indexed.lister(query)).toEqual(await scanning.lister(query));
    expect((await indexed.lister(query)).length).toBe(200);

    // claims, deletes and new tasks keep the listing
    const worker = q.engine('worker');
    for (let claim = 0; claim < 30; claim++) {
      const task = await worker.search({ meta: { kind: 'b' } });
      if (task === undefined) throw new Error('no task of kind b to claim');
      if (claim % 2 === 0) await worker.delete(task);
    }
    await indexed.create({ meta: { kind: 'b', n: 'new' } });
    await indexed.create({ meta: { other: 'b' } });
    expect(await indexed.lister(query)).toEqual(await scanning.lister(query));
    expect((await indexed.lister(query)).length).toBe(200 - 15 + 1);
    expect(await indexed.lister({ meta: { kind: 'b', n: 'new' } })).toHaveLength(1);
    expect(await indexed.exists({ meta: { kind: 'c', n: '2' } })).toBe(true);
    expect(await indexed.exists({ meta: { kind: 'a', n: '2' } })).toBe(false);
    // one entry per task with the key, none for the tasks deleted
    expect((await listed(q)).length).toBe(600 - 15 + 1);
    expect(await listed(q)).toContain(`kind=a ${idOf(before[0] as Task)}`);
  });

  it('tells values and keys apart whatever they hold', async () => {
    const q = queue();
    const eon = q.engine('eon', { metaIndexes: ['k', 'k:1', '🙂'] });
    const values = ['a', 'a:b', '1:a', 'a\u0000', '', 'ü', '🙂', 'x'.repeat(300)];
    const created = new Map<string, Task>();
    for (const value of values) {
      created.set(value, await eon.create({ meta: { k: value, 'k:1': value, '🙂': value } }));
    }
    await eon.create({ meta: { kk: 'a', 'k:': 'a', other: 'a' } });
    for (const value of values) {
      for (const key of ['k', 'k:1', '🙂']) {
        expect(await eon.lister({ meta: { [key]: value } })).toEqual([created.get(value)]);
      }
    }
    expect(await eon.lister({ meta: { k: 'a', 'k:1': 'a:b' } })).toEqual([]);
    expect(await listed(q)).toHaveLength(values.length * 3);
  });

  it('reads only the tasks listed under the value asked', async () => {
    const q = queue();
    await createMany(q, 3_000, (index) => ({ meta: { kind: 'a', n: String(index) } }), 500);
    const rare = await q.engine('producer').create({ meta: { kind: 'b' } });
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, metaIndexes: ['kind'] });
      expect(await eon.lister({ meta: { kind: 'b' } })).toEqual([rare]);
      counting.reset();
      expect(await eon.lister({ meta: { kind: 'b' } })).toEqual([rare]);
      expect(await eon.exists({ meta: { kind: 'none' } })).toBe(false);
      expect(await eon.exists({ meta: { kind: 'a', n: '3' } })).toBe(true); // among the first listed
      expect(counting.scripts('scan')).toBe(3);
      // a pattern or another key is no lookup: every record is read
      counting.reset();
      expect(await eon.exists({ meta: { n: 'none' } })).toBe(false);
      expect(counting.scripts('scan')).toBeGreaterThanOrEqual(6);
    } finally {
      await counting.client.quit();
    }
  });

  it('reads a long listing a step at a time, oldest first', async () => {
    const q = queue();
    const created = await createEvenOdd(q, 1_200);
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, metaIndexes: ['kind'], stepTime: 0 });
      await eon.exists({ meta: { kind: 'none' } }); // lists the queue first
      counting.reset();
      const odd = await eon.lister({ meta: { kind: 'odd' } });
      expect(odd.map(idOf)).toEqual(created.filter((_, index) => index % 2 === 1).map(idOf));
      expect(counting.scripts('scan')).toBe(2); // 500 listed entries a step
    } finally {
      await counting.client.quit();
    }
  });

  it('pages engine.tasks() of all tasks by the listing, oldest first', async () => {
    const q = queue();
    const created = await createEvenOdd(q, 1_200);
    const odd = created.filter((_, index) => index % 2 === 1).map(idOf);
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, metaIndexes: ['kind'], stepTime: 0 });
      const listed: string[] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await eon.tasks({ query: { meta: { kind: 'odd' } }, limit: 250, cursor });
        listed.push(...page.tasks.map(idOf));
        cursor = page.cursor;
        if (cursor !== undefined) cursors.push(cursor);
      } while (cursor !== undefined);
      expect(listed).toEqual(odd);
      expect(cursors).toEqual([`all:m${odd[249]}`, `all:m${odd[499]}`]);
      expect(counting.scripts('metaIndex')).toBeGreaterThan(0); // the first page waited for the listing
      expect(counting.scripts('page')).toBe(3); // 250 listed entries a page, nothing else read
    } finally {
      await counting.client.quit();
    }
  });

  it('pages any state by the listing where it lists fewer tasks than the state holds', async () => {
    const q = queue();
    const created = await createMany(q, 1_600, (index) => ({
      meta: { kind: index % 4 === 0 ? 'x' : 'y', n: String(index) },
    }));
    const eon = q.engine('eon', { metaIndexes: ['kind'], stepTime: 0 });
    const worker = q.engine('worker');
    const claimed = new Set<string>();
    for (let claim = 0; claim < 30; claim++) {
      for (const kind of ['x', 'y']) {
        const task = await worker.search({ meta: { kind } });
        if (task === undefined) throw new Error(`no task of kind ${kind} to claim`);
        claimed.add(idOf(task));
      }
    }
    async function pages(state: TaskPageState, kind: string) {
      const ids: string[] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await eon.tasks({ state, query: { meta: { kind } }, limit: 100, cursor });
        ids.push(...page.tasks.map(idOf));
        cursor = page.cursor;
        if (cursor !== undefined) cursors.push(cursor);
      } while (cursor !== undefined);
      return { ids, cursors };
    }
    const ofKind = (kind: string) =>
      created.filter((task) => task.meta?.['kind'] === kind).map(idOf);

    // 400 listed under x, 1,540 claimable: the listing, oldest first
    const claimableX = await pages('claimable', 'x');
    expect(claimableX.ids).toEqual(ofKind('x').filter((id) => !claimed.has(id)));
    expect(claimableX.cursors).toEqual(
      [99, 199, 299].map((index) => `claimable:m${claimableX.ids[index]}`),
    );
    // 1,200 listed under y (more than a page reads), 60 owned: the state's own index
    const ownedY = await pages('owned', 'y');
    expect(new Set(ownedY.ids)).toEqual(new Set(ofKind('y').filter((id) => claimed.has(id))));
    expect(ownedY.cursors).toEqual([]);
    // a listing cursor another state was given goes on in that state
    const ownedX = await eon.tasks({
      state: 'owned',
      query: { meta: { kind: 'x' } },
      cursor: `owned:m${ofKind('x')[0]}`,
    });
    expect(ownedX.tasks.map(idOf)).toEqual(
      ofKind('x')
        .filter((id) => claimed.has(id))
        .slice(1),
    );
  });

  it('pages on by the records when the listing went between two pages', async () => {
    const q = queue();
    const created = await createEvenOdd(q, 600);
    const eon = q.engine('eon', { metaIndexes: ['kind'] });
    const query = { meta: { kind: 'odd' } };
    const first = await eon.tasks({ query, limit: 100 });
    expect(first.cursor).toMatch(/^all:m/);
    await q.redis.del(q.key.watched, q.key['meta-tasks'], q.key['meta-indexes']);
    const seen = new Set(first.tasks.map(idOf));
    let cursor = first.cursor;
    while (cursor !== undefined) {
      const page = await eon.tasks({ query, limit: 1_000, cursor });
      for (const task of page.tasks) seen.add(idOf(task));
      cursor = page.cursor;
    }
    expect([...seen].sort()).toEqual(created.filter((_, index) => index % 2 === 1).map(idOf));
  });

  it('lists a queue of any size in bounded steps before the first listing', async () => {
    const q = queue();
    await createMany(q, 1_000, (index) => ({ meta: { kind: String(index % 10) } }), 500);
    const counting = countingClient();
    try {
      const eon = q.engine('eon', { redis: counting.client, metaIndexes: ['kind', 'n'] });
      expect(await eon.lister({ meta: { kind: '7' } })).toHaveLength(100);
      expect(counting.scripts('metaIndex')).toBeGreaterThanOrEqual(4); // 256 records a call
      expect(await q.redis.hgetall(q.key.watched)).toEqual({ kind: '1', n: '1' });
      expect(await q.redis.hgetall(q.key['meta-indexes'])).toEqual({ kind: '1', n: '1' });
      counting.reset();
      expect(await eon.lister({ meta: { kind: '3' } })).toHaveLength(100);
      expect(counting.scripts()).toBe(1); // listed once per engine
    } finally {
      await counting.client.quit();
    }
  });

  it('keeps the listing when the last root of the queue goes', async () => {
    const q = queue();
    const eon = q.engine('eon', { metaIndexes: ['kind'] });
    await eon.create({ meta: { kind: 'a' } });
    expect(await eon.exists({ meta: { kind: 'a' } })).toBe(true);
    const leaf = await eon.create({ meta: { leaf: '1' }, root: { kind: 'z' } });
    const owned = await eon.search({ meta: { leaf: '1' } });
    if (owned === undefined) throw new Error('the leaf was not claimed');
    expect(idOf(owned)).toBe(idOf(leaf));
    await eon.delete(owned);
    expect(await q.redis.exists(q.key.roots)).toBe(0);
    expect(await listed(q)).toEqual([expect.stringMatching(/^kind=a /)]);
    await eon.create({ meta: { kind: 'a', n: '2' } });
    expect(await eon.lister({ meta: { kind: 'a' } })).toHaveLength(2);
  });

  it('is listed anew by repair', async () => {
    const q = queue();
    const eon = q.engine('eon', { metaIndexes: ['kind'] });
    await eon.create({ meta: { kind: 'a' } });
    await eon.create({ meta: { kind: 'b' } });
    expect(await eon.lister({ meta: { kind: 'b' } })).toHaveLength(1);
    const before = await listed(q);
    await eon.repair();
    expect(await q.redis.hgetall(q.key['meta-indexes'])).toEqual({ kind: '1' });
    expect(await eon.lister({ meta: { kind: 'b' } })).toHaveLength(1);
    expect(await q.redis.hget(q.key.watched, 'kind')).toBe('1');
    expect(await listed(q)).toEqual(before);
  });

  it('refuses keys that are no exact meta keys, writing nothing', async () => {
    const q = queue();
    await expectUnchanged(q.redis, q.prefix, () => {
      for (const metaIndexes of [['k*'], ['*'], [''], 'kind', [7], Array(65).fill('k')]) {
        expect(
          () => new Engine({ queue: q.name, metaIndexes: metaIndexes as unknown as string[] }),
        ).toThrow(TypeError);
      }
      return Promise.resolve();
    });
    expect(q.engine('eon', { metaIndexes: ['k', 'k'] })).toBeInstanceOf(Engine);
  });
});
