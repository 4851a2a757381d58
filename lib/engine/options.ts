import { randomUUID } from 'node:crypto';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { systemClock, type Clock } from '../clock.js';

/** EngineOptions configures an Engine; every option has a default. */
export interface EngineOptions {
  /**
   * The Redis to use: a `redis://` URL, ioredis options, or a client (Redis or
   * Cluster) the caller owns and closes itself.
   * @defaultValue process.env.REDIS_URL, else `redis://127.0.0.1:6379`
   */
  redis?: string | RedisOptions | Redis | Cluster;
  /**
   * The queue's name; engines on different queues never see each other's tasks.
   * @defaultValue `'default'`
   */
  queue?: string;
  /**
   * This process's worker id, written as the owner of the tasks it claims.
   * @defaultValue a random UUID v4
   */
  worker?: string;
  /**
   * The ownership lease in ms: how long a claim (or an extend) lasts.
   * @defaultValue 30 000
   */
  expiry?: number;
  /**
   * Retention of tasks without a cron map that are not gate templates, in ms.
   * @defaultValue 604 800 000 (7 days)
   */
  cleanup?: number;
  /**
   * The only source of time; every operation reads it once.
   * @defaultValue the system clock (`systemClock` of lib/clock.ts)
   */
  clock?: () => Date;
}

/** engineDefaults holds the default of each option that has a constant one. */
export const engineDefaults = {
  queue: 'default',
  expiry: 30_000,
  cleanup: 7 * 24 * 60 * 60 * 1000,
  redisUrl: 'redis://127.0.0.1:6379',
} as const;

/** ResolvedEngineOptions are the options with every default applied. */
export interface ResolvedEngineOptions {
  readonly redis: string | RedisOptions | Redis | Cluster;
  readonly queue: string;
  readonly worker: string;
  readonly expiry: number;
  readonly cleanup: number;
  readonly clock: Clock;
}

/**
 * resolveEngineOptions applies the defaults and checks the options: `queue`
 * and `worker` must be non-empty strings, `expiry` and `cleanup` positive
 * integers, `clock` a function; otherwise it throws a TypeError naming the
 * option. It reads REDIS_URL when it runs, never at import.
 */
export function resolveEngineOptions(options: EngineOptions = {}): ResolvedEngineOptions {
  const queue = options.queue ?? engineDefaults.queue;
  const worker = options.worker ?? randomUUID();
  const expiry = options.expiry ?? engineDefaults.expiry;
  const cleanup = options.cleanup ?? engineDefaults.cleanup;
  const clock = options.clock ?? systemClock;
  requireName('queue', queue);
  requireName('worker', worker);
  requirePositiveInteger('expiry', expiry);
  requirePositiveInteger('cleanup', cleanup);
  if (typeof clock !== 'function')
    throw new TypeError('Engine option "clock" must be a function returning a Date');
  const envUrl = process.env['REDIS_URL'];
  const redis =
    options.redis ?? (envUrl !== undefined && envUrl !== '' ? envUrl : engineDefaults.redisUrl);
  return Object.freeze({ redis, queue, worker, expiry, cleanup, clock });
}

function requireName(name: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `Engine option "${name}" must be a non-empty string; got ${(JSON.stringify(value) as string | undefined) ?? String(value)}`,
    );
  }
}

function requirePositiveInteger(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(
      `Engine option "${name}" must be a positive integer number of ms; got ${String(value)}`,
    );
  }
}
