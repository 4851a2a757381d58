import { deleteThenSearch } from '../lib/engine/runtime.js';
import { noFilters } from '../lib/engine/filters.js';
import { Label } from '../lib/task/label.js';
import type { Task } from '../lib/task/task.js';
import { replyDropper, type ReplyDropper } from './harness/proxy.js';
import { redisUrl, useQueue } from './harness/queue.js';

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

describe('a write whose reply was lost', () => {
  it('create: stores one task, and answers with it', async () => {
    const q = queue();
    const eon = q.engine('eon', { redis: proxy.url });
    await eon.create({ meta: { k: 'warm-up' } }); // connected, scripts loaded
    proxy.dropNextReply();
    const created = await eon.create({ meta: { k: 'once' } });
    expect(proxy.dropped).toBe(1);
    const stored = await q.engine('aux').lister({ meta: { k: 'once' } });
    expect(stored.map((task) => task.core?.[Label.Object])).toEqual([created.core?.[Label.Object]]);
  });

  it('search: claims one task, the one it answers with', async () => {
    const q = queue();
    const eon = q.engine('eon', { redis: proxy.url });
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
});
