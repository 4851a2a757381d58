import { claimTasks, deleteThenSearch } from '../../lib/engine/runtime.js';
import { noFilters } from '../../lib/engine/filters.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { replyDropper, type ReplyDropper } from '../harness/proxy.js';
import type { RedisOptions } from 'ioredis';
import type { Engine } from '../../lib/engine/engine.js';
import { redisUrl, useQueue, type TestQueue } from '../harness/queue.js';

// A write whose reply was lost is sent again by ioredis once it reconnected.
// Every state-changing script takes a request id and keeps its answer: the
// same request again answers the same and changes nothing. So a lost reply
// makes neither a second task nor a claim nobody knows of.

const queue = useQueue('2023-10-20T00:00:00Z');
const everything: Task = { meta: { '*': '*' } };
let proxy: ReplyDropper;

beforeEach(async () => {
  proxy = await replyDropper(redisUrl());
});
afterEach(async () => {
  await proxy.close();
});

/** throughProxy is an engine whose connection goes through the proxy, with these ioredis options. */
function throughProxy(q: TestQueue, options: RedisOptions = {}): Engine {
  const { port } = new URL(proxy.url);
  return q.engine('eon', { redis: { host: '127.0.0.1', port: Number(port), ...options } });
}

/** expectCreatedOnce: a create whose reply is lost stores one task, and answers with it. */
async function expectCreatedOnce(q: TestQueue, eon: Engine): Promise<void> {
  await eon.create({ meta: { k: 'warm-up' } }); // connected, scripts loaded
  proxy.dropNextReply();
  const created = await eon.create({ meta: { k: 'once' } });
  expect(proxy.dropped).toBe(1);
  const stored = await q.engine('aux').lister({ meta: { k: 'once' } });
  expect(stored.map((task) => task.core?.[Label.Object])).toEqual([created.core?.[Label.Object]]);
}

/**
 * expectCreatedManyOnce: a createMany chunk whose reply is lost stores its
 * tasks once, and answers with them: a chunk of plain tasks (the lean form)
 * and one with a task of the general path.
 */
async function expectCreatedManyOnce(q: TestQueue, eon: Engine): Promise<void> {
  await eon.createMany([{ meta: { k: 'warm-up' } }]); // connected, script loaded
  const chunks = [
    [{ meta: { k: 'a' } }, { meta: { k: 'b' } }],
    [{ meta: { k: 'c' } }, { meta: { k: 'd' }, cron: { [Label.Exact]: '2023-10-20T01:00:00Z' } }],
  ];
  for (const [sent, chunk] of chunks.entries()) {
    proxy.dropNextReply();
    const created = await eon.createMany(chunk);
    expect(proxy.dropped).toBe(sent + 1);
    const stored = await q.engine('aux').lister({ meta: { k: '*' } });
    const ids = (k: string) =>
      stored.filter((task) => task.meta?.['k'] === k).map((task) => task.core?.[Label.Object]);
    for (const [index, task] of chunk.entries())
      expect(ids(task.meta.k)).toEqual([created[index]?.core?.[Label.Object]]);
  }
}

/** expectClaimedOnce: a search whose reply is lost claims one task, the one it answers with. */
async function expectClaimedOnce(q: TestQueue, eon: Engine): Promise<void> {
  await eon.create({ meta: { k: 'a' } });
  await eon.create({ meta: { k: 'b' } });
  proxy.dropNextReply();
  const claimed = await eon.search();
  expect(proxy.dropped).toBe(1);
  const owned = (await q.engine('aux').lister(everything)).filter(
    (task) => task.core?.[Label.Worker] !== undefined,
  );
  expect(owned.map((task) => task.core?.[Label.Object])).toEqual([claimed?.core?.[Label.Object]]);
  await eon.delete(claimed!); // the copy it got is the current claim
}

/**
 * expectCompletedOnce: a worker's completion and claim of one entry (the
 * lean complete-claim call of concurrency 1) whose reply is lost completes
 * once and claims once, and answers the claim it made. The call is the
 * engine's second of the script, so its first send goes out as a first send
 * (include/request.lua sent_again) and only a send after it looks for the
 * kept answer.
 */
async function expectCompletedOnce(q: TestQueue, eon: Engine): Promise<void> {
  for (const k of ['a', 'b', 'c']) await eon.create({ meta: { k } });
  const slot = [{ slot: '0', forMs: 15_000 }];
  const [first] = await claimTasks(eon, noFilters, slot, []); // loads the script
  proxy.dropNextReply();
  const [outcome] = await deleteThenSearch(eon, [
    {
      task: (first?.deleted === true ? first.next : undefined)!,
      filters: noFilters,
      parking: slot[0],
    },
  ]);
  expect(proxy.dropped).toBe(1);
  expect(outcome?.deleted).toBe(true);
  const next = outcome?.deleted === true ? outcome.next : undefined;
  expect(next?.meta).toEqual({ k: 'b' });
  const left = await q.engine('aux').lister(everything);
  expect(left.map((task) => [task.meta?.['k'], task.core?.[Label.Worker]])).toEqual([
    ['b', 'eon'],
    ['c', undefined],
  ]);
  expect(await q.redis.hget(q.key.owners, 'eon')).toBe('1');
  await eon.delete(next!); // the copy it got is the current claim
}

describe('a write whose reply was lost', () => {
  it('create: stores one task, and answers with it', async () => {
    const q = queue();
    await expectCreatedOnce(q, q.engine('eon', { redis: proxy.url }));
  });

  it('createMany: stores each task of a chunk once, and answers with them', async () => {
    const q = queue();
    await expectCreatedManyOnce(q, q.engine('eon', { redis: proxy.url }));
  });

  it('search: claims one task, the one it answers with', async () => {
    const q = queue();
    await expectClaimedOnce(q, q.engine('eon', { redis: proxy.url }));
  });

  it('delete: succeeds, instead of reporting the task it deleted as not found', async () => {
    const q = queue();
    const eon = q.engine('eon', { redis: proxy.url });
    await eon.create({ meta: { k: 'a' } });
    const claimed = await eon.search();
    proxy.dropNextReply();
    await eon.delete(claimed!);
    expect(proxy.dropped).toBe(1);
    expect(await q.engine('aux').exists(everything)).toBe(false);
  });

  it('delete-search: completes and claims once, and answers as the first time', async () => {
    const q = queue();
    const eon = q.engine('eon', { redis: proxy.url });
    for (const k of ['a', 'b', 'c']) await eon.create({ meta: { k } });
    const claimed = await eon.search();
    proxy.dropNextReply();
    const [outcome] = await deleteThenSearch(eon, [{ task: claimed!, filters: noFilters }]);
    expect(proxy.dropped).toBe(1);
    expect(outcome?.deleted).toBe(true);
    const next = outcome?.deleted === true ? outcome.next : undefined;
    expect(next?.meta).toEqual({ k: 'b' });
    const left = await q.engine('aux').lister(everything);
    expect(left.map((task) => [task.meta?.['k'], task.core?.[Label.Worker]])).toEqual([
      ['b', 'eon'],
      ['c', undefined],
    ]);
  });

  it('complete-claim of one entry: completes and claims once, and answers the claim it made', async () => {
    const q = queue();
    await expectCompletedOnce(q, q.engine('eon', { redis: proxy.url }));
  });

  it('claims of a batch: claims each task once, and answers as the first time', async () => {
    const q = queue();
    const eon = q.engine('eon', { redis: proxy.url });
    await eon.create({ meta: { k: 'warm-up' } });
    const slots = [0, 1].map((slot) => ({ slot: String(slot), forMs: 15_000 }));
    // load the complete-claim script: the reply lost must be the call's
    const [warm] = await claimTasks(eon, noFilters, slots.slice(0, 1), []);
    await eon.delete((warm?.deleted === true ? warm.next : undefined)!);
    for (const k of ['a', 'b', 'c']) await eon.create({ meta: { k } });
    proxy.dropNextReply();
    const outcomes = await claimTasks(eon, noFilters, slots, []);
    expect(proxy.dropped).toBe(1);
    expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta)).toEqual([
      { k: 'a' },
      { k: 'b' },
    ]);
    const left = await q.engine('aux').lister(everything);
    expect(left.map((task) => [task.meta?.['k'], task.core?.[Label.Worker]])).toEqual([
      ['a', 'eon'],
      ['b', 'eon'],
      ['c', undefined],
    ]);
    expect(await q.redis.hget(q.key.owners, 'eon')).toBe('2');
  });

  it('delete-search cut by its step time: the entries it left come again, and each completes once', async () => {
    const q = queue();
    // 1 µs steps: each call completes its first entry and leaves the others
    const eon = q.engine('eon', { redis: proxy.url, stepTime: 0.001 });
    await eon.create({ meta: { k: 'warm-up' } });
    // load the delete-search script of this variant: the reply lost must be the call's
    await deleteThenSearch(eon, [{ task: (await eon.search())!, filters: noFilters }]);
    for (const k of ['a', 'b', 'c', 'd', 'e']) await eon.create({ meta: { k } });
    const first = await eon.search();
    const second = await eon.search();
    proxy.dropNextReply();
    const outcomes = await deleteThenSearch(eon, [
      { task: first!, filters: noFilters },
      { task: second!, filters: noFilters },
    ]);
    expect(proxy.dropped).toBe(1);
    expect(outcomes.map((outcome) => (outcome.deleted ? outcome.next?.meta : 'failed'))).toEqual([
      { k: 'c' },
      { k: 'd' },
    ]);
    const left = await q.engine('aux').lister(everything);
    expect(left.map((task) => [task.meta?.['k'], task.core?.[Label.Worker]])).toEqual([
      ['c', 'eon'],
      ['d', 'eon'],
      ['e', undefined],
    ]);
  });

  it('cycles: a reset sent again after another worker claimed the task leaves that claim alone', async () => {
    const q = queue();
    // reconnect only after 300 ms, so another worker claims in between
    const eon = throughProxy(q, { retryStrategy: () => 300 });
    const etw = q.engine('etw');
    const task = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'a' } });
    await etw.search();
    await etw.expire(); // not yet: nothing to revoke
    q.clock.set('2023-10-20T00:00:31Z');
    await etw.expire(); // revoked once: halted
    const [halted] = await etw.lister(everything);
    // load the cycles script on eon's connection: the reply lost must be the reset's
    const warmUp = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'warm-up' } });
    await eon.cycles(warmUp);
    await eon.delete({ ...warmUp, core: { ...warmUp.core, [Label.Bypass]: 'true' } });

    const dropped = proxy.whenDropped();
    proxy.dropNextReply();
    const reset = eon.cycles(halted!);
    await dropped;
    const claimed = await etw.search(); // the reset took effect before its reply was lost
    await reset;

    expect(claimed?.core?.[Label.Object]).toBe(task.core?.[Label.Object]);
    const [stored] = await etw.lister(everything);
    expect(stored?.core?.[Label.Worker]).toBe('etw');
    await etw.delete(claimed!); // the claim is still current
  });
});

describe('a write whose call failed for want of a connection', () => {
  // ioredis fails a command at once when its connection drops: the engine sends it again
  it('create: is sent again with the same request, stores one task and answers with it', async () => {
    const q = queue();
    await expectCreatedOnce(q, throughProxy(q, { maxRetriesPerRequest: 0 }));
  });

  it('createMany: is sent again with the same request, stores each task once and answers with them', async () => {
    const q = queue();
    await expectCreatedManyOnce(q, throughProxy(q, { maxRetriesPerRequest: 0 }));
  });

  it('search: answers with the claim it made, so nobody owns a task without knowing', async () => {
    const q = queue();
    await expectClaimedOnce(q, throughProxy(q, { maxRetriesPerRequest: 0 }));
  });

  it('complete-claim of one entry: is sent again as such, completes and claims once', async () => {
    const q = queue();
    await expectCompletedOnce(q, throughProxy(q, { maxRetriesPerRequest: 0 }));
  });
});
