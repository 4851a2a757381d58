import { formatRate, parseRate } from '../schedule/index.js';
import { describe } from '../task/describe.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { readControlKey } from './control-key.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';
import { followLanes } from './aside.js';

/**
 * RateLimit is a rate limit (docs/semantics.md §3.16): at most N claims in
 * each window for each value of the meta key `key`, or, without a key, in
 * the whole queue.
 */
export interface RateLimit {
  /** The meta key whose values are limited one by one; absent: the whole queue. */
  key?: string;
  /** The rate in the interval language: `'100 per minute'`, `'10 per second'`, `'5 per 10 seconds'`. */
  limit: string;
}

/** RateLimitState is a declared rate limit (engine.rateLimits()). */
export interface RateLimitState {
  /** The meta key; absent for the whole-queue limit. */
  key?: string;
  /** The rate, written back in the interval language (`'100 per minute'`). */
  limit: string;
  /** The most claims in one window. */
  claims: number;
  /** The window's length in milliseconds. */
  windowMs: number;
}

/** readRateLimit checks setRateLimit's argument; throws TypeError or TaskCronError. */
function readRateLimit(rate: unknown): { key: string; claims: number; windowMs: number } {
  if (typeof rate !== 'object' || rate === null || Array.isArray(rate)) {
    throw new TypeError(
      `setRateLimit: the limit must be an object { key?, limit }; got ${describe(rate)}`,
    );
  }
  for (const name of Object.keys(rate)) {
    if (name !== 'key' && name !== 'limit') {
      throw new TypeError(
        `setRateLimit: a rate limit has "key" and "limit" only; got ${describe(name)}`,
      );
    }
  }
  const { key, limit } = rate as { key?: unknown; limit?: unknown };
  const stored = readControlKey('setRateLimit', key);
  if (typeof limit !== 'string') {
    throw new TypeError(
      `setRateLimit: "limit" must be a rate such as "100 per minute"; got ${describe(limit)}`,
    );
  }
  const parsed = parseRate(limit);
  return { key: stored, claims: parsed.limit, windowMs: parsed.windowMs };
}

/** setRateLimit declares or changes a rate limit; resolves whether the limits changed. */
export async function setRateLimit(context: EngineContext, rate: RateLimit): Promise<boolean> {
  const { key, claims, windowMs } = readRateLimit(rate);
  assertOpen(context, 'setRateLimit');
  const now = readClock(context.clock);
  const answer = (await run(
    context,
    'rates',
    argv('rates', { now_ms: now.getTime(), operation: 'set', key, claims, window_ms: windowMs }),
  )) as number;
  return followLanes(context, answer, key);
}

/** removeRateLimit removes the limit of a meta key (none: the whole queue's); resolves whether there was one. */
export async function removeRateLimit(context: EngineContext, key?: string): Promise<boolean> {
  const stored = readControlKey('removeRateLimit', key);
  assertOpen(context, 'removeRateLimit');
  const now = readClock(context.clock);
  const answer = (await run(
    context,
    'rates',
    argv('rates', {
      now_ms: now.getTime(),
      operation: 'remove',
      key: stored,
      claims: '',
      window_ms: '',
    }),
  )) as number;
  return followLanes(context, answer, stored);
}

/** listRateLimits reads the declared rate limits, the whole queue's first, then by key. */
export async function listRateLimits(context: EngineContext): Promise<RateLimitState[]> {
  assertOpen(context, 'rateLimits');
  const flat = await context.reach.guard(context.connection.client.hgetall(context.keys.rates));
  const list = Object.entries(flat).map(([key, stored]): RateLimitState => {
    const [claims = 0, windowMs = 0] = stored.split(':').map(Number);
    const limit = formatRate({ limit: claims, windowMs });
    return key === '' ? { limit, claims, windowMs } : { key, limit, claims, windowMs };
  });
  return list.sort((a, b) => (a.key ?? '').localeCompare(b.key ?? ''));
}
