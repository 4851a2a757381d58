import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import type { RedisClient } from './connection.js';
import { assertOpen, readClock, type EngineContext } from './context.js';

/**
 * WorkerPresence is what a running Worker tells about itself (`engine.workers()`),
 * renewed by its heartbeat:
 *
 *     worker        a1b2…            the engine's worker id
 *     host, pid     web-3, 4121      where it runs
 *     started       2023-10-20T…Z    when it started (engine clock)
 *     heartbeat     2023-10-20T…Z    its last heartbeat (engine clock)
 *     concurrency   4                tasks it ensures at once at most
 *     running       2                tasks it ensures now
 *     handlers      [{ meta: … }, null]  each handler's labels; null: a handler without
 *                                        labels (the worker then searches for any task)
 */
export interface WorkerPresence {
  readonly worker: string;
  readonly host: string;
  readonly pid: number;
  readonly started: string;
  readonly heartbeat: string;
  readonly concurrency: number;
  readonly running: number;
  readonly handlers: readonly (Task | null)[];
  /** ms its presence lasts without a heartbeat: it is gone that long after it died. */
  readonly ttl: number;
}

/** The most workers `engine.workers()` lists (the most recent heartbeats first). */
const workersMost = 1_000;
/** How many index entries a heartbeat checks for workers whose presence ran out. */
const sweepPerBeat = 10;

/**
 * writePresence renews a worker's presence key for ttl ms (PX, so it vanishes
 * by itself when the worker dies) and its entry in the `workers` index, and
 * drops a few index entries whose key has run out (the index is cleaned
 * lazily, a bounded number per heartbeat, oldest heartbeats first).
 */
export async function writePresence(
  context: EngineContext,
  client: RedisClient,
  presence: Omit<WorkerPresence, 'heartbeat'>,
): Promise<void> {
  assertOpen(context, 'Worker heartbeat');
  const now = readClock(context.clock);
  const { keys } = context;
  const record: WorkerPresence = { ...presence, heartbeat: formatTime(now) };
  await client
    .multi()
    .set(keys.worker(presence.worker), JSON.stringify(record), 'PX', presence.ttl)
    .zadd(keys.workers, now.getTime(), presence.worker)
    .exec();
  const oldest = await client.zrange(keys.workers, 0, sweepPerBeat - 1);
  if (oldest.length === 0) return;
  const records = await client.mget(...oldest.map((id) => keys.worker(id)));
  const gone = oldest.filter((_, index) => records[index] === null);
  if (gone.length > 0) await client.zrem(keys.workers, ...gone);
}

/** removePresence deletes a worker's presence at once (a worker that stops). */
export async function removePresence(
  context: EngineContext,
  client: RedisClient,
  worker: string,
): Promise<void> {
  await client.multi().del(context.keys.worker(worker)).zrem(context.keys.workers, worker).exec();
}

/**
 * listWorkers returns the live workers of the queue, by worker id: those
 * whose presence key has not run out, among the workersMost most recent
 * heartbeats. Index entries of workers found gone are dropped (a worker that
 * beats again meanwhile is back in the index at its next heartbeat).
 */
export function listWorkers(context: EngineContext): Promise<WorkerPresence[]> {
  assertOpen(context, 'workers');
  return context.reach.guard(readWorkers(context));
}

async function readWorkers(context: EngineContext): Promise<WorkerPresence[]> {
  const client = context.connection.client;
  const ids = await client.zrevrange(context.keys.workers, 0, workersMost - 1);
  if (ids.length === 0) return [];
  const records = await client.mget(...ids.map((id) => context.keys.worker(id)));
  const live: WorkerPresence[] = [];
  const gone: string[] = [];
  ids.forEach((id, index) => {
    const presence = readPresence(records[index]);
    if (presence === undefined) gone.push(id);
    else live.push(presence);
  });
  if (gone.length > 0) await client.zrem(context.keys.workers, ...gone);
  return live.sort((a, b) => (a.worker < b.worker ? -1 : a.worker > b.worker ? 1 : 0));
}

/** readPresence reads a presence record; undefined when it is missing or not one. */
function readPresence(json: string | null | undefined): WorkerPresence | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    const value = JSON.parse(json) as Partial<WorkerPresence>;
    if (typeof value.worker !== 'string' || !Array.isArray(value.handlers)) return undefined;
    return value as WorkerPresence;
  } catch {
    return undefined;
  }
}
