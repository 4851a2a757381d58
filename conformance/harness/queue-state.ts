import type { RedisClient } from '../../lib/engine/connection.js';
import { featureKeys } from '../../lib/engine/keys.js';
import { scanKeys } from './redis.js';

/**
 * dumpQueue returns every key of a queue with the bytes of its DUMP, so two
 * dumps are equal exactly when the queue's keys are byte-identical.
 */
export async function dumpQueue(
  redis: RedisClient,
  prefix: string,
): Promise<Record<string, string>> {
  const keys = await scanKeys(redis, prefix);
  const state: Record<string, string> = {};
  for (const key of keys.sort()) {
    const dump = (await redis.dumpBuffer(key)) as Buffer | null; // null when the key vanished
    if (dump !== null) state[key] = dump.toString('base64');
  }
  return state;
}

/**
 * expectUnchanged runs an action that must write nothing and checks the
 * queue's keys are byte-identical before and after.
 */
export async function expectUnchanged(
  redis: RedisClient,
  prefix: string,
  action: () => Promise<void>,
): Promise<void> {
  const before = await dumpQueue(redis, prefix);
  await action();
  const after = await dumpQueue(redis, prefix);
  expect(after).toEqual(before);
}

/**
 * queueContents reads every key of a queue as data, by the key's name after
 * the prefix: hashes as objects (JSON values parsed, so the order of a
 * record's properties does not matter), sorted sets as [member, score] pairs,
 * lists, strings, and streams as their entries' fields (without the entry
 * ids, which carry the time of writing). `skip` names keys left out.
 *
 * `features` (include/features.lua) is read as the fields of keys that exist:
 * a field may outlive its key, and whether a path cleared such a field yet is
 * no difference of state. A key of `featureKeys` that exists without its
 * field fails the read: that would be a queue the lean paths misread.
 */
export async function queueContents(
  redis: RedisClient,
  prefix: string,
  skip: readonly string[] = [],
): Promise<Record<string, unknown>> {
  const contents: Record<string, unknown> = {};
  const keys = (await scanKeys(redis, prefix)).sort();
  const present = new Set(keys.map((key) => key.slice(prefix.length + 1)));
  const used = await redis.hgetall(`${prefix}:features`);
  const unmarked = featureKeys.filter((name) => present.has(name) && used[name] === undefined);
  if (unmarked.length > 0)
    throw new Error(`queueContents: keys without their features field: ${unmarked.join(', ')}`);
  for (const key of keys) {
    const name = key.slice(prefix.length + 1);
    if (skip.includes(name)) continue;
    if (name === 'features') {
      const live = Object.keys(used)
        .filter((field) => present.has(field))
        .sort();
      if (live.length > 0) contents[name] = Object.fromEntries(live.map((field) => [field, 1]));
      continue;
    }
    const type = await redis.type(key);
    if (type === 'hash') {
      const fields = await redis.hgetall(key);
      contents[name] = Object.fromEntries(
        Object.entries(fields).map(([field, value]) => [field, parsed(value)]),
      );
    } else if (type === 'zset') {
      const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
      const pairs: [string, string][] = [];
      for (let index = 0; index < flat.length; index += 2) {
        pairs.push([flat[index] ?? '', flat[index + 1] ?? '']);
      }
      contents[name] = pairs;
    } else if (type === 'list') {
      contents[name] = await redis.lrange(key, 0, -1);
    } else if (type === 'stream') {
      const entries = (await redis.xrange(key, '-', '+')) as [string, string[]][];
      contents[name] = entries.map(([, fields]) => fields);
    } else if (type === 'string') {
      contents[name] = await redis.get(key);
    }
  }
  return contents;
}

function parsed(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
