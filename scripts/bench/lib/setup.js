// Shared by the benchmarks: the embedded Redis, a raw client, machine facts.
import { execFileSync } from 'node:child_process';
import { cpus, release, setPriority, totalmem, type as osType } from 'node:os';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../../dist/testing/index.js';

/** startBench starts the embedded Redis (or uses REDIS_URL) and a raw client for INFO and cleanup. */
export async function startBench() {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  const info = await redis.info('server');
  const nice = reniceRedis(info);
  const realtime = realtimeRedis(info);
  const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  return {
    server,
    redis,
    facts: { ...machineFacts(redisVersion), nice, realtime },
    async usedMemory() {
      const memory = await redis.info('memory');
      return Number(/used_memory:(\d+)/.exec(memory)?.[1] ?? 0);
    },
    /** dropQueue deletes every key of a queue (never FLUSHALL: REDIS_URL may be shared). */
    async dropQueue(prefix) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${prefix.replace(/[?*[\]\\]/g, '\\$&')}:*`,
          'COUNT',
          1000,
        );
        if (keys.length > 0) await redis.del(...keys); // DEL, not UNLINK: memory figures must not see lazy frees
        cursor = next;
      } while (cursor !== '0');
    },
    /**
     * cloneQueue copies every key of one queue to another queue's names (COPY):
     * a deep queue filled once serves several measurements as if each had
     * filled its own.
     */
    async cloneQueue(fromPrefix, toPrefix) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${fromPrefix.replace(/[?*[\]\\]/g, '\\$&')}:*`,
          'COUNT',
          1000,
        );
        for (const key of keys) await redis.copy(key, toPrefix + key.slice(fromPrefix.length));
        cursor = next;
      } while (cursor !== '0');
    },
    async stop() {
      await redis.quit();
      await server.stop();
    },
  };
}

/**
 * reniceRedis gives the embedded Redis the priority BENCH_RENICE names (a
 * nice value; negative ones need root): on a machine other processes share,
 * Redis then loses its core less often in the middle of a script. Returns the
 * value set, or undefined.
 */
function reniceRedis(info) {
  const wanted = process.env.BENCH_RENICE;
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  if (wanted === undefined || wanted === '' || !pid) return undefined;
  try {
    setPriority(pid, Number(wanted));
    return Number(wanted);
  } catch (error) {
    console.warn(`BENCH_RENICE: could not renice Redis (${error.message})`);
    return undefined;
  }
}

/**
 * realtimeRedis runs the embedded Redis's main thread at the real-time
 * priority BENCH_REALTIME names (SCHED_FIFO, 1 to 98, as root: `chrt`): no
 * process of the machine then takes its core in the middle of a script, so
 * what a script took is its own work, or a stall of the host (the host-stall
 * meter runs one priority above it: host-stalls.js). Returns the priority
 * set, or undefined.
 */
function realtimeRedis(info) {
  const wanted = process.env.BENCH_REALTIME;
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  if (wanted === undefined || wanted === '' || !pid) return undefined;
  try {
    execFileSync('chrt', ['-f', '-p', String(Number(wanted)), String(pid)], { stdio: 'ignore' });
    return Number(wanted);
  } catch (error) {
    console.warn(`BENCH_REALTIME: could not give Redis a real-time priority (${error.message})`);
    return undefined;
  }
}

/** machineFacts describes where a measurement ran: date, machine, Node and Redis versions. */
export function machineFacts(redisVersion) {
  const facts = {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${osType()} ${release()}`,
    node: process.version,
    redis: redisVersion,
  };
  return {
    ...facts,
    line: `on ${facts.date}, ${facts.machine}, Node ${facts.node}, Redis ${facts.redis}`,
  };
}

/** inParallel runs `lanes` loops that each call `step(index)` until `count` steps are taken. */
export async function inParallel(lanes, count, step) {
  let next = 0;
  const lane = async () => {
    while (next < count) await step(next++);
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** rate times an async action doing `count` operations and returns operations per second. */
export async function rate(count, action) {
  const start = performance.now();
  await action();
  return count / ((performance.now() - start) / 1000);
}

/** timed returns how long an async action took, in ms. */
export async function timed(action) {
  const start = performance.now();
  await action();
  return performance.now() - start;
}
