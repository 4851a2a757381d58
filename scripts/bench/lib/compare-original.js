// An emulation of one claim in the Go original: a global lock, the whole
// queue read from one sorted set of JSON tasks, every member parsed, the first
// unowned one rewritten. No index: each claim costs O(depth).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Label } from '../../../dist/index.js';

const lockMs = 10_000;
const expiryMs = 30_000;
const chunk = 1_000;
// Compare-and-delete: release the lock only while it is still ours.
const release = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * openOriginal returns a queue in the original's layout under `prefix`:
 * `fill(count)` adds tasks, `claim()` claims one, `close()` disconnects.
 */
export function openOriginal(url, prefix) {
  const redis = new Redis(url);
  const keys = { tasks: `${prefix}:tasks`, lock: `${prefix}:lock` };
  const worker = randomUUID();
  return {
    fill: (count) => fill(redis, keys, count),
    claim: () => claim(redis, keys, worker),
    close: () => redis.quit(),
  };
}

/** fill adds `count` tasks; the score is the object id, as in the original. */
async function fill(redis, keys, count) {
  const base = BigInt(Date.now()) * 1_000_000n; // object ids were unix nanoseconds
  for (let from = 0; from < count; from += chunk) {
    const members = [];
    for (let index = from; index < Math.min(count, from + chunk); index++) {
      const id = String(base + BigInt(index));
      const task = { core: { [Label.Object]: id }, meta: { n: String(index) } };
      members.push(id, JSON.stringify(task));
    }
    await redis.zadd(keys.tasks, ...members);
  }
}

/** claim takes the first unowned task under the global lock; throws when there is none. */
async function claim(redis, keys, worker) {
  const token = randomUUID();
  while ((await redis.set(keys.lock, token, 'PX', lockMs, 'NX')) === null) await pause(1);
  try {
    const reply = await redis.zrange(keys.tasks, 0, -1, 'WITHSCORES');
    const tasks = [];
    for (let index = 0; index < reply.length; index += 2) {
      tasks.push({ member: reply[index], score: reply[index + 1], task: JSON.parse(reply[index]) });
    }
    const free = tasks.find(({ task }) => task.core[Label.Worker] === undefined);
    if (free === undefined) throw new Error('the queue ran dry during the benchmark');
    const owned = {
      ...free.task,
      core: {
        ...free.task.core,
        [Label.Worker]: worker,
        [Label.Expiry]: new Date(Date.now() + expiryMs).toISOString(),
      },
    };
    await redis.zrem(keys.tasks, free.member);
    await redis.zadd(keys.tasks, free.score, JSON.stringify(owned));
  } finally {
    await redis.eval(release, 1, keys.lock, token);
  }
}
