import type { Engine } from '../../lib/engine/engine.js';
import { engineContext, filterList, searchFor, unparkSlots } from '../../lib/engine/runtime.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue, type TestQueue } from '../harness/queue.js';
import { publishQueue, subscribeQueue } from '../harness/redis.js';

// Idle slots of the worker runtime park in the queue: the search that found
// no work parks its slot, and a script that makes a task claimable names one
// parked slot that may take it on the queue's signal channel (include/finish.lua
// finish). These tests drive the engine calls the runtime makes, on a fake
// clock, and read the channel themselves.

const queue = useQueue('2023-10-20T00:00:00Z');

interface Message {
  s?: string[];
  a?: number;
  d?: number;
}

/**
 * listen subscribes to the queue's signal channel and collects its messages;
 * settled() resolves once every message published so far has arrived (a
 * marker published after them comes last: one channel keeps its order).
 */
async function listen(
  q: TestQueue,
): Promise<{ messages: Message[]; settled(): Promise<void>; stop(): Promise<void> }> {
  const messages: Message[] = [];
  const markers = new Map<number, () => void>();
  let marker = 0;
  const subscriber = await subscribeQueue(q.key.signal, (message) => {
    const parsed = JSON.parse(message) as Message & { marker?: number };
    if (parsed.marker === undefined) messages.push(parsed);
    else markers.get(parsed.marker)?.();
  });
  return {
    messages,
    settled: () => {
      const mine = ++marker;
      const arrived = new Promise<void>((resolve) => markers.set(mine, resolve));
      return publishQueue(q.redis, q.key.signal, JSON.stringify({ marker: mine })).then(
        () => arrived,
      );
    },
    stop: async () => {
      await subscriber.stop();
    },
  };
}

/** park searches as slot `slot` of the engine's worker would, parking until `untilMs` when idle. */
function park(
  engine: Engine,
  slot: string,
  filters: Task[] = [],
  untilMs = Date.parse('2023-10-20T01:00:00Z'),
) {
  // the runtime parks for a while from the search's instant (the fake clock's)
  const forMs = untilMs - engineContext(engine).clock().getTime();
  return searchFor(engine, filterList(filters), [], { slot, forMs });
}

/** woken: the slots the channel's messages named so far. */
async function woken(channel: Awaited<ReturnType<typeof listen>>): Promise<string[]> {
  await channel.settled();
  return channel.messages.flatMap((message) => message.s ?? []);
}

describe('parked slots', () => {
  it('parks a slot whose search found nothing, and a create wakes exactly that one slot', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      const eon = q.engine('eon');
      const etw = q.engine('etw');
      // the earliest deadline first: the slot that parked longest ago
      expect(await park(etw, '0', [], Date.parse('2023-10-20T00:59:00Z'))).toBeUndefined();
      expect(await park(eon, '0', [], Date.parse('2023-10-20T01:00:00Z'))).toBeUndefined();
      expect(await park(etw, '1', [], Date.parse('2023-10-20T01:01:00Z'))).toBeUndefined();
      expect(await q.redis.hlen(q.key['parked-slots'])).toBe(3);

      await q.engine('producer').create({ meta: { k: 'a' } });
      expect(await woken(channel)).toEqual(['etw\u00000']);
      expect(await q.redis.hlen(q.key['parked-slots'])).toBe(2);
      await q.engine('producer').create({ meta: { k: 'b' } });
      expect(await woken(channel)).toEqual(['etw\u00000', 'eon\u00000']);
    } finally {
      await channel.stop();
    }
  });

  it('wakes only a slot whose filters match the new task', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      const eon = q.engine('eon');
      const etw = q.engine('etw');
      await park(eon, '0', [{ meta: { kind: 'a' } }]);
      await park(etw, '0', [{ meta: { kind: 'b' } }, { meta: { kind: 'c' } }]);
      await q.engine('producer').create({ meta: { kind: 'c' } });
      expect(await woken(channel)).toEqual(['etw\u00000']);
      await q.engine('producer').create({ meta: { kind: 'x' } });
      expect(await woken(channel)).toEqual(['etw\u00000']); // nobody wants x
      await q.engine('producer').create({ meta: { kind: 'a' } });
      expect(await woken(channel)).toEqual(['etw\u00000', 'eon\u00000']);
    } finally {
      await channel.stop();
    }
  });

  it('wakes a slot of the unicast task’s worker only', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      await park(q.engine('eon'), '0');
      await park(q.engine('etw'), '3');
      await q.engine('producer').create({
        meta: { k: 'u' },
        node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      });
      expect(await woken(channel)).toEqual(['etw\u00003']);
    } finally {
      await channel.stop();
    }
  });

  it('skips a slot whose worker the share gate would refuse', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      const producer = q.engine('producer');
      const eon = q.engine('eon');
      const etw = q.engine('etw');
      await producer.create({ meta: { k: '1' } });
      await producer.create({ meta: { k: '2' } });
      expect(await eon.search()).toBeDefined();
      expect(await etw.search()).toBeDefined();
      // both own one of two tasks: their shares are used up, and they park, etw first
      expect(await park(etw, '0', [], Date.parse('2023-10-20T00:59:00Z'))).toBeUndefined();
      expect(await park(eon, '0', [], Date.parse('2023-10-20T01:00:00Z'))).toBeUndefined();
      // n = 3: the remainder goes to the first id, so eon may take one more, etw not
      await producer.create({ meta: { k: '3' } });
      expect(await woken(channel)).toEqual(['eon\u00000']);
    } finally {
      await channel.stop();
    }
  });

  /**
   * turnedAway leaves eon with two tasks and etw with one, a fourth task
   * created while etw's slot 1 was parked (n = 4: the create wakes etw, whose
   * share is 2), then eon finishing one (n = 3: etw's share is 1 again, eon's
   * 2): the woken slot's search will be turned away by the share gate.
   */
  async function turnedAway(q: TestQueue, parkEon: boolean) {
    const producer = q.engine('producer');
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    for (const k of ['1', '2', '3']) await producer.create({ meta: { k } });
    const first = await eon.search();
    expect(await eon.search()).toBeDefined();
    expect(await etw.search()).toBeDefined();
    expect(await park(etw, '1', [], Date.parse('2023-10-20T00:59:00Z'))).toBeUndefined();
    if (parkEon) expect(await park(eon, '0')).toBeUndefined();
    await producer.create({ meta: { k: '4' } });
    await eon.delete(first!);
    return { eon, etw };
  }

  it('passes a wake-up on to a parked slot that may take the task when the share gate turns the woken slot away', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      const { eon, etw } = await turnedAway(q, true);
      expect(await woken(channel)).toEqual(['etw\u00001']);
      expect(await park(etw, '1')).toBeUndefined();
      // the task must not wait for eon's next poll
      expect(await woken(channel)).toEqual(['etw\u00001', 'eon\u00000']);
      expect((await park(eon, '0'))?.meta).toEqual({ k: '4' });
    } finally {
      await channel.stop();
    }
  });

  it('passes no wake-up on to a slot of the worker the share gate turned away', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      const { etw } = await turnedAway(q, false);
      expect(await park(etw, '0')).toBeUndefined();
      expect(await park(etw, '1')).toBeUndefined();
      expect(await park(etw, '0')).toBeUndefined();
      expect(await woken(channel)).toEqual(['etw\u00001']);
      expect(await q.redis.hlen(q.key['parked-slots'])).toBe(2);
    } finally {
      await channel.stop();
    }
  });

  it('drops a slot whose deadline passed (its worker is gone) and wakes a live one', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      await park(q.engine('gone'), '0', [], Date.parse('2023-10-20T00:00:15Z'));
      q.clock.set('2023-10-20T00:00:20Z');
      await park(q.engine('live'), '0', [], Date.parse('2023-10-20T00:00:35Z'));
      await q.engine('producer').create({ meta: { k: 'a' } });
      expect(await woken(channel)).toEqual(['live\u00000']);
      expect(await q.redis.hkeys(q.key['parked-slots'])).toEqual([]);
    } finally {
      await channel.stop();
    }
  });

  it('unparks a slot that searches again, and the slots of a worker that stops', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await park(eon, '0');
    await park(eon, '1');
    await q.engine('producer').create({ meta: { k: 'a' } }); // wakes slot 0
    expect((await park(eon, '0'))?.meta).toEqual({ k: 'a' });
    expect(await q.redis.hkeys(q.key['parked-slots'])).toEqual(['eon\u00001']);
    await unparkSlots(eon, ['0', '1']);
    expect(await q.redis.exists(q.key['parked-slots'], q.key.parked)).toBe(0);
  });

  it('names no slot for a broadcast task, but tells every worker one came', async () => {
    const q = queue();
    const channel = await listen(q);
    try {
      await park(q.engine('eon'), '0');
      await q.engine('producer').create({ meta: { k: 'b' }, node: { [Label.Method]: Method.All } });
      await channel.settled();
      expect(channel.messages).toEqual([{ a: 1 }]);
    } finally {
      await channel.stop();
    }
  });
});
