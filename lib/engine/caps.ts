import { describe } from '../task/describe.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { readControlKey } from './control-key.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';
import { followLanes } from './aside.js';

/**
 * Cap is a concurrency cap (docs/semantics.md §3.15): at most `concurrency`
 * tasks owned at once for each value of the meta key `key`, or, without a
 * key, in the whole queue.
 */
export interface Cap {
  /** The meta key whose values are capped one by one; absent: the whole queue. */
  key?: string;
  /** The most tasks (of one value) owned at once: an integer from 1 to 1,000,000. */
  concurrency: number;
}

/** CapState is a declared cap with what it counts now (engine.caps()). */
export interface CapState {
  /** The meta key; absent for the whole-queue cap. */
  key?: string;
  /** The most tasks of one value (or of the queue) owned at once. */
  concurrency: number;
  /** How many tasks the cap counts now: owned tasks that have the key (all owned tasks, without a key). */
  owned: number;
  /** Owned tasks per value of the key that has any (empty for the whole-queue cap). */
  values: Record<string, number>;
}

/** The largest concurrency a cap may declare. */
const maxCapConcurrency = 1_000_000;

/** readCap checks setCap's argument; throws TypeError or RangeError. */
function readCap(cap: unknown): { key: string; concurrency: number } {
  if (typeof cap !== 'object' || cap === null || Array.isArray(cap)) {
    throw new TypeError(
      `setCap: the cap must be an object { key?, concurrency }; got ${describe(cap)}`,
    );
  }
  for (const name of Object.keys(cap)) {
    if (name !== 'key' && name !== 'concurrency') {
      throw new TypeError(`setCap: a cap has "key" and "concurrency" only; got ${describe(name)}`);
    }
  }
  const { key, concurrency } = cap as { key?: unknown; concurrency?: unknown };
  const stored = readControlKey('setCap', key);
  if (typeof concurrency !== 'number' || !Number.isInteger(concurrency)) {
    throw new TypeError(`setCap: "concurrency" must be an integer; got ${describe(concurrency)}`);
  }
  if (concurrency < 1 || concurrency > maxCapConcurrency) {
    throw new RangeError(
      `setCap: "concurrency" must be from 1 to ${maxCapConcurrency}; got ${concurrency}`,
    );
  }
  return { key: stored, concurrency };
}

/** setCap declares or changes a cap; resolves whether the caps changed. */
export async function setCap(context: EngineContext, cap: Cap): Promise<boolean> {
  const { key, concurrency } = readCap(cap);
  assertOpen(context, 'setCap');
  const now = readClock(context.clock);
  const answer = (await run(
    context,
    'caps',
    argv('caps', { now_ms: now.getTime(), operation: 'set', key, concurrency }),
  )) as number;
  return followLanes(context, answer, key);
}

/** removeCap removes the cap of a meta key (none: the whole-queue cap); resolves whether there was one. */
export async function removeCap(context: EngineContext, key?: string): Promise<boolean> {
  const stored = readControlKey('removeCap', key);
  assertOpen(context, 'removeCap');
  const now = readClock(context.clock);
  const answer = (await run(
    context,
    'caps',
    argv('caps', { now_ms: now.getTime(), operation: 'remove', key: stored, concurrency: '' }),
  )) as number;
  return followLanes(context, answer, stored);
}

interface StoredCap {
  key: string;
  concurrency: number;
  owned: number;
  values: [string, number][] | Record<string, never>;
}

/** listCaps reads the declared caps and their counts, the whole-queue cap first, then by key. */
export async function listCaps(context: EngineContext): Promise<CapState[]> {
  assertOpen(context, 'caps');
  const now = readClock(context.clock);
  const reply = (await run(
    context,
    'capsList',
    argv('caps_list', { now_ms: now.getTime() }),
  )) as string;
  const stored = JSON.parse(reply) as StoredCap[];
  const caps = stored.map((cap): CapState => {
    const values: Record<string, number> = {};
    if (Array.isArray(cap.values)) for (const [value, owned] of cap.values) values[value] = owned;
    return cap.key === ''
      ? { concurrency: cap.concurrency, owned: cap.owned, values }
      : { key: cap.key, concurrency: cap.concurrency, owned: cap.owned, values };
  });
  return caps.sort((a, b) => (a.key ?? '').localeCompare(b.key ?? ''));
}
