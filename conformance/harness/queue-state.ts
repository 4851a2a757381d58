import type { RedisClient } from '../../lib/engine/connection.js';
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
