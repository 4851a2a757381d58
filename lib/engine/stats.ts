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

/** OwnerCount is a worker and how many tasks it owns. */
export interface OwnerCount {
  readonly worker: string;
  readonly tasks: number;
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
