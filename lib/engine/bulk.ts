import { TaskNotFoundError } from '../errors.js';
import { describe } from '../task/describe.js';
import { Bypass, Label } from '../task/label.js';
import { isTaskPageState, taskPageStateNames, type TaskPageState } from '../task/state.js';
import type { Task } from '../task/task.js';
import { pageMostLimit, type TaskPage, type TaskPageOptions } from './page.js';

/** BulkEngine is what of an Engine a bulk action calls (each call observed as the engine's own). */
interface BulkEngine {
  tasks(options: TaskPageOptions): Promise<TaskPage>;
  cycles(task: Task): Promise<void>;
  delete(task: Task): Promise<void>;
  cancel(id: string): Promise<boolean>;
}

/**
 * BulkOptions selects the tasks a bulk action (`engine.resetTasks`,
 * `removeTasks`, `cancelTasks`) acts on: those of a state that match a query.
 *
 *     await engine.resetTasks({ query: { meta: { kind: 'mail' } } }); // the halted mail tasks run again
 *     await engine.removeTasks({ state: 'halted' });                  // every dead letter goes
 */
export interface BulkOptions {
  /**
   * The list to walk (as for `engine.tasks()`). resetTasks: `halted` by
   * default; removeTasks and cancelTasks: `all` by default, and a call
   * without a query must name it (every task of that state).
   */
  state?: TaskPageState;
  /** The label query the tasks must match (as for `exists`); none: every task of the state. */
  query?: Task;
  /** List what the action would act on, change nothing. @defaultValue false */
  dryRun?: boolean;
  /** How many tasks it acts on at most; `more` says when it stopped there. @defaultValue 10 000 */
  most?: number;
}

/** BulkResult says what a bulk action did (or, with dryRun, would do). */
export interface BulkResult {
  /** The ids acted on (dryRun: that would be), in the order the list gave them. */
  readonly ids: string[];
  /** Tasks that matched but were left alone, and why (no circuit breaker to reset, gone meanwhile). */
  readonly skipped: { readonly id: string; readonly reason: string }[];
  /** True when it stopped at `most` with tasks left to read. */
  readonly more: boolean;
}

/** BulkAction names the three bulk actions. */
export type BulkAction = 'reset' | 'remove' | 'cancel';

const bulkDefaults = { most: 10_000, mostLimit: 1_000_000 } as const;

/**
 * bulkAct walks the pages of a state's tasks that match the query
 * (engine.tasks) and acts on each: `reset` resets its circuit breaker
 * (cycles; a task without one is skipped), `remove` deletes it with bypass
 * (an operator's delete: removed, not completed), `cancel` cancels it
 * (outcome cancelled; a running handler's signal aborts). A task met twice
 * is acted on once; a task gone meanwhile is skipped. Each action is its
 * own atomic step: the call as a whole is not.
 */
export async function bulkAct(
  engine: BulkEngine,
  action: BulkAction,
  options: unknown,
): Promise<BulkResult> {
  const { state, query, dryRun, most } = readBulkOptions(action, options);
  const result = {
    ids: [] as string[],
    skipped: [] as { id: string; reason: string }[],
    more: false,
  };
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await engine.tasks({
      state,
      ...(query === undefined ? {} : { query }),
      limit: pageMostLimit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const task of page.tasks) {
      const id = task.core?.[Label.Object] ?? '';
      if (seen.has(id)) continue;
      if (result.ids.length >= most) {
        result.more = true;
        return result;
      }
      seen.add(id);
      const reason = await bulkActOne(engine, action, task, dryRun);
      if (reason === undefined) result.ids.push(id);
      else result.skipped.push({ id, reason });
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return result;
}

/**
 * bulkActOne acts on one task as a bulk action does (the dashboard's actions
 * on a selection too): answers why it left the task alone, or undefined
 * when it acted (dryRun: would act).
 */
export async function bulkActOne(
  engine: BulkEngine,
  action: BulkAction,
  task: Task,
  dryRun = false,
): Promise<string | undefined> {
  const id = task.core?.[Label.Object] ?? '';
  if (action === 'reset' && task.core?.[Label.Cancel] === undefined)
    return 'no circuit breaker (core cancel) to reset';
  if (dryRun) return undefined;
  try {
    return await act(engine, action, id, task);
  } catch (error) {
    if (!(error instanceof TaskNotFoundError)) throw error;
    return 'gone meanwhile';
  }
}

async function act(
  engine: BulkEngine,
  action: BulkAction,
  id: string,
  task: Task,
): Promise<string | undefined> {
  if (action === 'reset') await engine.cycles(task);
  else if (action === 'remove')
    await engine.delete({ core: { [Label.Object]: id, [Label.Bypass]: Bypass.True } });
  else if (!(await engine.cancel(id))) return 'finished meanwhile';
  return undefined;
}

function readBulkOptions(
  action: BulkAction,
  options: unknown,
): { state: TaskPageState; query: Task | undefined; dryRun: boolean; most: number } {
  const where = `${action}Tasks`;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`${where}: options must be an object; got ${describe(options)}`);
  const given = options as Partial<BulkOptions>;
  const state = given.state ?? (action === 'reset' ? 'halted' : 'all');
  if (!isTaskPageState(state))
    throw new TypeError(
      `${where}: option "state" must be one of ${taskPageStateNames.join(', ')}; got ${describe(state)}`,
    );
  if (given.query === undefined && given.state === undefined && action !== 'reset')
    throw new TypeError(`${where}: give a "query", or a "state" to act on every task of it`);
  const dryRun = given.dryRun ?? false;
  if (typeof dryRun !== 'boolean')
    throw new TypeError(`${where}: option "dryRun" must be a boolean; got ${describe(dryRun)}`);
  const most = given.most ?? bulkDefaults.most;
  if (typeof most !== 'number' || !Number.isInteger(most) || most < 1)
    throw new TypeError(
      `${where}: option "most" must be a positive integer; got ${describe(most)}`,
    );
  if (most > bulkDefaults.mostLimit)
    throw new RangeError(
      `${where}: option "most" must be at most ${bulkDefaults.mostLimit}; got ${most}`,
    );
  return { state, query: given.query, dryRun, most };
}
