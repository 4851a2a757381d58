import { formatRate } from '../schedule/index.js';
import { decodeTask } from '../task/codec.js';
import { creationTime } from '../task/object-id.js';
import type { Task } from '../task/task.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { listWorkers, type WorkerPresence } from './presence.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/** How many owners stats() names at most (about: a small `owners` hash is read whole). */
const statsOwnerSample = 100;
/** How many target workers of unicast tasks stats() looks at for the oldest claimable task. */
export const statsTargetSample = 64;
/** How many claimable tasks stats() checks against the live workers' handlers at most. */
const statsUnmatchedSample = 256;
/** How many ids of unmatched tasks stats() names at most. */
const statsUnmatchedIds = 10;
/** How many values of one cap or one rate limit stats() names at most (the fullest first). */
export const statsFlowValues = 20;
/** How many cap counts, and how many open rate-limit windows, stats() reads at most. */
export const statsFlowBudget = 1_000;

/** OwnerCount is a worker and how many tasks it owns. */
export interface OwnerCount {
  readonly worker: string;
  readonly tasks: number;
}

/** CapValue is a value of a capped meta key and how many owned tasks carry it. */
export interface CapValue {
  readonly value: string;
  readonly owned: number;
}

/**
 * CapStats is a declared concurrency cap (docs/semantics.md §3.15) and what
 * it counts now, as `engine.stats()` reads it: bounded, whatever the number
 * of values (`engine.caps()` lists every value).
 */
export interface CapStats {
  /** The meta key; absent for the whole-queue cap. */
  readonly key?: string;
  /** The most tasks of one value (or of the queue) owned at once. */
  readonly concurrency: number;
  /** Owned tasks the cap counts (every owned task, for the whole-queue cap). */
  readonly owned: number;
  /** How many values have owned tasks (0 for the whole-queue cap). */
  readonly valueCount: number;
  /** How many of those are at their cap (or over it, after the cap was lowered); the whole-queue cap: 1 when it is reached. */
  readonly full: number;
  /** The values with the most owned tasks, most first, statsFlowValues at most. */
  readonly values: readonly CapValue[];
  /**
   * Whether every count was read: stats() reads statsFlowBudget counts of
   * all caps at most; when there are more, `owned`, `valueCount` and `full`
   * count the ones read.
   */
  readonly exact: boolean;
}

/** RateWindow is the current window of a rate-limited value (docs/semantics.md §3.16). */
export interface RateWindow {
  /** The meta key's value; `''` for the window of the whole queue. */
  readonly value: string;
  /** Claims counted in the window (0 while held). */
  readonly claims: number;
  /** When the window ends (or the hold): the value may be claimed again from then. */
  readonly reopensAt: Date;
  /** Held by `context.rateLimit(ms)` until reopensAt, whatever the limit. */
  readonly held: boolean;
}

/**
 * RateLimitStats is a rate limit (docs/semantics.md §3.16) and its current
 * windows, as `engine.stats()` reads them: bounded, whatever the number of
 * values.
 */
export interface RateLimitStats {
  /** The meta key; absent for the whole queue's limit. */
  readonly key?: string;
  /**
   * The rate in the interval language (`'100 per minute'`); absent when no
   * limit is declared for the key and only holds of `context.rateLimit`
   * remain (they outlive a removed limit).
   */
  readonly limit?: string;
  /** The most claims in one window (absent with `limit`). */
  readonly claims?: number;
  /** The window's length, ms (absent with `limit`). */
  readonly windowMs?: number;
  /** Claims counted in the current windows, all values together. */
  readonly counted: number;
  /** How many values have a current window or a hold. */
  readonly valueCount: number;
  /** How many of those claim nothing until their window reopens: full, or held. */
  readonly closed: number;
  /** The current windows, held ones first, then the most claims, statsFlowValues at most. */
  readonly values: readonly RateWindow[];
  /**
   * Whether every window was read: stats() reads the statsFlowBudget windows
   * that reopen first at most; when there are more, `counted`, `valueCount`
   * and `closed` count the ones read.
   */
  readonly exact: boolean;
}

/**
 * QueueStats is what `engine.stats()` counts, each figure read from an index
 * in O(1) or O(log N) (docs/redis-layout.md), at one instant of the queue.
 */
export interface QueueStats {
  /** The engine clock's instant the counts were taken at. */
  readonly at: Date;
  /** Records in the queue, tasks of every state (`HLEN tasks`). */
  readonly tasks: number;
  /** Unowned tasks a search can claim now: the `any` and `uni` ready pools. */
  readonly claimable: number;
  /** Tasks some worker owns (a lease runs). */
  readonly owned: number;
  /** `@exact` or deferred tasks not promoted to a ready pool yet. */
  readonly waiting: number;
  /** Of those, the ones whose due time has come: the next search promotes them. */
  readonly due: number;
  /** Tasks the circuit breaker holds (cycles reached cancel); `cycles` resets one. */
  readonly halted: number;
  /** Cron templates (`@every`). */
  readonly cronTemplates: number;
  /** Gate templates (a gate without `trigger`). */
  readonly gateTemplates: number;
  /** Broadcast tasks (method `all`, no cron), delivered to every engine. */
  readonly broadcast: number;
  /** Tasks created `after` a task that has not completed yet (not counted in `tasks`). */
  readonly held: number;
  /** When the queue was paused (`engine.pause()`), or undefined: it is not. */
  readonly paused: Date | undefined;
  /** The declared concurrency caps and their counts, the whole-queue cap first, then by key. */
  readonly caps: readonly CapStats[];
  /**
   * The declared rate limits and their current windows, the whole queue's
   * first, then by key; and keys held by `context.rateLimit` without a
   * declared limit.
   */
  readonly rateLimits: readonly RateLimitStats[];
  /**
   * The queries paused (`engine.pause(query)`), oldest first: each with when
   * and how many of its tasks wait aside now (they count in `claimable`).
   * docs/semantics.md §3.17.
   */
  readonly pausedQueries: readonly PausedQuery[];
  /**
   * The oldest claimable task by creation time, and its age by the engine's
   * clock: among unicast tasks, only the first statsTargetSample target
   * workers (in id order) are looked at. `undefined` when nothing is claimable.
   */
  readonly oldestClaimable: { readonly id: string; readonly ageMs: number } | undefined;
  /** How many workers own tasks. */
  readonly ownerCount: number;
  /** Workers that own tasks, most tasks first: all of them when few, else about statsOwnerSample. */
  readonly owners: readonly OwnerCount[];
  /** Live workers: running Workers whose presence has not run out (`engine.workers()`). */
  readonly workers: number;
  /**
   * Claimable tasks nobody can take: no live worker's handler labels match
   * them (a unicast task: not its target worker's, or that worker is not
   * live). Only the oldest claimable tasks are checked, statsUnmatchedSample
   * at most (a quarter of them unicast), and by labels only: a worker that
   * has a handler without labels takes any task, and a handler's `filter`
   * function is not known outside its process.
   */
  readonly unmatched: {
    /** claimable tasks checked */
    readonly checked: number;
    /** of those, how many no live worker matches */
    readonly count: number;
    /** the first statsUnmatchedIds of them, oldest first */
    readonly ids: readonly string[];
  };
}

/** PausedQuery is a query `engine.pause(query)` paused (stats().pausedQueries). */
export interface PausedQuery {
  readonly query: Task;
  readonly since: Date;
  /** Its claimable tasks, set aside until it is resumed. */
  readonly tasks: number;
}

interface StatsReply {
  tasks: number;
  claimable: number;
  owned: number;
  waiting: number;
  due: number;
  halted: number;
  cron: number;
  gate: number;
  broadcast: number;
  held: number;
  paused: string | false;
  paused_queries: [string, string, number][] | Record<string, never>;
  oldest: string | false;
  owner_count: number;
  owners: string[] | Record<string, never>;
  checked: number;
  unmatched: string[] | Record<string, never>;
  caps: Flat;
  cap_owned: number;
  cap_fields: number;
  cap_counts: Flat;
  rates: Flat;
  open_windows: number;
  windows: Flat;
}

/** A flat field, value, ... list as Lua answers it (cjson writes an empty one as `{}`). */
type Flat = string[] | Record<string, never>;

/** pairsOf reads a flat field, value, ... list. */
function pairsOf(flat: Flat): [string, string][] {
  if (!Array.isArray(flat)) return [];
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) {
    pairs.push([flat[index] ?? '', flat[index + 1] ?? '']);
  }
  return pairs;
}

/** queueStats reads the queue's counts in one read-only script (stats.lua). */
export async function queueStats(context: EngineContext): Promise<QueueStats> {
  assertOpen(context, 'stats');
  const workers = await listWorkers(context);
  const at = readClock(context.clock);
  const reply = JSON.parse(
    (await run(
      context,
      'stats',
      argv('stats', {
        now_ms: at.getTime(),
        owners: statsOwnerSample,
        targets: statsTargetSample,
        workers: JSON.stringify(workers.map(searchesOf)),
        sample: statsUnmatchedSample,
        flow: statsFlowBudget,
      }),
    )) as string,
  ) as StatsReply;
  const unmatched = Array.isArray(reply.unmatched) ? reply.unmatched : [];
  return {
    at,
    tasks: reply.tasks,
    claimable: reply.claimable,
    owned: reply.owned,
    waiting: reply.waiting,
    due: reply.due,
    halted: reply.halted,
    cronTemplates: reply.cron,
    gateTemplates: reply.gate,
    broadcast: reply.broadcast,
    held: reply.held,
    paused: reply.paused === false ? undefined : new Date(Number(reply.paused)),
    caps: capsOf(reply),
    rateLimits: rateLimitsOf(reply),
    pausedQueries: (Array.isArray(reply.paused_queries) ? reply.paused_queries : [])
      .map(([since, query, tasks]) => ({
        query: decodeTask(query),
        since: new Date(Number(since)),
        tasks,
      }))
      .sort((a, b) => a.since.getTime() - b.since.getTime()),
    oldestClaimable: oldestOf(reply.oldest, at),
    ownerCount: reply.owner_count,
    owners: ownersOf(reply.owners),
    workers: workers.length,
    unmatched: {
      checked: reply.checked,
      count: unmatched.length,
      ids: unmatched.slice(0, statsUnmatchedIds),
    },
  };
}

/** searchesOf: what a live worker searches with, as stats.lua reads it. */
function searchesOf(presence: WorkerPresence): { w: string; a: boolean; f: string[] } {
  const handlers = Array.isArray(presence.handlers) ? presence.handlers : [];
  return {
    w: presence.worker,
    a: handlers.some((labels) => labels === null),
    f: handlers.filter((labels) => labels !== null).map((labels) => JSON.stringify(labels)),
  };
}

function oldestOf(id: string | false, at: Date): QueueStats['oldestClaimable'] {
  if (id === false) return undefined;
  const created = creationTime(id)?.getTime() ?? at.getTime();
  return { id, ageMs: Math.max(0, at.getTime() - created) };
}

/** ownersOf reads HSCAN's flat worker, count list (cjson writes an empty one as `{}`). */
function ownersOf(flat: string[] | Record<string, never>): OwnerCount[] {
  if (!Array.isArray(flat)) return [];
  const owners: OwnerCount[] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) {
    owners.push({ worker: flat[index] ?? '', tasks: Number(flat[index + 1]) });
  }
  return owners.sort((a, b) => b.tasks - a.tasks || (a.worker < b.worker ? -1 : 1));
}

/** byKey orders the whole queue's entry ('' key) first, then by key. */
const byKey = (a: { key?: string }, b: { key?: string }): number =>
  (a.key ?? '').localeCompare(b.key ?? '');

/** splitField reads a `cap-counts` or `rate-windows` field: `<meta key>\0<value>`, or '' for the whole queue. */
function splitField(field: string): [string, string] {
  const at = field.indexOf('\0');
  return at < 0 ? ['', ''] : [field.slice(0, at), field.slice(at + 1)];
}

/** capsOf makes the caps of stats.lua's reply: each declared cap with the counts read. */
function capsOf(reply: StatsReply): CapStats[] {
  const exact = reply.cap_fields <= pairsOf(reply.cap_counts).length;
  const counts = new Map<string, CapValue[]>();
  for (const [field, owned] of pairsOf(reply.cap_counts)) {
    const [key, value] = splitField(field);
    if (key === '') continue;
    const list = counts.get(key) ?? [];
    list.push({ value, owned: Number(owned) });
    counts.set(key, list);
  }
  const caps = pairsOf(reply.caps).map(([key, stored]): CapStats => {
    const concurrency = Number(stored);
    if (key === '') {
      const owned = reply.cap_owned;
      return {
        concurrency,
        owned,
        valueCount: 0,
        full: owned >= concurrency ? 1 : 0,
        values: [],
        exact: true,
      };
    }
    const values = (counts.get(key) ?? []).sort(
      (a, b) => b.owned - a.owned || (a.value < b.value ? -1 : 1),
    );
    return {
      key,
      concurrency,
      owned: values.reduce((sum, value) => sum + value.owned, 0),
      valueCount: values.length,
      full: values.filter((value) => value.owned >= concurrency).length,
      values: values.slice(0, statsFlowValues),
      exact,
    };
  });
  return caps.sort(byKey);
}

/** rateLimitsOf makes the rate limits of stats.lua's reply: each declared limit, and held keys without one, with the windows read. */
function rateLimitsOf(reply: StatsReply): RateLimitStats[] {
  const exact = reply.open_windows <= pairsOf(reply.windows).length;
  const declared = new Map<string, { claims: number; windowMs: number }>();
  for (const [key, stored] of pairsOf(reply.rates)) {
    const [claims = 0, windowMs = 0] = stored.split(':').map(Number);
    declared.set(key, { claims, windowMs });
  }
  const windows = new Map<string, RateWindow[]>();
  for (const [field, stored] of pairsOf(reply.windows)) {
    const [key, value] = splitField(field);
    const [reopen = 0, claims = 0] = stored.split(':').map(Number);
    const list = windows.get(key) ?? [];
    list.push({
      value,
      claims: Math.max(0, claims),
      reopensAt: new Date(reopen),
      held: claims < 0,
    });
    windows.set(key, list);
  }
  const keys = new Set([...declared.keys(), ...windows.keys()]);
  const limits = [...keys].map((key): RateLimitStats => {
    const rate = declared.get(key);
    const values = (windows.get(key) ?? []).sort(
      (a, b) =>
        Number(b.held) - Number(a.held) || b.claims - a.claims || (a.value < b.value ? -1 : 1),
    );
    return {
      ...(key === '' ? {} : { key }),
      ...(rate === undefined
        ? {}
        : { limit: formatRate({ limit: rate.claims, windowMs: rate.windowMs }), ...rate }),
      counted: values.reduce((sum, window) => sum + window.claims, 0),
      valueCount: values.length,
      closed: values.filter(
        (window) => window.held || (rate !== undefined && window.claims >= rate.claims),
      ).length,
      values: values.slice(0, statsFlowValues),
      exact,
    };
  });
  return limits.sort(byKey);
}
