import { describe } from '../task/describe.js';
import { encodeTask, tryDecodeStored } from '../task/codec.js';
import type { Task } from '../task/task.js';
import { isTaskPageState, taskPageStateNames, type TaskPageState } from '../task/state.js';
import { validateQuery } from '../task/validate.js';
import { assertOpen, type EngineContext } from './context.js';
import { listMetaIndexes } from './meta-index.js';
import { run } from './run.js';
import { readOutcome, type Outcome } from './outcome.js';
import { Label } from '../task/label.js';
import { argv } from './lua/arguments.js';

/** TaskPageOptions selects a page of `engine.tasks()`; every field is optional. */
export interface TaskPageOptions {
  /** @defaultValue 'all' */
  state?: TaskPageState;
  /** A query the tasks must match (as for `exists`); none: every task of the state. */
  query?: Task;
  /**
   * How many tasks a page holds at most.
   * @defaultValue 100
   */
  limit?: number;
  /** The `cursor` of the previous page; none: the first page. */
  cursor?: string;
}

/**
 * TaskPage is one page of `engine.tasks()`. `cursor` is undefined once the
 * state's index was read to its end; a page may hold fewer tasks than the
 * limit (even none) and still have a cursor, when a query skipped many.
 */
export interface TaskPage {
  readonly tasks: Task[];
  readonly cursor: string | undefined;
  /**
   * State `halted` only (the dead letters): the outcome each halt recorded,
   * by task id, while the queue keeps it (outcomeRetention): `failed` or
   * `timeout` with the last attempt's error (message, code, stack), log and
   * times. Read right after the page, not in the same step.
   */
  readonly outcomes?: Record<string, Outcome>;
}

/** The default and largest `limit` of a page. */
export const pageDefaultLimit = 100;
export const pageMostLimit = 1_000;
/** How many index entries one page reads at most, whatever the query skips. */
export const pageBudget = 1_000;
/**
 * How many of them one script reads at most: a page takes two or more (a
 * script also stops after the engine's stepTime). 1,000 small tasks took
 * Redis 6.2 ms at 1M on a quiet machine, 5,000 took 15 ms (`npm run bench`,
 * adversarial depth, tasks page), and a script blocks all of Redis.
 */
const stepBudget = 500;

/**
 * listPage reads one page of the tasks in a state (page.lua). The cursor is
 * the state's name and where its index is to be read on; cursors of tasks
 * that left the state meanwhile still work. Tasks that move within a state
 * by score (a lease extended, a template ticked) while pages are read may be
 * met twice or not at all, as may records stored while `all` is read (HSCAN).
 */
export async function listPage(context: EngineContext, options: unknown): Promise<TaskPage> {
  assertOpen(context, 'tasks');
  const { state, query, limit, position } = readPageOptions(options);
  const queryJson = query === undefined ? '' : encodeTask(query);
  await listMetaIndexes(context);
  const tasks: Task[] = [];
  let next = position;
  for (let read = 0; read < pageBudget && tasks.length < limit;) {
    const [after = '', readText = '', ...flat] = (await run(
      context,
      'page',
      argv('page', {
        state,
        query: queryJson,
        limit: limit - tasks.length,
        position: next,
        budget: Math.min(stepBudget, pageBudget - read),
      }),
    )) as string[];
    read += Math.max(1, Number(readText) || 0);
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const task = tryDecodeStored(flat[index] ?? '', flat[index + 1]);
      if (task !== undefined) tasks.push(task);
    }
    next = after;
    if (next === '') break;
  }
  const cursor = next === '' ? undefined : `${state}:${next}`;
  if (state !== 'halted') return { tasks, cursor };
  return { tasks, cursor, outcomes: await haltOutcomes(context, tasks) };
}

/** haltOutcomes reads the outcomes the halts of some tasks recorded (one HMGET). */
async function haltOutcomes(
  context: EngineContext,
  tasks: readonly Task[],
): Promise<Record<string, Outcome>> {
  const outcomes: Record<string, Outcome> = {};
  const ids = tasks.map((task) => task.core?.[Label.Object] ?? '');
  if (ids.length === 0) return outcomes;
  const records = await context.reach.guard(
    context.connection.client.hmget(context.keys.outcomes, ...ids),
  );
  ids.forEach((id, index) => {
    const outcome = readOutcome(records[index]);
    if (outcome !== undefined && outcome.id === id) outcomes[id] = outcome;
  });
  return outcomes;
}

/** readPageOptions checks the options: TypeError or RangeError naming the option, the query as exists does. */
function readPageOptions(options: unknown): {
  state: TaskPageState;
  query: Task | undefined;
  limit: number;
  position: string;
} {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object')
    throw new TypeError(`tasks: options must be an object; got ${describe(options)}`);
  const { state = 'all', query, limit = pageDefaultLimit, cursor } = options as TaskPageOptions;
  if (!isTaskPageState(state))
    throw new TypeError(
      `tasks: option "state" must be one of ${taskPageStateNames.join(', ')}; got ${describe(state)}`,
    );
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
    throw new TypeError(`tasks: option "limit" must be a positive integer; got ${describe(limit)}`);
  if (limit > pageMostLimit)
    throw new RangeError(`tasks: option "limit" must be at most ${pageMostLimit}; got ${limit}`);
  let position = '';
  if (cursor !== undefined) {
    if (typeof cursor !== 'string' || !cursor.startsWith(`${state}:`))
      throw new TypeError(
        `tasks: option "cursor" must be the cursor of a page of state "${state}"; got ${describe(cursor)}`,
      );
    position = cursor.slice(state.length + 1);
    if (!positionForms[state].test(position) && !listedPosition.test(position))
      throw new TypeError(
        `tasks: option "cursor" is not a cursor of this engine; got ${describe(cursor)}`,
      );
  }
  return {
    state,
    query: query === undefined ? undefined : validateQuery(query, 'tasks'),
    limit,
    position,
  };
}

/** The form of the position each state's cursor carries (page.lua). */
const positionForms: Record<TaskPageState, RegExp> = {
  all: /^\d+:\d+$/,
  held: /^\d+:\d+$/,
  claimable: /^[1-5][\s\S]+$/,
  halted: /^\d{13}-\d{12}$/,
  gate: /^\d{13}-\d{12}$/,
  owned: /^[^:]+:\d{13}-\d{12}$/,
  waiting: /^[^:]+:\d{13}-\d{12}$/,
  cron: /^[^:]+:\d{13}-\d{12}$/,
  broadcast: /^[^:]+:\d{13}-\d{12}$/,
};

/** The position of any state's walk of the tasks listed under a meta value (metaIndexes). */
const listedPosition = /^m\d{13}-\d{12}$/;
