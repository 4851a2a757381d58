import { readFileSync } from 'node:fs';
import type { Engine } from '../../lib/engine/engine.js';
import { leanCreatable, prepareCreate, splitRequest } from '../../lib/engine/create.js';
import { layoutVersion } from '../../lib/engine/keys.js';
import { run, runRequest } from '../../lib/engine/run.js';
import { argv } from '../../lib/engine/lua/arguments.js';
import { assembleScript } from '../../lib/engine/lua/loader.js';
import { engineContext, filterList, searchFor } from '../../lib/engine/runtime.js';
import { encodeStored } from '../../lib/task/codec.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { queueContents } from '../harness/queue-state.js';
import { publishQueue, subscribeQueue } from '../harness/redis.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// create.lua stores a plain task on its lean path (include/create.lua): the
// engine's encoded record into `tasks`, the id into `ready`, nothing decoded,
// unless the queue's features (include/features.lua) change what a create
// writes; then the general path runs in the same call. These tests run the
// same story on two queues with the same clock, one through engine.create,
// one through the general form of the script, and compare every key.

/** createGeneral stores a task through create.lua's general form, as create did before the lean path. */
async function createGeneral(engine: Engine, task: Task): Promise<string> {
  const context = engineContext(engine);
  const now = context.clock();
  const { args } = prepareCreate(task, now);
  return (await runRequest(context, 'create', (request) =>
    argv('create', {
      ...args,
      now_ms: now.getTime(),
      layout: layoutVersion,
      request,
      after: '',
      unique: '',
    }),
  )) as string;
}

const plainTasks: Task[] = [
  { meta: { n: 'a' } },
  { meta: { n: 'b', o: 'x' }, core: { [Label.Cancel]: '3' } },
  { meta: { n: 'c' }, node: { [Label.Method]: Method.Any } },
  { meta: { n: 'd' }, core: { [Label.Retry]: 'fixed 1 second x 3' } },
];

describe('create: the lean path and the general one agree', () => {
  const lean = useQueue('2023-10-20T00:00:01Z');
  const general = useQueue('2023-10-20T00:00:01Z');

  /** both sets the same queue up twice, creates the plain tasks on each way, and compares every key. */
  async function both(setUp: (q: TestQueue, eon: Engine) => Promise<void> = async () => {}) {
    const [a, b] = [lean(), general()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    await setUp(a, eonA);
    await setUp(b, eonB);
    // the wake-ups each way sends on the queue's signal channel
    const heard: [string[], string[]] = [[], []];
    const listening = await Promise.all(
      [a, b].map((q, side) =>
        subscribeQueue(q.key.signal, (message) => heard[side]!.push(message)),
      ),
    );
    const ids: [string, string][] = [];
    for (const task of plainTasks) {
      const created = await eonA.create(structuredClone(task));
      ids.push([created.core![Label.Object]!, await createGeneral(eonB, structuredClone(task))]);
    }
    expect(ids.map(([fromLean]) => fromLean)).toEqual(ids.map(([, fromGeneral]) => fromGeneral));
    // every key but the answers kept for requests (each engine has its own instance)
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    // a last message of our own on each channel: the engines' came before it
    const ends = [a, b].map(
      (q, side) =>
        new Promise<void>((resolve) => {
          const check = setInterval(() => {
            if (heard[side]!.at(-1) === 'end') {
              clearInterval(check);
              resolve();
            }
          }, 5);
        }),
    );
    await Promise.all([a, b].map((q) => publishQueue(q.redis, q.key.signal, 'end')));
    await Promise.all(ends);
    await Promise.all(listening.map((one) => one.stop()));
    expect(heard[0]).toEqual(heard[1]);
    return { a, b, eonA, heard: heard[0] };
  }

  it('in a plain queue', async () => {
    const { a } = await both();
    expect(await a.redis.exists(a.key.features)).toBe(0);
  });

  it('with a parked slot to wake (parked-slots)', async () => {
    const { a } = await both(async (q, eon) => {
      await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(0); // woken by the first create
  });

  it('with slots of two workers parked: each create wakes the first in order', async () => {
    const { a, heard } = await both(async (q, eon) => {
      await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
      await searchFor(q.engine('ada'), filterList([]), [], { slot: 's2', forMs: 60_000 });
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(0);
    // the same deadline: the slot keys' order
    expect(heard).toEqual(['{"s":["ada\\u0000s2"]}', '{"s":["eon\\u0000s1"]}', 'end']);
  });

  it('with a slot past its deadline before a live one (the general wake drops it)', async () => {
    const { a, heard } = await both(async (q, eon) => {
      await searchFor(q.engine('ada'), filterList([]), [], { slot: 's2', forMs: 1_000 });
      await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
      q.clock.advance(5_000);
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(0);
    expect(heard).toEqual(['{"s":["eon\\u0000s1"]}', 'end']);
  });

  it('while a worker owns a task (owners: the share gate counts)', async () => {
    const { a, heard } = await both(async (q, eon) => {
      await eon.create({ meta: { n: 'owned' } });
      expect(await q.engine('ada').search()).toBeDefined();
      await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
    });
    expect(await a.redis.hlen(a.key.owners)).toBe(1);
    expect(heard).toEqual(['{"s":["eon\\u0000s1"]}', 'end']);
  });

  it('while the queue is paused (no slot is woken)', async () => {
    const { a, heard } = await both(async (q, eon) => {
      await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
      await eon.pause();
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(1);
    expect(heard).toEqual(['end']);
  });

  it('with a known filter and its parked slot (filters)', async () => {
    const { a } = await both(async (q, eon) => {
      await searchFor(eon, filterList([{ meta: { n: 'c' } }]), [], { slot: 's1', forMs: 60_000 });
    });
    expect(await a.redis.hlen(a.key['parked-slots'])).toBe(0); // woken by task c
  });

  it('while someone reads the events stream (events)', async () => {
    const { eonA } = await both(async (q, eon) => {
      await eon.events();
    });
    expect((await eonA.events()).filter((event) => event.kind === 'created')).toHaveLength(
      plainTasks.length,
    );
  });

  it('with a root some leaf has (roots, watched)', async () => {
    const { a } = await both(async (q, eon) => {
      await eon.create({ meta: { k: 'leaf' }, root: { n: 'b' } });
    });
    expect(await a.redis.zcard(a.key['meta-tasks'])).toBeGreaterThan(0); // b listed by its meta
  });

  it('with listed meta keys (metaIndexes: watched)', async () => {
    const { a } = await both(async (q) => {
      expect(await q.engine('etw', { metaIndexes: ['n'] }).exists({ meta: { n: 'x' } })).toBe(
        false,
      );
    });
    expect(await a.redis.zcard(a.key['meta-tasks'])).toBe(plainTasks.length);
  });

  it('after a feature whose key is gone: the stale field is cleared, the path is lean', async () => {
    const { a, b } = await both(async (q) => {
      await q.redis.hset(q.key.features, 'filters', '1', 'events', '1');
    });
    expect(await a.redis.hgetall(a.key.features)).toEqual({});
    expect(await b.redis.hgetall(b.key.features)).toEqual({ filters: '1', events: '1' });
  });
});

describe('create: the lean form', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('answers a request sent again with the same id, and writes nothing twice', async () => {
    // sent again, its layout argument is prefixed with `r` (lib/engine/run.ts
    // runRequest, lua/command.ts Resend): only then does create.lua look for
    // the answer kept
    const q = queue();
    const eon = q.engine('eon');
    const context = engineContext(eon);
    const now = context.clock();
    const { stored } = prepareCreate({ meta: { n: 'a' } }, now);
    const args = argv('create_lean', {
      now_ms: now.getTime(),
      task: '',
      record: encodeStored(stored),
      ...splitRequest('me:0:7'),
      layout: layoutVersion,
    });
    const id = await run(context, 'create', args);
    const before = await queueContents(q.redis, q.prefix);
    const again = argv('create_lean', {
      now_ms: now.getTime(),
      task: '',
      record: encodeStored(stored),
      ...splitRequest('me:0:7'),
      layout: `r${layoutVersion}`,
    });
    expect(await run(context, 'create', again)).toBe(id);
    expect(await queueContents(q.redis, q.prefix)).toEqual(before);
    expect(await q.redis.zrange(q.key.ready, 0, -1)).toEqual([id]);
  });

  it('is taken only by plain tasks (leanCreatable)', () => {
    const now = new Date('2023-10-20T00:00:01Z');
    const creatable = (task: Task) => {
      const { stored, args } = prepareCreate(structuredClone(task), now);
      return leanCreatable(stored, args);
    };
    expect(plainTasks.map(creatable)).toEqual(plainTasks.map(() => true));
    expect(creatable({ meta: { n: 'a' }, cron: { [Label.Exact]: '2023-10-20T01:00:00Z' } })).toBe(
      false,
    );
    expect(creatable({ meta: { n: 'a' }, cron: { [Label.Every]: 'hour' } })).toBe(false);
    expect(creatable({ meta: { n: 'a' }, root: { k: 'v' } })).toBe(false);
    expect(creatable({ meta: { n: 'a' }, gate: { g: 'waiting' } })).toBe(false);
    expect(creatable({ meta: { n: 'a' }, node: { [Label.Method]: Method.All } })).toBe(false);
    expect(
      creatable({ meta: { n: 'a' }, node: { [Label.Method]: Method.Uni, [Label.Worker]: 'w' } }),
    ).toBe(false);
  });
});

describe('create: the lean wake-up of one parked slot (include/wake-one.lua)', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const script = assembleScript(
    'wake-one-probe',
    readFileSync(new URL('../lua/wake-one-probe.lua', import.meta.url), 'utf8'),
  );
  /** wakeOne runs wake_one on the queue: true when it woke (or found nothing to wake) itself. */
  const wakeOne = async (q: TestQueue) =>
    (await q.redis.eval(script.source, 1, q.key.tasks, String(q.clock().getTime()))) === 1;

  it('wakes a slot parked under no filter when nobody owns a task', async () => {
    const q = queue();
    await searchFor(q.engine('eon'), filterList([]), [], { slot: 's1', forMs: 60_000 });
    expect(await wakeOne(q)).toBe(true);
    expect(await q.redis.exists(q.key['parked-slots'], q.key.parked, q.key['parked-workers'])).toBe(
      0,
    );
    expect(await wakeOne(q)).toBe(true); // none left: nothing to wake, nothing written
  });

  it('leaves the wake-up to finish, having written nothing, for every other case', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { n: 'owned' } });
    expect(await q.engine('ada').search()).toBeDefined();
    await searchFor(eon, filterList([]), [], { slot: 's1', forMs: 60_000 });
    const before = await queueContents(q.redis, q.prefix);
    expect(await wakeOne(q)).toBe(false); // a worker owns a task: the share gate counts
    expect(await queueContents(q.redis, q.prefix)).toEqual(before);

    const p = queue();
    await searchFor(p.engine('eon'), filterList([]), [], { slot: 's1', forMs: 1_000 });
    p.clock.advance(5_000);
    expect(await wakeOne(p)).toBe(false); // past its deadline: finish drops it
    await p.engine('eon').pause();
    p.clock.set('2023-10-20T00:00:01Z');
    expect(await wakeOne(p)).toBe(false); // paused

    const f = queue();
    await searchFor(f.engine('eon'), filterList([{ meta: { n: 'c' } }]), [], {
      slot: 's1',
      forMs: 60_000,
    });
    await searchFor(f.engine('ada'), filterList([]), [], { slot: 's2', forMs: 60_000 });
    await f.redis.hset(f.key['parked-slots'], 'ada\0s2', 'changed');
    expect(await wakeOne(f)).toBe(false); // `parked-slots` says another parking
  });
});
