import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// docs/semantics.md §3.2 phase 3 (the balancing share gate), its example, and §5.2 item 8.

const everything: Task = { meta: { '*': '*' } };

async function claimName(engine: Engine, filter?: Task): Promise<string | undefined> {
  return (await engine.search(filter))?.meta?.['name'];
}

async function ownership(engine: Engine): Promise<Record<string, string[]>> {
  const owners: Record<string, string[]> = {};
  for (const task of await engine.lister(everything)) {
    const worker = task.core?.[Label.Worker] ?? '-';
    (owners[worker] ??= []).push(task.meta?.['name'] ?? '?');
  }
  return owners;
}

describe('search balancing share gate (phase 3)', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('follows the balancing example of docs/semantics.md §3.2 row by row', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const eth = q.engine('eth');
    for (let index = 0; index < 10; index++) await eon.create({ meta: { name: `t${index}` } });

    // eon alone: W = [eon], share 10
    expect(await claimName(eon)).toBe('t0');
    // etw: W = [eon, etw], 5 / 5, share - own = 5
    expect(await claimName(etw)).toBe('t1');
    // eth: W = [eon, eth, etw], 4 / 3 / 3, share - own = 3
    expect(await claimName(eth)).toBe('t2');
    // eon x3: share 4, own 1 -> 3
    expect(await claimName(eon)).toBe('t3');
    expect(await claimName(eon)).toBe('t4');
    expect(await claimName(eon)).toBe('t5');
    // eon: own 4 = share 4
    expect(await claimName(eon)).toBeUndefined();
    // etw x2, then etw: share 3
    expect(await claimName(etw)).toBe('t6');
    expect(await claimName(etw)).toBe('t7');
    expect(await claimName(etw)).toBeUndefined();
    // eth x2, then eth: share 3
    expect(await claimName(eth)).toBe('t8');
    expect(await claimName(eth)).toBe('t9');
    expect(await claimName(eth)).toBeUndefined();

    expect(await ownership(eon)).toEqual({
      eon: ['t0', 't3', 't4', 't5'],
      etw: ['t1', 't6', 't7'],
      eth: ['t2', 't8', 't9'],
    });
  });

  it('gives the remainder of an uneven split to the smallest ids (a, b, c example)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'b', 'c']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a'); // share 3
    expect(await claimName(etw)).toBe('b'); // Opt([eon, etw], 3) = eon 2 / etw 1
    expect(await claimName(etw)).toBeUndefined(); // although c is free
    expect(await claimName(eon)).toBe('c');
    expect(await ownership(eon)).toEqual({ eon: ['a', 'c'], etw: ['b'] });
  });

  it('leaves workers that own nothing out of W', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.engine('eth'); // an engine that never searches does not count
    for (const name of ['a', 'b', 'c', 'd']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(eon)).toBe('b');
    expect(await claimName(eon)).toBe('c');
    expect(await claimName(eon)).toBe('d'); // W = [eon]: share 4
    expect(await claimName(etw)).toBeUndefined(); // W = [eon, etw]: etw share 2, nothing free
  });

  it('counts a worker whose tasks were all completed as owning nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'b', 'c']) await eon.create({ meta: { name } });
    const claimed = await etw.search(); // a
    await etw.delete(claimed!);
    // n = 2, W = [eon]: share 2
    expect(await claimName(eon)).toBe('b');
    expect(await claimName(eon)).toBe('c');
  });

  it('counts owned tasks in n', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'b', 'c', 'd']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(eon)).toBe('b');
    // n = 4 with eon's two owned tasks: etw share 2 (with n = 2 it would be 1)
    expect(await claimName(etw)).toBe('c');
    expect(await claimName(etw)).toBe('d');
  });

  it('counts unicast tasks for other workers in n', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'c' } });
    await eon.create({ meta: { name: 'b' } });
    await eon.create({
      meta: { name: 'u' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eth' },
    });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(etw)).toBe('c');
    // n = 4 (u counts): etw share 2; with n = 3 it would be 1
    expect(await claimName(etw)).toBe('b');
    expect(await claimName(etw)).toBeUndefined();
  });

  it('counts an owned task whose lease ended but was not revoked', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'b']) await eon.create({ meta: { name } });
    expect(await claimName(etw)).toBe('a');
    q.clock.set('2023-10-20T00:01:00Z'); // a's lease ended, no expire ran
    // W = [eon, etw], n = 2: eon share 1; etw still owns a
    expect(await claimName(eon)).toBe('b');
    expect(await claimName(eon)).toBeUndefined();
  });

  it('gives a worker whose share is used up undefined, even with a filter that matches a free task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const name of ['a', 'b', 'c']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(etw)).toBe('b');
    expect(await claimName(etw, { meta: { name: 'c' } })).toBeUndefined();
    expect(await claimName(etw, { meta: { '*': '*' } })).toBeUndefined();
    const [, , c] = await eon.lister(everything);
    expect(c?.core?.[Label.Worker]).toBeUndefined();
  });

  it('sorts W by JavaScript string order (uppercase before lowercase)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const zed = q.engine('Zed'); // 'Zed' < 'eon' by UTF-16 code units
    for (const name of ['a', 'b', 'c']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    // W = [Zed, eon], n = 3: Zed gets the remainder, share 2
    expect(await claimName(zed)).toBe('b');
    expect(await claimName(zed)).toBe('c');
  });

  it('sorts W by UTF-16 code units, not by code points', async () => {
    const q = queue();
    // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FF5E in
    // JavaScript although its code point (and its UTF-8 bytes) sort after
    const astral = '\u{1F600}';
    const wide = '\uFF5E';
    expect([wide, astral].sort()).toEqual([astral, wide]);
    const first = q.engine(wide);
    const second = q.engine(astral);
    for (const name of ['a', 'b', 'c']) await first.create({ meta: { name } });
    expect(await claimName(first)).toBe('a');
    // W = [astral, wide], n = 3: astral share 2
    expect(await claimName(second)).toBe('b');
    expect(await claimName(second)).toBe('c');
  });
  // own(w) counts the candidates w owns now: however an owned task leaves the
  // queue or its owner, it stops counting for that worker. Each path below ends
  // with a queue whose only candidate is a new task d and nothing owned, so eon
  // (n = 1, W = [eon], share 1) must claim d.
  it.each<[string, (q: TestQueue, eon: Engine) => Promise<void>]>([
    [
      'its own delete',
      async (_q, eon) => {
        await eon.create({ meta: { name: 'x' } });
        await eon.delete((await eon.search())!);
      },
    ],
    [
      'a bypass delete by another engine',
      async (q, eon) => {
        const x = await eon.create({ meta: { name: 'x' } });
        await eon.search();
        await q.engine('etw').delete({ core: { ...x.core, [Label.Bypass]: 'true' } });
      },
    ],
    [
      'a paging requeue, then a bypass delete',
      async (_q, eon) => {
        const x = await eon.create({ meta: { name: 'x' } });
        await eon.delete({ ...(await eon.search()), sync: { [Label.Paging]: '1' } });
        await eon.delete({ core: { ...x.core, [Label.Bypass]: 'true' } });
      },
    ],
    [
      'a deferral, then a bypass delete',
      async (_q, eon) => {
        const x = await eon.create({ meta: { name: 'x' } });
        await eon.delete({ ...(await eon.search()), cron: { [Label.Defer]: 'hour' } });
        await eon.delete({ core: { ...x.core, [Label.Bypass]: 'true' } });
      },
    ],
    [
      'revocation by expire, then a bypass delete',
      async (q, eon) => {
        const x = await eon.create({ meta: { name: 'x' } });
        await eon.search();
        q.clock.advance(30_000);
        await q.engine('etw').expire();
        await eon.delete({ core: { ...x.core, [Label.Bypass]: 'true' } });
      },
    ],
    [
      'cycles resetting it, then a bypass delete',
      async (_q, eon) => {
        const x = await eon.create({ core: { [Label.Cancel]: '3' }, meta: { name: 'x' } });
        await eon.search();
        await eon.cycles(x);
        await eon.delete({ core: { ...x.core, [Label.Bypass]: 'true' } });
      },
    ],
    [
      'retention',
      async (q, eon) => {
        await eon.create({ meta: { name: 'x' } });
        await eon.search();
        q.clock.set('2023-10-28T00:00:00Z');
        await eon.expire();
      },
    ],
    [
      'obsolescence of a leaf it owned',
      async (q, eon) => {
        await eon.create({ meta: { name: 'leaf' }, root: { k: 'gone' } });
        await eon.search();
        await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'gone' } });
        expect(await q.engine('etw').search()).toBeUndefined(); // deletes the leaf
      },
    ],
    [
      'ticker replacing a unicast child it owned',
      async (q, eon) => {
        const template = await eon.create({
          cron: { [Label.Every]: 'hour' },
          meta: { name: 'template' },
          node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
        });
        q.clock.set('2023-10-20T01:00:01Z');
        await eon.ticker();
        expect((await eon.search())?.root).toEqual({
          [Label.Object]: template.core?.[Label.Object],
        });
        q.clock.set('2023-10-20T02:00:01Z');
        await eon.ticker(); // deletes the owned child, stores an unowned one
        const [child] = (await eon.lister(everything)).filter((task) => task.root !== undefined);
        await eon.delete({ core: { ...child?.core, [Label.Bypass]: 'true' } });
      },
    ],
  ])('stops counting a task for its former owner once it left through %s', async (_name, path) => {
    const q = queue();
    const eon = q.engine('eon');
    await path(q, eon);
    expect(
      (await eon.lister(everything)).some((task) => task.core?.[Label.Worker] !== undefined),
    ).toBe(false);
    await eon.create({ meta: { name: 'd' } });
    expect(await claimName(eon)).toBe('d');
  });
});
