import type { Task } from '../task/task.js';
import { validateFilter } from '../task/validate.js';
import { Label } from '../task/label.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { prepareDelete } from './delete.js';
import { contextOf } from './handle.js';
import { run } from './run.js';
import {
  pruneLedger,
  readSearchReply,
  retry,
  searchArgs,
  searchTask,
  type SearchReply,
} from './search.js';

// Operations the worker runtime needs beyond the public Engine API. They keep
// the engine's semantics: each is one atomic step, or equivalent to a
// sequence of public operations.

/**
 * deleteThenSearch completes a task and claims the next one as one atomic
 * step (the delete-search script): the same outcome as `delete(task)`
 * followed by `search(filter)` with nothing in between, in one round trip.
 * Throws what delete throws; the search does not run then.
 */
export async function deleteThenSearch(
  engine: object,
  task: Task,
  filterArgument?: Task,
  exclude: string[] = [],
): Promise<Task | undefined> {
  const context = contextOf(engine);
  assertOpen(context, 'delete');
  const filter = validateFilter(filterArgument);
  const now = readClock(context.clock);
  const nowMs = now.getTime();
  const prepared = prepareDelete(context, task, now);
  if (prepared.completedLocally) return searchTask(context, filter, exclude);
  await pruneLedger(context, nowMs);
  const [, ...reply] = (await run(context, 'deleteSearch', [
    ...prepared.args,
    ...searchArgs(context, filter, nowMs, exclude),
  ])) as [number, ...SearchReply];
  const outcome = readSearchReply(context, reply, nowMs);
  return outcome === retry ? searchTask(context, filter, exclude) : outcome;
}

/**
 * searchExcluding is `search(filter)` that skips the given ids (the worker
 * runtime's declined tasks), so an older task no handler takes does not hide
 * the newer ones from a worker without labels.
 */
export function searchExcluding(
  engine: object,
  filterArgument: Task | undefined,
  exclude: string[],
): Promise<Task | undefined> {
  return searchTask(contextOf(engine), filterArgument, exclude);
}

/**
 * releaseTask gives back a task this engine's worker owns without counting a
 * cycle, so another worker can claim it at once. Says whether it was released
 * (false: gone, or owned by someone else).
 */
export async function releaseTask(engine: object, task: Task): Promise<boolean> {
  const context = contextOf(engine);
  assertOpen(context, 'release');
  const id = task.core?.[Label.Object];
  if (id === undefined) return false;
  const now = readClock(context.clock);
  return (await run(context, 'release', [now.getTime(), id, context.options.worker])) === 1;
}

/** nextDueMs is the earliest due time of a waiting exact or deferred task the last empty search saw. */
export function nextDueMs(engine: object): number | undefined {
  return contextOf(engine).nextDueMs;
}

/**
 * nextTickMs reads the earliest tick+1 of the queue's cron templates (engine
 * time), if any; a template parked because its @every cannot be read has none.
 */
export async function nextTickMs(engine: object): Promise<number | undefined> {
  const context = contextOf(engine);
  const [, score] = await context.connection.client.zrange(
    context.keys.templates,
    0,
    0,
    'WITHSCORES',
  );
  const tickMs = score === undefined ? Number.NaN : Number(score);
  return Number.isFinite(tickMs) ? tickMs : undefined;
}

/** engineContext exposes the context to the worker runtime (connection, keys, clock, options). */
export function engineContext(engine: object): EngineContext {
  return contextOf(engine);
}
