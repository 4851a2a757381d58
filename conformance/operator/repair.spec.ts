import type { RedisClient } from '../../lib/engine/connection.js';
import type { KeyName } from '../../lib/engine/keys.js';
import { QueueLayoutError } from '../../lib/errors.js';
import { layoutVersion } from '../../lib/engine/keys.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// engine.repair() rebuilds a queue's indexes from its records, a batch at a
// time: the same indexes the operations built, for a queue whose indexes
// something else broke, and the way to move a queue of an older layout.

const queue = useQueue('2023-10-20T00:00:00Z');
const everything: Task = { meta: { '*': '*' } };

/** The indexes repair rebuilds as the operations left them (ticker-check and the kept answers aside). */
const indexes: KeyName[] = [
  'ready',
  'ready-cron',
  'ready-uni',
  'targets',
  'waiting',
  'due',
  'leases',
  'owned',
  'owners',
  'owner-order',
  'broadcast',
  'halted',
  'retention',
  'templates',
  'children',
  'gates',
  'gate-templates',
  'roots',
  'root-leaves',
  'root-anchors',
  'wild-roots',
  'witnesses',
  'obsolete-groups',
  'watched',
  'meta-tasks',
];

async function read(redis: RedisClient, key: string): Promise<unknown> {
  const type = await redis.type(key);
  if (type === 'zset') return redis.zrange(key, 0, -1, 'WITHSCORES');
  if (type === 'hash') return redis.hgetall(key);
  if (type === 'none') return null;
  return redis.get(key);
}

async function snapshot(q: TestQueue): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const name of indexes) state[name] = await read(q.redis, q.key[name]);
  // an owner's claim time (`<id>:<since>:<worker>`): repair cannot know it (status says so)
  const owned = (state['owned'] ?? []) as string[];
  state['owned'] = owned.map((entry) => entry.replace(/^([^:]*):\d*:/, '$1::'));
  // a root's JSON: the same labels, in whatever order cjson wrote them
  const roots = (state['roots'] ?? {}) as Record<string, string>;
  state['roots'] = Object.fromEntries(
    Object.entries(roots).map(([gid, json]) => [gid, JSON.parse(json) as unknown]),
  );
  return state;
}

/** fill stores one task of every kind and puts them in their states. */
async function fill(q: TestQueue): Promise<void> {
  const eon = q.engine('eon');
  const etw = q.engine('etw');
  await eon.create({ meta: { kind: 'plain' } });
  await eon.create({ meta: { kind: 'owned' } });
  await eon.search({ meta: { kind: 'owned' } });
  await eon.create({ meta: { kind: 'exact' }, cron: { [Label.Exact]: '2023-10-20T02:00:00Z' } });
  await eon.create({ meta: { kind: 'due' }, cron: { [Label.Exact]: '2023-10-20T00:00:01Z' } });
  await eon.create({ meta: { kind: 'template' }, cron: { [Label.Every]: 'hour' } });
  await eon.create({ meta: { kind: 'gate' }, gate: { g: 'waiting' } });
  await eon.create({ meta: { kind: 'trigger' }, gate: { g: 'trigger' } });
  await eon.create({ meta: { kind: 'broadcast' }, node: { [Label.Method]: Method.All } });
  await eon.create({
    meta: { kind: 'unicast' },
    node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
  });
  await eon.create({ meta: { kind: 'leaf' }, root: { job: 'x', v: '1' } });
  await eon.create({ meta: { kind: 'leaf-wild' }, root: { 'j*': 'y' } });
  await eon.create({ meta: { kind: 'halted' }, core: { [Label.Cancel]: '1' } });
  await etw.search({ meta: { kind: 'halted' } });
  q.clock.advance(31_000);
  await etw.expire(); // the halted one halts; the owned one is revoked (eon claims it again below)
  await eon.search({ meta: { kind: 'owned' } });
  await eon.search({ meta: { kind: 'due' } });
  await eon.create({ meta: { kind: 'deferred' } });
  const deferred = await etw.search({ meta: { kind: 'deferred' } });
  await etw.delete({ ...deferred, cron: { [Label.Defer]: 'hour' } });
  q.clock.set('2023-10-20T01:00:00.5Z');
  await eon.ticker(); // a child of the template
}

describe('engine.repair', () => {
  it('rebuilds the indexes the operations built, from the records alone', async () => {
    const q = queue();
    await fill(q);
    const before = await snapshot(q);
    const listed = await q.engine('eon').lister(everything);
    // something broke every index
    const keys = (await q.keys()).filter((key) => !/:(tasks|sequence|claims|layout)$/.test(key));
    await q.redis.del(...keys);
    expect(await q.engine('eon').search()).toBeUndefined();

    const report = await q.engine('eon').repair();
    expect(report.tasks).toBe(listed.length);
    expect(report.skipped).toBe(0);
    expect(await snapshot(q)).toEqual(before);
    expect(await q.engine('eon').lister(everything)).toEqual(listed);
  });

  it('moves a queue of another layout version to this one', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'a' } });
    await q.redis.set(q.key.layout, '1');
    const old = q.engine('etw');
    await expect(old.search()).rejects.toBeInstanceOf(QueueLayoutError);
    const fresh = q.engine('eth');
    await fresh.repair();
    expect((await fresh.search())?.meta).toEqual({ k: 'a' });
    expect(await q.redis.get(q.key.layout)).toBe(layoutVersion);
  });

  it('moves a queue of layout 3 (`holders`, owned tasks in `retention`) to one index of owned tasks', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'a' } });
    await eon.create({ meta: { k: 'b' } });
    const owned = await eon.search({ meta: { k: 'a' } });
    const id = owned?.core?.[Label.Object] ?? '';
    // the keys layout 3 wrote for the owned task: a `holders` field, a `retention` entry
    const [member] = await q.redis.zrange(q.key.owned, 0, -1);
    const since = member?.split(':')[1] ?? '';
    await q.redis.del(q.key.owned);
    await q.redis.hset(`${q.prefix}:holders`, id, `${since}:eon`);
    await q.redis.zadd(q.key.retention, 0, id);
    await q.redis.set(q.key.layout, '3');
    await expect(q.engine('etw').search()).rejects.toThrow(/engine\.repair\(\)/);

    const fresh = q.engine('eth');
    expect(await fresh.repair()).toEqual({ tasks: 2, skipped: 0, steps: 3 });
    expect(await q.redis.get(q.key.layout)).toBe(layoutVersion);
    expect(await q.redis.exists(`${q.prefix}:holders`)).toBe(0);
    // as repair gives an owned task: its owner's count, no claim time (status says so)
    expect(await q.redis.zrange(q.key.owned, 0, -1)).toEqual([`${id}::eon`]);
    expect(await q.redis.hgetall(q.key.owners)).toEqual({ eon: '1' });
    expect(await q.redis.zrange(q.key.retention, 0, -1)).toEqual([]);
    const status = await fresh.status(id);
    expect(status).toMatchObject({ state: 'owned', worker: 'eon' });
    expect(status).not.toHaveProperty('since');
    // its owner completes it; the other task is claimed as before
    await q.engine('eon').delete(owned!);
    expect(await q.redis.exists(q.key.owned, q.key.owners)).toBe(0);
    expect((await fresh.search())?.meta).toEqual({ k: 'b' });
  });

  it('indexes a record something else changed as the record says', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ meta: { k: 'a' } });
    const id = task.core?.[Label.Object] ?? '';
    await q.redis.hset(
      q.key.tasks,
      id,
      JSON.stringify({
        core: { [Label.Worker]: 'gone', [Label.Expiry]: '2023-10-20T00:00:10Z' },
        meta: { k: 'a' },
      }),
    );
    await q.redis.hset(q.key.tasks, '1697760000000-000000000999', 'not a task');
    const report = await eon.repair();
    expect(report).toEqual({ tasks: 1, skipped: 1, steps: 3 });
    expect(await q.redis.hget(q.key.owners, 'gone')).toBe('1');
    expect(await q.redis.zscore(q.key.leases, id)).toBe(String(Date.parse('2023-10-20T00:00:10Z')));
    q.clock.set('2023-10-20T00:00:10Z');
    await eon.expire();
    expect((await eon.search())?.core?.[Label.Cycles]).toBe('1');
  });
});
