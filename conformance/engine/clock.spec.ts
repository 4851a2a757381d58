import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import { creationTime } from '../../lib/task/object-id.js';
import type { Task } from '../../lib/task/task.js';
import { idOf, useQueue } from '../harness/queue.js';
import { engineRedis } from '../harness/redis.js';

// docs/semantics.md §1.9 and §5.1: every operation that needs time reads the engine
// clock once, at its start, and uses that reading for every decision, label
// and id of the call, also across the atomic steps of expire and ticker.

const everything: Task = { meta: { '*': '*' } };

/** A clock that counts its readings and moves on by `stepMs` after each one. */
interface CountingClock {
  (): Date;
  reads: number;
  set(iso: string): void;
}

function countingClock(start: string, stepMs = 0): CountingClock {
  let nowMs = Date.parse(start);
  const clock = Object.assign(
    () => {
      clock.reads++;
      const reading = new Date(nowMs);
      nowMs += stepMs;
      return reading;
    },
    {
      reads: 0,
      set(iso: string) {
        nowMs = Date.parse(iso);
      },
    },
  );
  return clock;
}

describe('the engine clock', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  function engineOn(clock: CountingClock, worker: string): Engine {
    return queue().engine(worker, { redis: engineRedis(), clock });
  }

  it('is read exactly once by every operation that needs time, and at most once by the others', async () => {
    const clock = countingClock('2023-10-20T00:00:01Z');
    const eon = engineOn(clock, 'eon');
    const reads = async (call: () => Promise<unknown>): Promise<number> => {
      clock.reads = 0;
      await call();
      return clock.reads;
    };

    expect(await reads(() => eon.create({ meta: { k: 'a' } }))).toBe(1);
    expect(
      await reads(() => eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 't' } })),
    ).toBe(1);
    const gate = await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } });
    let claimed: Task | undefined;
    expect(await reads(async () => (claimed = await eon.search()))).toBe(1);
    expect(await reads(() => eon.search({ meta: { k: 'none' } }))).toBe(1);
    expect(await reads(() => eon.extend(claimed!))).toBe(1);
    expect(await reads(() => eon.delete(claimed!))).toBe(1);
    const trigger = await eon.search();
    expect(await reads(() => eon.delete(trigger!))).toBe(1); // the gate fires: its child's id needs now
    expect(await eon.exists({ root: { [Label.Object]: idOf(gate) } })).toBe(true);
    clock.set('2023-10-20T01:00:01Z');
    expect(await reads(() => eon.ticker())).toBe(1);
    expect(await reads(() => eon.expire())).toBe(1);
    expect(await reads(() => eon.exists(everything))).toBeLessThanOrEqual(1);
    expect(await reads(() => eon.lister(everything))).toBeLessThanOrEqual(1);
    const halted = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'h' } });
    expect(await reads(() => eon.cycles(halted))).toBeLessThanOrEqual(1);
  });

  it('gives every child of one ticker call the same creation instant, however the clock moves on', async () => {
    const clock = countingClock('2023-10-20T00:00:01Z', 1);
    const eon = engineOn(clock, 'eon');
    const templates: Task[] = [];
    for (let n = 0; n < 5; n++)
      templates.push(await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { n: String(n) } }));
    clock.set('2023-10-20T01:00:00.5Z');
    await eon.ticker(); // reads 01:00:00.5; the clock reads 01:00:00.501 next
    const children = (await eon.lister(everything)).filter((task) => task.root !== undefined);
    expect(children).toHaveLength(5);
    for (const child of children)
      expect(creationTime(idOf(child))?.toISOString()).toBe('2023-10-20T01:00:00.500Z');
    for (const template of templates) {
      const [stored] = (await eon.lister(everything)).filter(
        (task) => idOf(task) === idOf(template),
      );
      expect(stored?.cron?.[Label.TickP1]).toBe('2023-10-20T02:00:00Z');
    }
  });

  it('decides every lease of one expire call by the same reading', async () => {
    const clock = countingClock('2023-10-20T00:00:00Z');
    const eon = engineOn(clock, 'eon');
    for (let n = 0; n < 4; n++) await eon.create({ meta: { n: String(n) } });
    // leases end at :30.000, :30.001, :30.002, :30.003
    for (let n = 0; n < 4; n++) {
      clock.set(`2023-10-20T00:00:00.00${n}Z`);
      await eon.search();
    }
    // expire reads :30.001 and then the clock races on by 1 ms per reading
    const racing = countingClock('2023-10-20T00:00:30.001Z', 1);
    const etw = engineOn(racing, 'etw');
    racing.set('2023-10-20T00:00:30.001Z');
    await etw.expire();
    const owners = (await eon.lister(everything)).map((task) => task.core?.[Label.Worker]);
    expect(owners).toEqual([undefined, undefined, 'eon', 'eon']);
  });

  it('stamps a claim with the one reading of its search', async () => {
    const clock = countingClock('2023-10-20T00:00:01Z', 7);
    const eon = engineOn(clock, 'eon');
    await eon.create({ meta: { k: 'plain' } });
    await eon.create({ meta: { k: 'broadcast' }, node: { [Label.Method]: Method.All } });
    clock.set('2023-10-20T00:00:02Z');
    // the first search delivers the broadcast task (phase 1); the second one walks
    // phase 1 (under the local lease), then claims in phases 2 to 5 with the same now
    expect((await eon.search())?.meta).toEqual({ k: 'broadcast' });
    clock.set('2023-10-20T00:00:02Z');
    const claimed = await eon.search();
    expect(claimed?.meta).toEqual({ k: 'plain' });
    expect(claimed?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:32Z');
  });

  it('lets an engine whose clock is behind extend a lease from its own now, even to an earlier end', async () => {
    // §5.1: engines whose clocks disagree decide with their own clocks; leases shift by the skew
    const ahead = countingClock('2023-10-20T00:00:10Z');
    const behind = countingClock('2023-10-20T00:00:02Z');
    const eon = engineOn(ahead, 'eon');
    const late = engineOn(behind, 'eon'); // the same worker id on a slow clock
    await eon.create({ meta: { k: 'v' } });
    const copy = await eon.search();
    expect(copy?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:40Z');
    await late.extend(copy!);
    const [stored] = await eon.lister(everything);
    expect(stored?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:32Z');
    ahead.set('2023-10-20T00:00:32Z');
    await eon.expire(); // ended by eon's clock: revoked
    const [revoked] = await eon.lister(everything);
    expect(revoked?.core).toEqual({ [Label.Object]: idOf(copy), [Label.Cycles]: '1' });
  });
});
