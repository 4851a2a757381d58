import { randomUUID } from 'node:crypto';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { longestTimerMs, systemClock, type Clock } from '../clock.js';
import { requireFinite, requireFunction, requireInteger, type Bounds } from '../options.js';
import { describe, reason } from '../task/describe.js';
import { isExactKey } from '../task/pattern.js';
import { limits } from '../task/limits.js';
import { readRetryPolicy, type ResolvedRetryPolicy, type RetryPolicy } from './retry-policy.js';

/** EngineOptions configures an Engine; every option has a default. */
export interface EngineOptions {
  /**
   * The Redis to use: a `redis://` URL, ioredis options, or a client (Redis or
   * Cluster) the caller owns and closes itself.
   * @defaultValue process.env.REDIS_URL, else `redis://127.0.0.1:6379`
   */
  redis?: string | RedisOptions | Redis | Cluster;
  /**
   * The queue's name; engines on different queues never see each other's
   * tasks. Well-formed, at most 1,024 bytes, without `}` (it is the Redis
   * Cluster hash tag of the queue's keys).
   * @defaultValue `'default'`
   */
  queue?: string;
  /**
   * This process's worker id, written as the owner of the tasks it claims.
   * Well-formed, at most 65,536 bytes (a label value).
   * @defaultValue a random UUID v4
   */
  worker?: string;
  /**
   * The ownership lease in ms: how long a claim (or an extend) lasts; at most
   * 2,147,483,647 (the longest a Node.js timer waits).
   * @defaultValue 30 000
   */
  expiry?: number;
  /**
   * Retention of tasks without a cron map that are not gate templates, in ms;
   * at most 100 years.
   * @defaultValue 604 800 000 (7 days)
   */
  cleanup?: number;
  /**
   * Retention of halted tasks (dead letters: the circuit breaker holds
   * them) without a cron map that are not gate templates, in ms from when
   * they halted, at most 100 years: `expire` removes one once it halted
   * longer ago, whenever it was created (the outcome its halt recorded
   * stays for `failedOutcomeRetention`); `cleanup` does not apply to them.
   * @defaultValue cleanup
   */
  haltedRetention?: number;
  /**
   * How long the outcome of a task this engine completes (or halts, or
   * cancels) is kept for `status` and `wait`, in ms; 0 keeps none (waiters
   * that listen when it comes still hear it). At most 100 years.
   * @defaultValue 3 600 000 (1 hour)
   */
  outcomeRetention?: number;
  /**
   * How long the outcome of a task the circuit breaker halts (`failed` or
   * `timeout`: its last attempt's error, stack and log) is kept, in ms,
   * apart from the other outcomes; 0 keeps none. At most 100 years.
   * @defaultValue outcomeRetention
   */
  failedOutcomeRetention?: number;
  /**
   * How many outcome records the queue keeps at most: writing one beyond it
   * drops those closest to their end. A positive integer, at most 10,000,000.
   * @defaultValue 10 000
   */
  outcomeLimit?: number;
  /**
   * The only source of time; every operation reads it once.
   * @defaultValue the system clock (`systemClock` of lib/clock.ts)
   */
  clock?: () => Date;
  /**
   * How far apart the clocks of the queue's engines may be, in ms: `expire`
   * revokes a lease only once it ended this long ago by its own clock, so an
   * engine whose clock runs ahead does not take a task from an owner whose
   * clock runs behind while that owner still works on it. A non-negative
   * integer, at most 2,147,483,647.
   * @defaultValue 0
   */
  clockSkew?: number;
  /**
   * How long, in ms, one step of a script that walks the queue (a search past
   * tasks it cannot take, a filter's pool filling, obsolete leaves, a page of
   * a listing, a worker's folded completions) may run before it stops and the
   * engine runs the next step:
   * Redis runs nothing else while a script runs, and at 1M tasks a record
   * read costs several times what it costs at 1k. Each step also has a count
   * limit; 0 leaves the count alone. Between 0 and 1,000, fractions allowed.
   * @defaultValue 2
   */
  stepTime?: number;
  /**
   * Meta keys this engine's `exists`, `lister` and `tasks()` look up by an
   * exact value: the queue lists its tasks under each value of these keys (a
   * zset entry a task and key, kept by every write from then on), so a query
   * that asks an exact value of one reads the tasks that hold it instead of
   * every record (`tasks()`: where they are fewer than its state's). The
   * engine's first `exists`, `lister` or `tasks()` lists the tasks stored
   * before, in bounded steps. The queue keeps the listing once any engine
   * asked for it, for every engine. Exact keys (no `*` at either end), at
   * most 64.
   * @defaultValue none
   */
  metaIndexes?: readonly string[];
  /**
   * When a write counts as done. `'primary'`: when the Redis it was sent to
   * made it (asynchronous replication: a failover may lose what the replica
   * had not received yet). `'replica'`: each call that writes (every script
   * that changes the queue: create, delete, cancel, a claim, extend, ...)
   * also waits, with `WAIT 1 <durabilityTimeout>` on the same connection
   * (on a Cluster, the shard of the queue's slot), until at least one replica
   * has taken it, and rejects with ReplicaTimeoutError when none did in
   * time. One more round trip per write; reads are not affected.
   * @defaultValue `'primary'`
   */
  durability?: Durability;
  /**
   * With `durability: 'replica'`, how long a write waits for a replica, in
   * ms: a positive integer, at most 60,000.
   * @defaultValue 1 000
   */
  durabilityTimeout?: number;
  /**
   * How long, in ms, a call waits for a Redis it cannot reach: once the
   * connection has been down (or never came up) for this long while a call
   * waited, the call rejects with RedisUnavailableError, and the commands
   * not sent yet are given up with it (they never run). A worker reports it
   * and tries again. A positive integer, at most 2,147,483,647.
   * @defaultValue 5 000
   */
  connectTimeout?: number;
  /**
   * The retry policy of the handlers of this engine's Workers that have none
   * of their own, when the Worker has no `retry` option either (see
   * RetryPolicy): what happens when a handler's ensure rejects. A task's
   * core `retry` label wins over all three. None: a failed task waits for
   * its lease to end, as in the Go original.
   */
  retry?: RetryPolicy;
}

/** Durability: when a write counts as done (the `durability` option). */
export type Durability = 'primary' | 'replica';

/** The settings of `durability`: what the constructor checks a given value against. */
const durabilities: readonly unknown[] = ['primary', 'replica'] satisfies Durability[];

/** engineDefaults holds the default of each option that has a constant one. */
export const engineDefaults = {
  queue: 'default',
  expiry: 30_000,
  cleanup: 7 * 24 * 60 * 60 * 1000,
  clockSkew: 0,
  stepTime: 2,
  outcomeRetention: 60 * 60 * 1000,
  outcomeLimit: 10_000,
  durability: 'primary',
  durabilityTimeout: 1_000,
  connectTimeout: 5_000,
  redisUrl: 'redis://127.0.0.1:6379',
} as const;

/** The longest step a script may take (stepTime): a second already stalls every client of the Redis. */
const maxStepTimeMs = 1000;

/** ResolvedEngineOptions are the options with every default applied. */
export interface ResolvedEngineOptions {
  readonly redis: string | RedisOptions | Redis | Cluster;
  readonly queue: string;
  readonly worker: string;
  readonly expiry: number;
  readonly cleanup: number;
  readonly haltedRetention: number;
  readonly outcomeRetention: number;
  readonly failedOutcomeRetention: number;
  readonly outcomeLimit: number;
  readonly clock: Clock;
  readonly clockSkew: number;
  readonly stepTime: number;
  readonly metaIndexes: readonly string[];
  readonly durability: Durability;
  readonly durabilityTimeout: number;
  readonly connectTimeout: number;
  readonly retry: ResolvedRetryPolicy | undefined;
}

/** The longest durabilityTimeout: a write that waits longer for a replica has no replica to wait for. */
const maxDurabilityTimeoutMs = 60_000;

/**
 * resolveEngineOptions applies the defaults and checks the options; `null`
 * or `undefined` means all defaults. `queue` and `worker` must be non-empty,
 * well-formed strings (they are written to Redis as UTF-8, where a lone
 * surrogate would become U+FFFD and two ids could collide): the queue at most
 * `limits.keyBytes` bytes and without `}`, the worker at most
 * `limits.valueBytes` bytes (it is a label value). `expiry` and `cleanup` must
 * be positive integers up to maxDurationMs, `haltedRetention` an
 * integer from 0 up to maxDurationMs.cleanup, `clock` a function and
 * `clockSkew` a non-negative integer up to the longest expiry, `stepTime` a
 * number from 0 to 1,000, `metaIndexes` an array of exact label keys,
 * `durability` `'primary'` or `'replica'`, `durabilityTimeout` a positive
 * integer up to 60,000, `connectTimeout` a positive integer up to the
 * longest expiry. Otherwise it throws a TypeError naming the option, or a
 * RangeError when a number of the right kind is beyond its bound
 * (lib/options.ts). It reads REDIS_URL when it runs, never at import.
 */
export function resolveEngineOptions(options?: EngineOptions | null): ResolvedEngineOptions {
  const given = readOptions(options);
  const queue = given.queue ?? engineDefaults.queue;
  const worker = given.worker ?? randomUUID();
  const expiry = given.expiry ?? engineDefaults.expiry;
  const cleanup = given.cleanup ?? engineDefaults.cleanup;
  const haltedRetention = given.haltedRetention ?? cleanup;
  const clock = given.clock ?? systemClock;
  const clockSkew = given.clockSkew ?? engineDefaults.clockSkew;
  const outcomeRetention = given.outcomeRetention ?? engineDefaults.outcomeRetention;
  const failedOutcomeRetention = given.failedOutcomeRetention ?? outcomeRetention;
  const outcomeLimit = given.outcomeLimit ?? engineDefaults.outcomeLimit;
  const stepTime = given.stepTime ?? engineDefaults.stepTime;
  const metaIndexes = readMetaIndexes(given.metaIndexes ?? []);
  const durability = given.durability ?? engineDefaults.durability;
  const durabilityTimeout = given.durabilityTimeout ?? engineDefaults.durabilityTimeout;
  const connectTimeout = given.connectTimeout ?? engineDefaults.connectTimeout;
  const retry = readRetryPolicy(given.retry, 'Engine option "retry"');
  requireName('queue', queue, limits.keyBytes);
  // `{<queue>}` is the Redis Cluster hash tag of the queue's keys: a `}` would
  // end it early, and a leading one would leave it empty (keys in many slots)
  if (queue.includes('}')) {
    throw new TypeError(
      `Engine option "queue" must not contain "}": it would end the Redis Cluster hash tag {<queue>} of the queue's keys; got ${describe(queue)}`,
    );
  }
  requireName('worker', worker, limits.valueBytes);
  const ms = (least: number, most: number): Bounds => ({ least, most, unit: ' ms' });
  requireInteger(option('expiry'), expiry, ms(1, maxDurationMs.expiry));
  requireInteger(option('cleanup'), cleanup, ms(1, maxDurationMs.cleanup));
  requireInteger(option('haltedRetention'), haltedRetention, ms(0, maxDurationMs.cleanup));
  requireInteger(option('connectTimeout'), connectTimeout, ms(1, maxDurationMs.expiry));
  requireInteger(option('outcomeRetention'), outcomeRetention, ms(0, maxDurationMs.cleanup));
  requireInteger(
    option('failedOutcomeRetention'),
    failedOutcomeRetention,
    ms(0, maxDurationMs.cleanup),
  );
  requireInteger(option('outcomeLimit'), outcomeLimit, { least: 1, most: maxOutcomeLimit });
  requireFunction(option('clock'), clock);
  requireInteger(option('clockSkew'), clockSkew, ms(0, maxDurationMs.expiry));
  requireFinite(option('stepTime'), stepTime, ms(0, maxStepTimeMs));
  if (!durabilities.includes(durability)) {
    throw new TypeError(
      `Engine option "durability" must be 'primary' or 'replica'; got ${describe(durability)}`,
    );
  }
  requireInteger(option('durabilityTimeout'), durabilityTimeout, ms(1, maxDurabilityTimeoutMs));
  const envUrl = process.env['REDIS_URL'];
  const redis =
    given.redis ?? (envUrl !== undefined && envUrl !== '' ? envUrl : engineDefaults.redisUrl);
  return Object.freeze({
    redis,
    queue,
    worker,
    expiry,
    cleanup,
    haltedRetention,
    outcomeRetention,
    failedOutcomeRetention,
    outcomeLimit,
    clock,
    clockSkew,
    stepTime,
    metaIndexes,
    durability,
    durabilityTimeout,
    connectTimeout,
    retry,
  });
}

/** readOptions reads each option once, into an object of ours. */
function readOptions(options: unknown): EngineOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') {
    throw new TypeError(`Engine options must be an object; got ${describe(options)}`);
  }
  try {
    const source = options as Record<string, unknown>;
    const names = [
      'redis',
      'queue',
      'worker',
      'expiry',
      'cleanup',
      'haltedRetention',
      'outcomeRetention',
      'failedOutcomeRetention',
      'outcomeLimit',
      'clock',
      'clockSkew',
      'stepTime',
      'metaIndexes',
      'durability',
      'durabilityTimeout',
      'connectTimeout',
      'retry',
    ] as const;
    return Object.fromEntries(names.map((name) => [name, source[name]]));
  } catch (error) {
    throw new TypeError(`Engine options cannot be read: ${reason(error)}`);
  }
}

function requireName(name: string, value: unknown, maxBytes: number): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `Engine option "${name}" must be a non-empty string; got ${describe(value)}`,
    );
  }
  if (!value.isWellFormed()) {
    throw new TypeError(
      `Engine option "${name}" holds a lone UTF-16 surrogate, which Redis would store as U+FFFD; got ${describe(value)}`,
    );
  }
  const bytes = Buffer.byteLength(value);
  if (bytes > maxBytes) {
    throw new TypeError(
      `Engine option "${name}" is ${bytes} bytes long; the limit is ${maxBytes} bytes`,
    );
  }
}

/**
 * The longest lease and retention, in ms. A lease is timed by the worker
 * runtime with Node.js timers (longestTimerMs). A retention of up to 100
 * years keeps every instant the engine writes within what `formatTime`
 * writes.
 */
export const maxDurationMs = { expiry: longestTimerMs, cleanup: 3_155_760_000_000 } as const;

/** option names an engine option in messages. */
function option(name: string): string {
  return `Engine option "${name}"`;
}

/** The default lease margin: a tenth of the expiry, at most a second (engine ms). */
const leaseMarginMostMs = 1_000;

/**
 * defaultLeaseMarginMs is how long before its lease end a worker stops a
 * handler unless told otherwise (the Worker option `leaseMargin`): a margin
 * for late replies and clock skew.
 */
export function defaultLeaseMarginMs(expiryMs: number): number {
  return Math.min(leaseMarginMostMs, Math.floor(expiryMs / 10));
}

/** The most outcome records a queue may be asked to keep. */
const maxOutcomeLimit = 10_000_000;

/** The most meta keys one engine may ask the queue to list (each costs every write that has it). */
const maxMetaIndexes = 64;

/**
 * readMetaIndexes checks the metaIndexes option: an array of at most
 * maxMetaIndexes well-formed label keys without a `*` at either end (a
 * pattern names no one key to list by); returns them once each, frozen.
 */
function readMetaIndexes(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length > maxMetaIndexes) {
    throw new TypeError(
      `Engine option "metaIndexes" must be an array of at most ${maxMetaIndexes} meta keys; got ${describe(value)}`,
    );
  }
  const keys = new Set<string>();
  for (const key of value as unknown[]) {
    requireName('metaIndexes', key, limits.keyBytes);
    if (!isExactKey(key)) {
      throw new TypeError(
        `Engine option "metaIndexes" names meta keys, not patterns: ${describe(key)} starts or ends with "*"`,
      );
    }
    keys.add(key);
  }
  return Object.freeze([...keys]);
}
