import type { Engine } from '../../lib/engine/engine.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';

// @exact tasks: docs/semantics.md §1.5 (parseTime, "due when now ≥ @exact"), §1.7,
// §3.1 (stored as given), §3.2 phase 2 rule 4 and §3.6 (revoked, never removed by
// retention).

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

describe('create: @exact tasks', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('is not searchable before its instant and is searchable exactly at it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:01:00Z' },
      meta: { k: 'foo' },
    });
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:59.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:01:00Z');
    const found = await eon.search();
    expect(idOf(found)).toBe(idOf(created));
    expect(found?.cron).toEqual({ [Label.Exact]: '2023-10-20T00:01:00Z' });
  });

  it('is searchable any time after its instant', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:01:00Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-25T00:00:00Z');
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it('passes over a waiting exact task for a newer plain task until the exact task is due', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const waiting = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:01:00Z' },
      meta: { k: 'exact' },
    });
    const plain = await eon.create({ meta: { k: 'plain' } });
    expect(idOf(await eon.search())).toBe(idOf(plain));
    q.clock.set('2023-10-20T00:01:00Z');
    expect(idOf(await eon.search())).toBe(idOf(waiting));
  });

  it.each([
    ['a positive offset', '2023-10-20T02:01:00+02:00'],
    ['a negative offset', '2023-10-19T20:01:00-04:00'],
    ['no zone (read as UTC)', '2023-10-20T00:01:00'],
    ['lower-case t and z', '2023-10-20t00:01:00z'],
    ['a zero fraction', '2023-10-20T00:01:00.000Z'],
  ])(
    'reads an @exact with %s as the instant it names and stores it as given',
    async (_name, exact) => {
      const q = queue();
      const eon = q.engine('eon');
      const created = await eon.create({ cron: { [Label.Exact]: exact }, meta: { k: 'foo' } });
      expect((await stored(eon, idOf(created)))?.cron).toEqual({ [Label.Exact]: exact });
      q.clock.set('2023-10-20T00:00:59.999Z');
      expect(await eon.search()).toBeUndefined();
      q.clock.set('2023-10-20T00:01:00Z');
      expect(idOf(await eon.search())).toBe(idOf(created));
    },
  );

  it.each([
    [
      'a millisecond fraction',
      '2023-10-20T00:01:00.5Z',
      '2023-10-20T00:01:00.499Z',
      '2023-10-20T00:01:00.5Z',
    ],
    [
      'nine fraction digits, truncated to milliseconds',
      '2023-10-20T00:01:00.123999999Z',
      '2023-10-20T00:01:00.122Z',
      '2023-10-20T00:01:00.123Z',
    ],
    [
      'a fraction and an offset',
      '2023-10-20T05:31:00.25+05:30',
      '2023-10-20T00:01:00.249Z',
      '2023-10-20T00:01:00.25Z',
    ],
  ])('is due at the millisecond of an @exact with %s', async (_name, exact, before, at) => {
    const q = queue();
    const eon = q.engine('eon');
    const created = await eon.create({ cron: { [Label.Exact]: exact }, meta: { k: 'foo' } });
    q.clock.set(before);
    expect(await eon.search()).toBeUndefined();
    q.clock.set(at);
    expect(idOf(await eon.search())).toBe(idOf(created));
  });

  it('is revoked by expire once the lease of its owner ended, and searchable again', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const created = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'foo' },
    });
    q.clock.set('2023-10-20T00:00:10Z');
    const copy = await eon.search();
    expect(copy?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:40Z');
    q.clock.set('2023-10-20T00:00:39.999Z');
    await eon.expire();
    expect(await etw.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:40Z');
    await eon.expire();
    expect(await stored(eon, idOf(created))).toEqual({
      core: { [Label.Object]: idOf(created), [Label.Cycles]: '1' },
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'foo' },
      node: { [Label.Method]: 'any' },
    });
    const again = await etw.search();
    expect(idOf(again)).toBe(idOf(created));
    expect(again?.core?.[Label.Worker]).toBe('etw');
  });

  it('is never deleted by retention, whether waiting, due, owned or not', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const owned = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:10Z' },
      meta: { k: 'owned' },
    });
    const due = await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:20Z' },
      meta: { k: 'due' },
    });
    const waiting = await eon.create({
      cron: { [Label.Exact]: '2024-10-20T00:00:00Z' },
      meta: { k: 'waiting' },
    });
    await eon.create({ meta: { k: 'plain' } });
    q.clock.set('2023-10-20T00:00:10Z');
    expect(idOf(await eon.search({ meta: { k: 'owned' } }))).toBe(idOf(owned));
    q.clock.set('2023-12-01T00:00:00Z');
    await eon.expire();
    const left = await eon.lister(everything);
    expect(left.map(idOf)).toEqual([idOf(owned), idOf(due), idOf(waiting)]);
    expect(left[0]?.core?.[Label.Cycles]).toBe('1'); // the ended lease was revoked instead
  });

  it('is deleted by its owner like a plain task and does not come back', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ cron: { [Label.Exact]: '2023-10-20T00:00:10Z' }, meta: { k: 'foo' } });
    q.clock.set('2023-10-20T00:00:10Z');
    await eon.delete((await eon.search())!);
    q.clock.set('2023-10-21T00:00:10Z');
    await eon.ticker();
    expect(await eon.exists(everything)).toBe(false);
  });
});
