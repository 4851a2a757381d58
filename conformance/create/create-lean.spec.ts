import type { Engine } from '../../lib/engine/engine.js';
import { leanCreatable, prepareCreate, splitRequest } from '../../lib/engine/create.js';
import { layoutVersion } from '../../lib/engine/keys.js';
import { run, runRequest } from '../../lib/engine/run.js';
import { argv } from '../../lib/engine/lua/arguments.js';
import { engineContext, filterList, searchFor } from '../../lib/engine/runtime.js';
import { encodeStored } from '../../lib/task/codec.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { queueContents } from '../harness/queue-state.js';
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
    return { a, b, eonA };
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
